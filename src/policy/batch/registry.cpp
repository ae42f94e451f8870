#include "tracewarp/policy/batch/registry.hpp"

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/named.hpp"
#include "tracewarp/policy/batch/interval.hpp"

namespace tracewarp::batch {
namespace {
std::string show_pattern(const std::string& spec) { return spec; }
// A pattern is checked where it is read, so a bad one stops a run before it starts.
std::string checked_pattern(const std::string& spec, const std::string& key) {
  try {
    parse_interval_pattern(spec);
  } catch (const ConfigError& e) {
    throw ConfigError(key + ": " + e.what());
  }
  return spec;
}
}  // namespace

const ParamTable<PolicySettings>& policy_params() {
  using P = PolicySettings;
  static const ParamTable<P> table =
      ParamTable<P>("batch")
          .mapped("interval_pattern", &P::interval_pattern,
                  "policy interval: A, B, C or length:up_to pairs, e.g. 10m:1h,30m:12h,2h:24h,4h:36h,8h:60h",
                  show_pattern, checked_pattern)
          .choice("free_runs", &P::free_runs, {"auto", "portable", "avx2", "avx512"},
                  "policy interval: the free-run search kernel (auto = the fastest this CPU runs; the others for "
                  "comparing them: every kernel gives the same tables)")
          .flag("interval_from_scratch", &P::interval_from_scratch,
                "policy interval: search every job at every pass instead of keeping the places that provably did "
                "not change (same decisions; for pass wall times like a scheduler that plans from scratch)")
          .number("wrsa_alpha", &P::wrsa_alpha,
                  "policies wrsa-or, wrsa-ar: a reservation may move to T0 + (alpha - 1) x its walltime (wrsa.hpp)",
                  {.min = 1})
          .number("wrsa_beta", &P::wrsa_beta, "WRSA scores: WRSA <- beta x WRSA + (1 - beta) x WRA at each job end",
                  {.min = 0, .max = 1})
          .integer("reserved_jobs", &P::reserved_jobs,
                   "policy backfill: how many of the queue's first jobs (in priority order) that cannot start get a "
                   "reservation at each pass: 1 = EASY, 0 = every job (Slurm's bf_max_job_test)")
          .seconds("backfill_window_s", &P::backfill_window,
                   "policy backfill: no reservation starts later than this after the pass, seconds (Slurm's bf_window, "
                   "1 day by default; 0 = no window)",
                   {.min = 0})
          .choice("wrsa_or_head", &P::wrsa_or_head, {"earliest-arrived", "highest-wrsa"},
                  "policy wrsa-or: which of the top queue_depth jobs by WRSA is the reserved head, the earliest "
                  "arrived (EASY's head within them) or the first in WRSA order (our reading: wrsa.hpp)");
  return table;
}

const std::vector<BatchPolicyInfo>& batch_policies() {
  static const std::vector<BatchPolicyInfo> all = {
      {"fcfs", "first come, first served: start in queue order, stop at the first job that does not fit", false,
       [](const PolicySettings&) -> AnyBatchPolicy { return FcfsPolicy{}; }},
      {"easy", "EASY backfill: the head reserved at its shadow time, later jobs backfilled around it", false,
       [](const PolicySettings&) -> AnyBatchPolicy { return EasyBackfillPolicy{}; }},
      {"conservative", "conservative backfill: every job reserved, schedule compressed each pass", false,
       [](const PolicySettings&) -> AnyBatchPolicy { return ConservativeBackfillPolicy{}; }},
      {"backfill",
       "Slurm's backfill: replanned each pass in priority order, reservations for the first reserved_jobs jobs "
       "that cannot start (within backfill_window_s), the others started where they fit around them",
       false,
       [](const PolicySettings& s) -> AnyBatchPolicy {
         return ReservingBackfillPolicy{s.reserved_jobs, s.backfill_window};
       }},
      {"interval", "K computer interval scheduling: contiguous ranges planned on interval boundaries", true,
       [](const PolicySettings& s) -> AnyBatchPolicy {
         return IntervalPolicy{
             parse_interval_pattern(s.interval_pattern),
             s.interval_from_scratch ? IntervalPolicy::Passes::from_scratch : IntervalPolicy::Passes::keep_places,
             s.free_runs};
       }},
      {"lwjf", "largest WRSA job first: FCFS over the queue in descending WRSA, stops at the first misfit", false,
       [](const PolicySettings&) -> AnyBatchPolicy { return LwjfPolicy{}; }},
      {"lwjf-fill", "LWJF variant: every job that fits starts, in descending WRSA, no reservations", false,
       [](const PolicySettings&) -> AnyBatchPolicy { return LwjfPolicy{LwjfPolicy::OnMisfit::skip}; }},
      {"wrsa-or", "EASY with backfill in descending WRSA; higher-WRSA users may delay the head up to alpha", false,
       [](const PolicySettings& s) -> AnyBatchPolicy { return WrsaOneReservedPolicy{s.wrsa()}; }},
      {"wrsa-ar", "conservative backfill in descending WRSA; may push lower-WRSA reservations up to alpha", false,
       [](const PolicySettings& s) -> AnyBatchPolicy { return WrsaAllReservedPolicy{s.wrsa()}; }},
  };
  return all;
}

std::vector<std::string> batch_policy_names() { return names_of(batch_policies()); }

const BatchPolicyInfo& find_batch_policy(const std::string& name) {
  return find_named(batch_policies(), name, "batch policy");
}

}  // namespace tracewarp::batch
