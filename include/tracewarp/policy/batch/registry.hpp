// The batch scheduling policies by name: the one place a policy's name, its one-line
// description and its parameters are declared, and the one place a name becomes a policy.
// Adding a policy: write its class (the SchedulingPolicy concept in scheduling.hpp), add it to
// AnyBatchPolicy and one entry to the list in registry.cpp.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "tracewarp/core/params.hpp"
#include "tracewarp/policy/batch/backfill.hpp"
#include "tracewarp/policy/batch/interval.hpp"
#include "tracewarp/policy/batch/wrsa.hpp"

namespace tracewarp::batch {

using AnyBatchPolicy = std::variant<FcfsPolicy, EasyBackfillPolicy, ConservativeBackfillPolicy, ReservingBackfillPolicy,
                                    IntervalPolicy, LwjfPolicy, WrsaOneReservedPolicy, WrsaAllReservedPolicy>;

// Every policy's parameters (keys batch.*), declared by the policies that read them.
struct PolicySettings {
  std::string interval_pattern = "A";                         // interval
  bool interval_from_scratch = false;                         // interval
  std::string free_runs = "auto";                             // interval: the free-run search kernel
  double wrsa_alpha = WrsaSettings{}.alpha;                   // wrsa-or, wrsa-ar
  double wrsa_beta = WrsaSettings{}.beta;                     // the scores every WRSA policy reads
  std::string wrsa_or_head = "earliest-arrived";              // wrsa-or: which considered job is the head
  std::size_t reserved_jobs = 1;                              // backfill: reservations per pass (0 = all)
  Time backfill_window = from_seconds(std::int64_t{86'400});  // backfill: no reservation beyond (0 = none)
  WrsaSettings wrsa() const {
    return {wrsa_alpha, wrsa_beta,
            wrsa_or_head == "highest-wrsa" ? WrsaSettings::Head::highest_wrsa : WrsaSettings::Head::earliest_arrived};
  }
};
const ParamTable<PolicySettings>& policy_params();

struct BatchPolicyInfo {
  std::string name;
  std::string description;
  bool contiguous_only;  // plans contiguous node ranges: needs contiguous allocation
  AnyBatchPolicy (*make)(const PolicySettings&);
};
const std::vector<BatchPolicyInfo>& batch_policies();
std::vector<std::string> batch_policy_names();
const BatchPolicyInfo& find_batch_policy(const std::string& name);  // throws ConfigError

}  // namespace tracewarp::batch
