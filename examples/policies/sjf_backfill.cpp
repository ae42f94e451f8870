// An example batch policy in one file: shortest job first with EASY-style backfill. The build
// compiles every file of this folder into tracewarp (CMakeLists.txt globs it), so
// `batch.policy = "sjf"` works with nothing else edited, and the tests that run every registered
// policy (the rollback check, 1-4 ranks, the limits) run this one too. Copy it to start a policy
// of your own; its Python twin is examples/policies/sjf_backfill.py (batch.policy = "python").
//
// Each pass orders the considered jobs (the first queue_depth of the queue, 0 = all) by requested
// walltime, shortest first, ties in queue order. In that order a job starts if it fits now in the
// availability profile; the first that does not gets a reservation at its earliest fit, and
// every later one starts only if it fits now around it: EASY, over SJF order. With
// batch.sjf_reserved_jobs = K > 1, the first K that cannot start get reservations.
#include <algorithm>
#include <vector>

#include "tracewarp/core/error.hpp"
#include "tracewarp/policy/batch/profile.hpp"
#include "tracewarp/policy/batch/registry.hpp"

namespace tracewarp::batch {
namespace {

class SjfBackfillPolicy {
 public:
  explicit SjfBackfillPolicy(std::size_t reserved) : reserved_(reserved) {}
  bool reads_wrsa() const { return false; }
  Time longest_plannable() const { return kTimeInfinity; }
  bool operator==(const SjfBackfillPolicy&) const = default;
  TRACEWARP_PERSIST()  // configuration only: every pass plans from scratch

  PassDecision pass(const SchedulingInput& in) {
    std::vector<QueuedJob> jobs;
    for (const QueuedJob& j : in.depth == 0 ? in.queue : in.queue.first(in.depth)) jobs.push_back(j);
    std::stable_sort(jobs.begin(), jobs.end(),
                     [](const QueuedJob& a, const QueuedJob& b) { return a.requested < b.requested; });
    PassDecision out;
    AvailabilityProfile free(in.now, in.free_nodes, in.running);
    std::size_t reservations = 0;
    for (const QueuedJob& j : jobs) {
      if (j.nodes > in.total_nodes)
        throw InvariantError("sjf: job " + std::to_string(j.id) + " is larger than the machine");
      const Time start = free.earliest_start(j.nodes, j.requested);
      if (start == in.now) {
        out.start_now.push_back(j.id);
      } else if (reservations < reserved_) {
        ++reservations;
      } else {
        continue;  // neither starts nor is reserved: it must not take nodes from the plan
      }
      free.reserve(start, j.requested, j.nodes);
      out.reservations.push_back({j.id, start});
    }
    return out;
  }

 private:
  std::size_t reserved_;
};

struct SjfSettings {
  std::size_t reserved_jobs = 1;
};
const ParamTable<SjfSettings>& sjf_keys() {
  static const auto table = ParamTable<SjfSettings>("batch").integer(
      "sjf_reserved_jobs", &SjfSettings::reserved_jobs,
      "policy sjf (examples/policies/sjf_backfill.cpp): how many of the shortest jobs that cannot start get a "
      "reservation at each pass",
      {.min = 1});
  return table;
}

const RegisteredBatchPolicy sjf("sjf",
                                "example (examples/policies/): shortest requested walltime first, with EASY-style "
                                "backfill around the first sjf_reserved_jobs jobs that cannot start",
                                sjf_keys(), [](const SjfSettings& s) { return SjfBackfillPolicy{s.reserved_jobs}; });

}  // namespace
}  // namespace tracewarp::batch
