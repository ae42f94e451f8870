// The batch policies the tests run, from the registry: a new policy is tested without editing a
// list.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tracewarp/model/batch/batch_model.hpp"

#include "tracewarp/policy/batch/priority.hpp"
#include "tracewarp/policy/batch/registry.hpp"

namespace tracewarp::testing {

// A policy as the tests run it: its name and the keys it needs (the Python policy needs a file).
struct TestedPolicy {
  std::string name;
  batch::PolicySettings settings;
  std::vector<std::pair<std::string, std::string>> keys;  // the same settings, as --set would give them
  TestedPolicy(std::string n) : name(std::move(n)) {      // NOLINT: a policy name is a TestedPolicy
    if (name != "python") return;
    const std::string file = std::string(TRACEWARP_SOURCE_DIR) + "/examples/policies/sjf_backfill.py";
    settings.set("python_policy", file);
    keys.emplace_back("batch.python_policy", file);
  }
  TestedPolicy(const char* n) : TestedPolicy(std::string(n)) {}  // NOLINT
  void apply(batch::BatchParams& p) const {
    p.policy = name;
    p.policy_settings = settings;
  }
};
inline std::ostream& operator<<(std::ostream& out, const TestedPolicy& p) { return out << p.name; }

// Every batch policy for which any free nodes will do (all but the placement-aware ones, which
// need contiguous allocation and a pattern of their own); the Python policy runs the example
// SJF backfill.
inline std::vector<TestedPolicy> any_node_policies() {
  std::vector<TestedPolicy> out;
  for (const batch::BatchPolicyInfo& info : batch::batch_policies())
    if (!info.contiguous_only) out.emplace_back(info.name);
  return out;
}

// A multifactor priority with every factor weighted (queues 0 and 2 listed, 1 not), periods short
// enough for a test's workload of hours.
inline batch::PrioritySettings every_factor_priority() {
  return {.order = "multifactor",
          .weight_age = 100,
          .weight_fairshare = 1000,
          .weight_job_size = 50,
          .weight_queue = 200,
          .weight_expansion = 10,
          .max_age = from_seconds(std::int64_t{3600}),
          .calc_period = from_seconds(std::int64_t{120}),
          .half_life = from_seconds(std::int64_t{1800}),
          .queue_priority = {{0, 1}, {2, 3}}};
}

}  // namespace tracewarp::testing
