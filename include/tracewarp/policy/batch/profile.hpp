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
  // free(t) for t >= now: free_now, plus each running job's nodes from its requested end on.
  AvailabilityProfile(Time now, std::uint32_t free_now, std::span<const RunningJob> running);

  std::uint32_t free_at(Time t) const;
  // The earliest t >= now with at least `nodes` free during all of [t, t + duration);
  // kTimeInfinity if never (more nodes than will ever be free).
  Time earliest_start(std::uint32_t nodes, Time duration) const;
  // Whether `nodes` are free during all of [start, start + duration).
  bool fits(Time start, Time duration, std::uint32_t nodes) const;
  // Takes `nodes` away during [start, start + duration); they must be free there.
  void reserve(Time start, Time duration, std::uint32_t nodes);
  // Gives back what reserve() took.
  void release(Time start, Time duration, std::uint32_t nodes);

  struct Step {
    Time from;
    std::uint32_t free;
  };
  const std::vector<Step>& steps() const { return steps_; }

 private:
  std::size_t step_index(Time t) const;  // the step containing t
  std::size_t split_at(Time t);          // makes t a step boundary; returns its index

  std::vector<Step> steps_;  // increasing `from`; the last step lasts forever
};

}  // namespace tracewarp::batch
