#include "tracewarp/policy/batch/profile.hpp"

#include <algorithm>

#include "pass_steps.hpp"
#include "tracewarp/core/error.hpp"

namespace tracewarp::batch {

AvailabilityProfile::AvailabilityProfile(Time now, std::uint32_t free_now, std::span<const RunningJob> running) {
  // Releases in time order; jobs already past their requested end count as free now.
  std::vector<Step> releases;
  releases.reserve(running.size());
  // A job whose requested end is beyond the clock (kTimeInfinity, saturated) never frees its
  // nodes in the plan: a step "at infinity" would make the end of time a start like any other.
  for (const RunningJob& r : running)
    if (r.requested_end != kTimeInfinity) releases.push_back({std::max(now, r.requested_end), r.nodes});
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

template <class FreeAt>
std::size_t AvailabilityProfile::first_fit(std::uint32_t nodes, Time duration, std::size_t starts_below,
                                           FreeAt free_at_step) const {
  // Candidate starts are step boundaries; from each, check the window [t, t + duration).
  for (std::size_t i = 0; i < starts_below; ++i) {
    if (free_at_step(i) < nodes) continue;
    const Time end = detail::end_of(steps_[i].from, duration);
    bool fits = true;
    for (std::size_t j = i + 1; j < steps_.size() && steps_[j].from < end; ++j) {
      if (free_at_step(j) < nodes) {
        fits = false;
        i = j;  // no start before step j can fit; the loop's ++i moves past it
        break;
      }
    }
    if (fits) return i;
  }
  return starts_below;
}

Time AvailabilityProfile::earliest_start(std::uint32_t nodes, Time duration) const {
  const std::size_t i = first_fit(nodes, duration, steps_.size(), [&](std::size_t j) { return steps_[j].free; });
  return i < steps_.size() ? steps_[i].from : kTimeInfinity;
}

Time AvailabilityProfile::earliest_start_if_released(const Booking& own) const {
  if (own.start == kTimeInfinity) return earliest_start(own.nodes, own.duration);  // it holds nothing
  // Starts before own.start only (own.start itself fits once released), counting own's nodes as
  // free in the steps its window covers.
  const std::size_t own_first = step_index(own.start);
  const Time own_end = detail::end_of(own.start, own.duration);
  const std::size_t i = first_fit(own.nodes, own.duration, own_first, [&](std::size_t j) {
    return steps_[j].free + (j >= own_first && steps_[j].from < own_end ? own.nodes : 0);
  });
  return i < own_first ? steps_[i].from : own.start;
}

bool AvailabilityProfile::fits(Time start, Time duration, std::uint32_t nodes) const {
  if (start == kTimeInfinity) return true;  // beyond the clock a booking holds nothing
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
  if (start == kTimeInfinity) return;  // planned for no time the clock holds: nothing to hold
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
  if (start == kTimeInfinity) return;  // reserve held nothing for it
  const Time end = detail::end_of(start, duration);
  const std::size_t first = split_at(start);
  const std::size_t last = end == kTimeInfinity ? steps_.size() : split_at(end);
  for (std::size_t i = first; i < last; ++i) steps_[i].free += nodes;
}

bool AvailabilityProfile::reserve_all(std::span<const Booking> bookings) {
  struct Change {
    Time at;
    std::int64_t nodes;
  };
  std::vector<Change> changes;
  changes.reserve(2 * bookings.size());
  for (const Booking& b : bookings) {
    if (b.start == kTimeInfinity) continue;  // as reserve: nothing to hold
    if (b.start < steps_.front().from) throw InvariantError("reservation before the profile's start");
    changes.push_back({b.start, -std::int64_t{b.nodes}});
    if (const Time end = detail::end_of(b.start, b.duration); end != kTimeInfinity)
      changes.push_back({end, std::int64_t{b.nodes}});
  }
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.at < b.at; });
  // Merge the old steps with the change times; each new step's free count is the old step's
  // under it plus every change up to it.
  std::vector<Step> merged;
  merged.reserve(steps_.size() + changes.size());
  std::int64_t change_sum = 0;
  std::size_t c = 0;
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const Time next_step = i + 1 < steps_.size() ? steps_[i + 1].from : kTimeInfinity;
    for (Time at = steps_[i].from;;) {
      while (c < changes.size() && changes[c].at == at) change_sum += changes[c++].nodes;
      const std::int64_t free = std::int64_t{steps_[i].free} + change_sum;
      if (free < 0) return false;
      merged.push_back({at, static_cast<std::uint32_t>(free)});
      if (c == changes.size() || changes[c].at >= next_step) break;
      at = changes[c].at;
    }
  }
  steps_ = std::move(merged);
  return true;
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
