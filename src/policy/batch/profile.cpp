#include "tracewarp/policy/batch/profile.hpp"

#include <algorithm>

#include "pass_steps.hpp"
#include "tracewarp/core/error.hpp"

namespace tracewarp::batch {

AvailabilityProfile::AvailabilityProfile(Time now, std::uint32_t free_now, std::span<const RunningJob> running) {
  // Releases in time order; jobs already past their requested end count as free now.
  std::vector<Step> releases;
  releases.reserve(running.size());
  for (const RunningJob& r : running) releases.push_back({std::max(now, r.requested_end), r.nodes});
  const auto earlier = [](const Step& a, const Step& b) { return a.from < b.from; };
  if (!std::is_sorted(releases.begin(), releases.end(), earlier))  // models may pass them sorted
    std::sort(releases.begin(), releases.end(), earlier);
  steps_.reserve(releases.size() + 1);
  steps_.push_back({now, free_now});
  for (const Step& r : releases) {
    if (r.from == steps_.back().from) {
      steps_.back().free += r.free;
    } else {
      steps_.push_back({r.from, steps_.back().free + r.free});
    }
  }
}

std::size_t AvailabilityProfile::step_index(Time t) const {
  const auto it = std::upper_bound(steps_.begin(), steps_.end(), t, [](Time v, const Step& s) { return v < s.from; });
  return static_cast<std::size_t>(it - steps_.begin()) - 1;
}

std::uint32_t AvailabilityProfile::free_at(Time t) const {
  if (t < steps_.front().from) throw InvariantError("profile queried before its start");
  return steps_[step_index(t)].free;
}

Time AvailabilityProfile::earliest_start(std::uint32_t nodes, Time duration) const {
  // Candidate starts are step boundaries; from each, check the window [t, t + duration).
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i].free < nodes) continue;
    const Time start = steps_[i].from;
    const Time end = detail::end_of(start, duration);
    bool fits = true;
    for (std::size_t j = i + 1; j < steps_.size() && steps_[j].from < end; ++j) {
      if (steps_[j].free < nodes) {
        fits = false;
        i = j;  // no start before step j can fit; the loop's ++i moves past it
        break;
      }
    }
    if (fits) return start;
  }
  return kTimeInfinity;
}

bool AvailabilityProfile::fits(Time start, Time duration, std::uint32_t nodes) const {
  const Time end = detail::end_of(start, duration);
  for (std::size_t i = step_index(start); i < steps_.size() && steps_[i].from < end; ++i)
    if (steps_[i].free < nodes) return false;
  return true;
}

std::size_t AvailabilityProfile::split_at(Time t) {
  const std::size_t i = step_index(t);
  if (steps_[i].from == t) return i;
  steps_.insert(steps_.begin() + static_cast<std::ptrdiff_t>(i) + 1, Step{t, steps_[i].free});
  return i + 1;
}

void AvailabilityProfile::reserve(Time start, Time duration, std::uint32_t nodes) {
  const Time end = detail::end_of(start, duration);
  const std::size_t first = split_at(start);
  const std::size_t last = end == kTimeInfinity ? steps_.size() : split_at(end);
  for (std::size_t i = first; i < last; ++i) {
    if (steps_[i].free < nodes)
      throw InvariantError("reservation of " + std::to_string(nodes) + " nodes where only " +
                           std::to_string(steps_[i].free) + " are free");
    steps_[i].free -= nodes;
  }
}

void AvailabilityProfile::release(Time start, Time duration, std::uint32_t nodes) {
  const Time end = detail::end_of(start, duration);
  const std::size_t first = split_at(start);
  const std::size_t last = end == kTimeInfinity ? steps_.size() : split_at(end);
  for (std::size_t i = first; i < last; ++i) steps_[i].free += nodes;
}

Shadow shadow_of(Time now, std::uint32_t free_now, std::span<const RunningJob> running,
                 std::span<const RunningJob> started, std::uint32_t nodes, bool in_end_order) {
  const auto by_end = [](const RunningJob& a, const RunningJob& b) { return a.requested_end < b.requested_end; };
  std::vector<RunningJob> sorted_running;
  if (!in_end_order && !std::is_sorted(running.begin(), running.end(), by_end)) {
    sorted_running.assign(running.begin(), running.end());
    std::sort(sorted_running.begin(), sorted_running.end(), by_end);
    running = sorted_running;
  }
  std::vector<RunningJob> sorted_started(started.begin(), started.end());
  std::sort(sorted_started.begin(), sorted_started.end(), by_end);
  // The two lists' releases merged in time order; a job past its requested end frees now.
  std::size_t a = 0, b = 0;
  const auto from_running = [&] {
    return b == sorted_started.size() ||
           (a < running.size() && running[a].requested_end <= sorted_started[b].requested_end);
  };
  std::uint32_t free = free_now;
  Time at = now;
  while (a < running.size() || b < sorted_started.size()) {
    const RunningJob& r = from_running() ? running[a++] : sorted_started[b++];
    const Time t = std::max(now, r.requested_end);
    if (t > at && free >= nodes) return {at, free};  // enough before this release
    at = t;
    free += r.nodes;
  }
  return {free >= nodes ? at : kTimeInfinity, free};
}

}  // namespace tracewarp::batch
