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
  std::vector<Step> steps;
  steps.reserve(releases.size() + 1);
  steps.push_back({now, free_now});
  for (const Step& r : releases) {
    if (r.from == steps.back().from) {
      steps.back().free += r.free;
    } else {
      steps.push_back({r.from, steps.back().free + r.free});
    }
  }
  assign(steps);
}

void AvailabilityProfile::Chunk::summarise() {
  fewest = most = steps[0].free;
  for (std::uint32_t k = 1; k < count; ++k) {
    fewest = std::min(fewest, steps[k].free);
    most = std::max(most, steps[k].free);
  }
}

void AvailabilityProfile::assign(const std::vector<Step>& steps) {
  // Three quarters full, so that reservations add steps without splitting chunks at once.
  constexpr std::size_t fill = kChunkSteps * 7 / 8;
  chunks_.clear();
  firsts_.clear();
  chunks_.reserve((steps.size() + fill - 1) / fill);
  for (std::size_t i = 0; i < steps.size(); i += fill) {
    Chunk& c = chunks_.emplace_back();
    c.count = static_cast<std::uint32_t>(std::min(fill, steps.size() - i));
    std::copy_n(steps.begin() + static_cast<std::ptrdiff_t>(i), c.count, c.steps.begin());
    c.summarise();
    firsts_.push_back(c.first());
  }
}

std::vector<AvailabilityProfile::Step> AvailabilityProfile::steps() const {
  std::vector<Step> all;
  for (const Chunk& c : chunks_) all.insert(all.end(), c.steps.begin(), c.steps.begin() + c.count);
  return all;
}

AvailabilityProfile::Position AvailabilityProfile::position_of(Time t) const {
  if (t <= firsts_[0]) return {0, 0};  // the profile's start: what a pass asks most
  // Most questions are about the first chunk (a pass asks about now); the rest find theirs in
  // the chunks' first times, kept apart so that the search stays in a few cache lines.
  const auto c =
      firsts_.size() == 1 || t < firsts_[1]
          ? std::size_t{0}
          : static_cast<std::size_t>(std::upper_bound(firsts_.begin() + 2, firsts_.end(), t) - firsts_.begin()) - 1;
  const auto chunk = chunks_.begin() + static_cast<std::ptrdiff_t>(c);
  const auto step = std::upper_bound(chunk->steps.begin() + 1, chunk->steps.begin() + chunk->count, t,
                                     [](Time v, const Step& s) { return v < s.from; }) -
                    1;
  return {static_cast<std::size_t>(chunk - chunks_.begin()), static_cast<std::uint32_t>(step - chunk->steps.begin())};
}

std::uint32_t AvailabilityProfile::free_at(Time t) const {
  if (t < chunks_.front().first()) throw InvariantError("profile queried before its start");
  return at(position_of(t)).free;
}

AvailabilityProfile::Position AvailabilityProfile::split_at(Time t) {
  Position p = position_of(t);
  if (at(p).from == t) return p;
  if (chunks_[p.c].count == kChunkSteps) {  // full: its upper half becomes a chunk of its own
    Chunk upper;
    upper.count = kChunkSteps / 2;
    std::copy_n(chunks_[p.c].steps.begin() + kChunkSteps / 2, upper.count, upper.steps.begin());
    chunks_[p.c].count = kChunkSteps / 2;
    chunks_[p.c].summarise();
    upper.summarise();
    chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(p.c) + 1, upper);
    firsts_.insert(firsts_.begin() + static_cast<std::ptrdiff_t>(p.c) + 1, upper.first());
    p = position_of(t);
  }
  // The new step repeats the free nodes of the one it splits: the chunk's summary stands.
  Chunk& c = chunks_[p.c];
  std::copy_backward(c.steps.begin() + p.k + 1, c.steps.begin() + c.count, c.steps.begin() + c.count + 1);
  c.steps[p.k + 1] = {t, c.steps[p.k].free};
  ++c.count;
  return {p.c, p.k + 1};
}

