// Free nodes over future time, as a step function: the planning tool of the backfill policies
// when any free nodes will do (no placement). It starts from the running jobs' requested ends
// and takes reservations away from it.
//
// The steps are kept in order in chunks of at most kChunkSteps, each knowing a lower bound on the
// fewest and an upper bound on the most nodes free in any of its steps: a search for a job's earliest fit passes a
// whole chunk where no step has enough free nodes (no start there) or every step has (no window ends there), instead of
// visiting its steps one by one. On a whole-log replay with reservations for many jobs, those step-by-step searches
// were four fifths of the run (docs/performance.md, "batch"). Every answer is the one a plain vector of steps gives
// (tests/policy/test_batch_policies.cpp checks them against one).
#pragma once

#include <array>
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
  struct Step {
    Time from;
    std::uint32_t free;
  };

  // free(t) for t >= now: free_now, plus each running job's nodes from its requested end on.
  AvailabilityProfile(Time now, std::uint32_t free_now, std::span<const RunningJob> running);

  std::uint32_t free_at(Time t) const;
  std::uint32_t free_now() const { return chunks_.front().steps[0].free; }  // at the profile's start
  // The earliest t >= now with at least `nodes` free during all of [t, t + duration);
  // kTimeInfinity if never (more nodes than will ever be free).
  Time earliest_start(std::uint32_t nodes, Time duration) const;
  // The same, searched from `not_before` on: exact when no start before it can fit, as when the
  // profile has only lost nodes since `not_before` was the earliest start of a job of the same
  // size and length.
  Time earliest_start_from(std::uint32_t nodes, Time duration, Time not_before) const;
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

  // Every step in time order (a copy: for tests and inspection).
  std::vector<Step> steps() const;

 private:
  static constexpr std::uint32_t kChunkSteps = 32;
  struct Chunk {
    std::uint32_t count = 0;
    std::uint32_t fewest = 0, most = 0;  // bounds on its steps' free nodes (exact when summarised)
    std::array<Step, kChunkSteps> steps;
    Time first() const { return steps[0].from; }
    Time last() const { return steps[count - 1].from; }
    void summarise();
  };
  struct Position {  // a step: chunk c, its k-th
    std::size_t c;
    std::uint32_t k;
  };

  void assign(const std::vector<Step>& steps);  // chunks from steps in order, room left in each
  Position position_of(Time t) const;           // the step containing t
  Position split_at(Time t);                    // makes t a step boundary; returns its step
  bool next(Position& p) const {                // moves on one step; false past the last
    if (++p.k < chunks_[p.c].count) return true;
    p.k = 0;
    return ++p.c < chunks_.size();
  }
  const Step& at(Position p) const { return chunks_[p.c].steps[p.k]; }
  // Adds `delta` to the free nodes of every step from `from` up to (not including) `until`
  // (kTimeInfinity: to the end); a reservation (delta < 0) must find them free.
  void add(Time from, Time until, std::int64_t delta);
  // The first step starting before `starts_before` from which `nodes` are free for `duration`,
  // counting `bonus` more nodes free in the steps of [bonus_from, bonus_until); its `from`, or
  // kTimeInfinity if none.
  Time first_fit(std::uint32_t nodes, Time duration, Time starts_before, Time bonus_from, Time bonus_until,
                 std::uint32_t bonus, Position from = {0, 0}) const;

  std::vector<Chunk> chunks_;  // never empty; the last step lasts forever
  std::vector<Time> firsts_;   // each chunk's first step's time (a chunk's first step never changes)
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
