// Free nodes over future time, as a step function: the planning tool of the backfill policies
// when any free nodes will do (no placement). It starts from the running jobs' requested ends
// and takes reservations away from it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {

class AvailabilityProfile {
 public:
  struct Booking {  // `nodes` nodes taken during [start, start + duration)
    Time start, duration;
    std::uint32_t nodes;
  };

  // free(t) for t >= now: free_now, plus each running job's nodes from its requested end on.
  AvailabilityProfile(Time now, std::uint32_t free_now, std::span<const RunningJob> running);

  std::uint32_t free_at(Time t) const;
  // The earliest t >= now with at least `nodes` free during all of [t, t + duration);
  // kTimeInfinity if never (more nodes than will ever be free).
  Time earliest_start(std::uint32_t nodes, Time duration) const;
  // What earliest_start() would answer after release() of `own` (a reservation in the profile),
  // without releasing it: own.start when nothing earlier fits, as is usual when compressing.
  Time earliest_start_if_released(const Booking& own) const;
  // Whether `nodes` are free during all of [start, start + duration).
  bool fits(Time start, Time duration, std::uint32_t nodes) const;
  // Takes `nodes` away during [start, start + duration); they must be free there.
  void reserve(Time start, Time duration, std::uint32_t nodes);
  // Gives back what reserve() took.
  void release(Time start, Time duration, std::uint32_t nodes);

  // reserve() of every booking, in one sweep, when all of them fit together: the profile is then
  // the one reserve() in any order would leave (the same step boundaries and free counts), and
  // in any order each would have fitted (when placed, a booking meets at least the free nodes
  // of the final profile plus its own). Returns false, leaving the profile unchanged, otherwise.
  bool reserve_all(std::span<const Booking> bookings);

  struct Step {
    Time from;
    std::uint32_t free;
  };
  const std::vector<Step>& steps() const { return steps_; }

 private:
  // The first step below `starts_below` from which `nodes` are free for `duration`, counting
  // free_at_step(j) nodes free in step j; starts_below if none.
  template <class FreeAt>
  std::size_t first_fit(std::uint32_t nodes, Time duration, std::size_t starts_below, FreeAt free_at_step) const;
  std::size_t step_index(Time t) const;  // the step containing t
  std::size_t split_at(Time t);          // makes t a step boundary; returns its index

  std::vector<Step> steps_;  // increasing `from`; the last step lasts forever
};

// Where a head job of `nodes` nodes can start when only running jobs shape the future (no
// reservations): free nodes then never fall, so its earliest start is the first requested end at
// which enough are free, whatever its walltime. `start` and `free` (the nodes free from then on)
// equal AvailabilityProfile(now, free_now, running + started).earliest_start(nodes, any) and its
// free_at(start), without building the profile: EASY asks this on every pass. `running` is sorted
// here by requested end unless `in_end_order` says it already is, as models pass it; `started`
// are the jobs this pass has just started.
struct Shadow {
  Time start;
  std::uint32_t free;
};
Shadow shadow_of(Time now, std::uint32_t free_now, std::span<const RunningJob> running,
                 std::span<const RunningJob> started, std::uint32_t nodes, bool in_end_order = false);

}  // namespace tracewarp::batch