void AvailabilityProfile::add(Time from, Time until, std::int64_t delta) {
  Position p = split_at(from);
  const std::size_t chunks = chunks_.size();
  if (until != kTimeInfinity) split_at(until);
  // Inserting `until` later in the same chunk leaves p where it is; splitting a chunk may move it.
  if (chunks_.size() != chunks) p = position_of(from);
  const auto report = [&](std::uint32_t free) {
    throw InvariantError("reservation of " + std::to_string(-delta) + " nodes where only " + std::to_string(free) +
                         " are free");
  };
  const auto apply = [&](Step& s) {
    if (delta < 0 && s.free < static_cast<std::uint64_t>(-delta)) report(s.free);
    s.free = static_cast<std::uint32_t>(std::int64_t{s.free} + delta);
  };
  while (p.c < chunks_.size()) {
    Chunk& c = chunks_[p.c];
    if (p.k == 0 && (until == kTimeInfinity || c.last() < until) &&
        (delta > 0 || c.fewest >= static_cast<std::uint64_t>(-delta))) {  // the whole chunk
      for (std::uint32_t k = 0; k < c.count; ++k) apply(c.steps[k]);
      c.fewest = static_cast<std::uint32_t>(std::int64_t{c.fewest} + delta);
      c.most = static_cast<std::uint32_t>(std::int64_t{c.most} + delta);
    } else {
      // Part of the chunk: its bounds are widened, not recomputed (the fewest may only fall and
      // the most only rise: still bounds, which is all a search needs).
      std::uint32_t k = p.k;
      for (; k < c.count && (until == kTimeInfinity || c.steps[k].from < until); ++k) {
        apply(c.steps[k]);
        if (delta < 0)
          c.fewest = std::min(c.fewest, c.steps[k].free);
        else
          c.most = std::max(c.most, c.steps[k].free);
      }
      if (k < c.count) return;  // `until` is in this chunk
    }
    p = {p.c + 1, 0};
  }
}

Time AvailabilityProfile::first_fit(std::uint32_t nodes, Time duration, Time starts_before, Time bonus_from,
                                    Time bonus_until, std::uint32_t bonus, Position from) const {
  // Candidate starts are step boundaries before starts_before, which no bonus reaches
  // (bonus_from >= starts_before); from each, check the window [t, t + duration). A chunk whose
  // steps all have fewer than `nodes` free holds no start; one whose steps all have enough ends
  // no window. Each loop runs over one chunk's steps at a time.
  Position i = from;
  for (;;) {
    for (;;) {  // the next step with enough free nodes
      const Chunk& c = chunks_[i.c];
      if (c.most >= nodes) {
        std::uint32_t k = i.k;
        for (; k < c.count; ++k) {
          if (c.steps[k].from >= starts_before) return kTimeInfinity;
          if (c.steps[k].free >= nodes) break;
        }
        if (k < c.count) {
          i.k = k;
          break;
        }
      } else if (c.steps[i.k].from >= starts_before) {
        return kTimeInfinity;
      }
      if (++i.c == chunks_.size()) return kTimeInfinity;
      i.k = 0;
    }
    const Time start = chunks_[i.c].steps[i.k].from;
    const Time end = detail::end_of(start, duration);
    // The window: the first step after i (before end) with fewer than `nodes` free, if any.
    Position j = i;
    bool fits = true;
    if (!next(j)) return start;
    for (;;) {
      const Chunk& c = chunks_[j.c];
      if (c.steps[j.k].from >= end) break;
      if (c.fewest < nodes) {
        std::uint32_t k = j.k;
        for (; k < c.count && c.steps[k].from < end; ++k) {
          const Step& s = c.steps[k];
          if (s.free + (s.from >= bonus_from && s.from < bonus_until ? bonus : 0u) < nodes) break;
        }
        if (k < c.count && c.steps[k].from < end) {
          j.k = k;
          fits = false;
          break;
        }
        if (k < c.count) break;  // the window ends in this chunk
      }
      if (++j.c == chunks_.size()) break;
      j.k = 0;
    }
    if (fits) return start;
    i = j;  // no start before step j can fit
    if (!next(i)) return kTimeInfinity;
  }
}

