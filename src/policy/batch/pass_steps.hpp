// Steps several batch policies share within one pass (internal to src/policy/batch/).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "tracewarp/core/error.hpp"
#include "tracewarp/policy/batch/queue_index.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch::detail {

// The queued jobs this pass considers (the queue depth).
inline QueueView considered(const SchedulingInput& in) { return in.depth == 0 ? in.queue : in.queue.first(in.depth); }

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

// Visits the jobs of `jobs` from `from` on, in queue order, as visit(job) until it returns
// false. Where `jobs` is (a prefix of) the input's own queue in arrival order, the hints apply
// (ArrivalOrderHints): jobs the previous pass settled are not visited, and stretches of the
// index for which may_hold(QueueIndex::Summary) is false are skipped unseen (visit then sees
// id, nodes and requested only). Over any other view, every job is visited.
template <class MayHold, class Visit>
void for_each_queued(const SchedulingInput& in, const QueueView& jobs, QueueView::iterator from, MayHold&& may_hold,
                     Visit&& visit) {
  if (from == jobs.end()) return;
  const ArrivalOrderHints* hints = jobs.starts_with_entries_of(in.queue) ? in.arrival_order : nullptr;
  if (hints == nullptr || hints->index == nullptr) {
    const JobId settled_below = hints == nullptr ? 0 : hints->settled_below;
    for (; from != jobs.end(); ++from)
      if (from->id >= settled_below && !visit(*from)) return;
    return;
  }
  hints->index->scan(std::max(from->id, hints->settled_below), jobs.last_id(), may_hold,
                     [&](JobId id, std::uint32_t nodes, Time requested) {
                       return visit(QueuedJob{id, nodes, requested, 0});
                     });
}

// Starts the jobs of `jobs` in order from the head while they fit; returns the first that does
// not (the new head, or end()), updates free nodes, and appends the started jobs to `running`.
inline QueueView::iterator start_in_order(const SchedulingInput& in, const QueueView& jobs, std::uint32_t& free,
                                          std::vector<RunningJob>& running, PassDecision& out) {
  auto it = jobs.begin();
  for (; it != jobs.end(); ++it) {
    const QueuedJob& job = *it;
    check_fits_machine(job, in);
    if (job.nodes > free) break;
    free -= job.nodes;
    running.push_back({job.id, job.nodes, in.now, end_of(in.now, job.requested)});
    out.start_now.push_back(job.id);
    out.reservations.push_back({job.id, in.now});
  }
  return it;
}

}  // namespace tracewarp::batch::detail
