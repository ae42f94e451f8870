// Steps several batch policies share within one pass (internal to src/policy/batch/).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "tracewarp/core/error.hpp"
#include "tracewarp/policy/batch/queue_index.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch::detail {

// How many queued jobs this pass considers (the queue depth).
inline std::size_t considered(const SchedulingInput& in) {
  return in.depth == 0 ? in.queue.size() : std::min(in.depth, in.queue.size());
}

inline Time end_of(Time start, Time duration) {
  return duration > kTimeInfinity - start ? kTimeInfinity : start + duration;
}

[[noreturn, gnu::cold, gnu::noinline]] inline void report_misfit(const QueuedJob& job, const SchedulingInput& in) {
  throw InvariantError("job " + std::to_string(job.id) + " asks for " + std::to_string(job.nodes) +
                       " nodes on a machine of " + std::to_string(in.total_nodes) +
                       " (the model must reject such jobs at submission)");
}

// Called for every job a pass looks at, so the check is kept tiny and the report out of line.
inline void check_fits_machine(const QueuedJob& job, const SchedulingInput& in) {
  if (job.nodes == 0 || job.nodes > in.total_nodes) [[unlikely]]
    report_misfit(job, in);
}

// Visits the queued jobs at positions [first, limit) in queue order as visit(job) (id, nodes and
// requested set) until it returns false. With the input's index, stretches for which
// may_hold(QueueIndex::Summary) is false are skipped unseen; without one, every job is visited.
template <class MayHold, class Visit>
void for_each_queued(const SchedulingInput& in, std::size_t first, std::size_t limit, MayHold&& may_hold,
                     Visit&& visit) {
  if (first >= limit) return;
  if (in.index == nullptr) {
    for (std::size_t i = first; i < limit; ++i)
      if (!visit(in.queue[i])) return;
    return;
  }
  in.index->scan(in.queue[first].id, in.queue[limit - 1].id, may_hold,
                 [&](JobId id, std::uint32_t nodes, Time requested) {
                   return visit(QueuedJob{id, nodes, requested, 0});
                 });
}

// Starts queue jobs in order from the head while they fit; returns the index of the first that
// does not (the new head), updates free nodes, and appends the started jobs to `running`.
inline std::size_t start_in_order(const SchedulingInput& in, std::size_t limit, std::uint32_t& free,
                                  std::vector<RunningJob>& running, PassDecision& out) {
  std::size_t i = 0;
  for (; i < limit; ++i) {
    const QueuedJob& job = in.queue[i];
    check_fits_machine(job, in);
    if (job.nodes > free) break;
    free -= job.nodes;
    running.push_back({job.id, job.nodes, in.now, end_of(in.now, job.requested)});
    out.start_now.push_back(job.id);
    out.reservations.push_back({job.id, in.now});
  }
  return i;
}

}  // namespace tracewarp::batch::detail