Time AvailabilityProfile::earliest_start(std::uint32_t nodes, Time duration) const {
  return first_fit(nodes, duration, kTimeInfinity, 0, 0, 0);
}

Time AvailabilityProfile::earliest_start_from(std::uint32_t nodes, Time duration, Time not_before) const {
  if (not_before == kTimeInfinity) return kTimeInfinity;
  // From the step holding not_before: its boundary is no later, and no earlier step starts a fit.
  const Position from = not_before <= chunks_.front().first() ? Position{0, 0} : position_of(not_before);
  return first_fit(nodes, duration, kTimeInfinity, 0, 0, 0, from);
}

Time AvailabilityProfile::earliest_start_if_released(const Booking& own) const {
  if (own.start == kTimeInfinity) return earliest_start(own.nodes, own.duration);  // it holds nothing
  // Starts before own.start only (own.start itself fits once released), counting own's nodes as
  // free in the steps its window covers; being in the profile, it starts at a step boundary.
  const Time start =
      first_fit(own.nodes, own.duration, own.start, own.start, detail::end_of(own.start, own.duration), own.nodes);
  return start != kTimeInfinity ? start : own.start;
}

bool AvailabilityProfile::fits(Time start, Time duration, std::uint32_t nodes) const {
  if (start == kTimeInfinity) return true;  // beyond the clock a booking holds nothing
  const Time end = detail::end_of(start, duration);
  Position p = position_of(start);
  for (;;) {
    const Chunk& c = chunks_[p.c];
    if (c.steps[p.k].from >= end) return true;
    if (c.fewest >= nodes) {
      if (++p.c == chunks_.size()) return true;
      p.k = 0;
      continue;
    }
    if (c.steps[p.k].free < nodes) return false;
    if (!next(p)) return true;
  }
}

void AvailabilityProfile::reserve(Time start, Time duration, std::uint32_t nodes) {
  if (start == kTimeInfinity) return;  // planned for no time the clock holds: nothing to hold
  add(start, detail::end_of(start, duration), -std::int64_t{nodes});
}

void AvailabilityProfile::release(Time start, Time duration, std::uint32_t nodes) {
  if (start == kTimeInfinity) return;  // reserve held nothing for it
  add(start, detail::end_of(start, duration), std::int64_t{nodes});
}

bool AvailabilityProfile::reserve_all(std::span<const Booking> bookings) {
  struct Change {
    Time at;
    std::int64_t nodes;
  };
  std::vector<Change> changes;
  changes.reserve(2 * bookings.size());
  const std::vector<Step> flat = steps();
  for (const Booking& b : bookings) {
    if (b.start == kTimeInfinity) continue;  // as reserve: nothing to hold
    if (b.start < flat.front().from) throw InvariantError("reservation before the profile's start");
    changes.push_back({b.start, -std::int64_t{b.nodes}});
    if (const Time end = detail::end_of(b.start, b.duration); end != kTimeInfinity)
      changes.push_back({end, std::int64_t{b.nodes}});
  }
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.at < b.at; });
  // Merge the old steps with the change times; each new step's free count is the old step's
  // under it plus every change up to it.
  std::vector<Step> merged;
  merged.reserve(flat.size() + changes.size());
  std::int64_t change_sum = 0;
  std::size_t c = 0;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const Time next_step = i + 1 < flat.size() ? flat[i + 1].from : kTimeInfinity;
    for (Time at = flat[i].from;;) {
      while (c < changes.size() && changes[c].at == at) change_sum += changes[c++].nodes;
      const std::int64_t free = std::int64_t{flat[i].free} + change_sum;
      if (free < 0) return false;
      merged.push_back({at, static_cast<std::uint32_t>(free)});
      if (c == changes.size() || changes[c].at >= next_step) break;
      at = changes[c].at;
    }
  }
  assign(merged);
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
