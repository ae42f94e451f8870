// Interval (time-bucketed) scheduling, the K computer study (docs/studies.md#batch). At a pass at time t the
// horizon [t, t + H) is cut into schedule intervals by a pattern, and time is handled only in
// whole intervals:
//   * a running job holds its nodes in every interval that begins before its requested end (and
//     always in the first one: it is running now);
//   * each queued job, in queue (FCFS) order, gets the earliest run of consecutive intervals,
//     starting at an interval boundary, whose total length covers its requested walltime and in
//     which one contiguous range of its node count is free in every interval — the range that
//     starts lowest; that space is marked used;
//   * a job planned into the first interval starts now, on the planned range; a job that fits
//     nowhere inside the horizon gets no reservation this pass and stays queued, while later jobs
//     may still be placed (the study's "FCFS + backfill").
// Plans are rebuilt every pass. Nodes are a 1-D line: the model must use contiguous allocation.
//
// How a pass finds places fast is beside this rule, not in it: the plan and its search
// (src/policy/batch/interval_plan.hpp, free_runs.hpp), and the shortcuts that give the same
// places with less work (src/policy/batch/interval.cpp: PassShortcuts; interval_memory.hpp: the
// last pass's places that provably did not change).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tracewarp/core/memo.hpp"
#include "tracewarp/core/persist.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {

// Consecutive interval lengths from the pass time on; their sum is the horizon.
struct IntervalPattern {
  std::string name;
  std::vector<Time> lengths;
  Time horizon() const;
  bool operator==(const IntervalPattern&) const = default;
};

// "A", "B", "C" (the study's patterns over a 60 h horizon) or a list of "length:up_to" pairs
// with units s, m, h — pattern A is "10m:1h,30m:12h,2h:24h,4h:36h,8h:60h". Each up_to must lie
// a whole number of lengths after the previous one; at most 64 intervals. ConfigError otherwise.
IntervalPattern parse_interval_pattern(const std::string& spec);

class IntervalPassMemory;

class IntervalPolicy {
 public:
  bool reads_wrsa() const { return false; }
  // keep_places: a pass keeps the last pass's placements that provably did not change (the same
  // decisions, less work); from_scratch: every pass searches every job, as a scheduler without
  // that memory would (for its pass wall times).
  enum class Passes : std::uint8_t { keep_places, from_scratch };
  // `kernel` names the free-run search (batch.free_runs); ConfigError if this CPU does not run it.
  explicit IntervalPolicy(IntervalPattern pattern, Passes passes = Passes::keep_places, std::string kernel = "auto");
  // A job longer than the horizon never fits in it.
  Time longest_plannable() const { return pattern_.horizon(); }
  PassDecision pass(const SchedulingInput& in);
  const IntervalPattern& pattern() const { return pattern_; }
  bool operator==(const IntervalPolicy&) const = default;
  TRACEWARP_PERSIST()  // the pattern is configuration; each pass builds its own plan

 private:
  IntervalPattern pattern_;
  Passes passes_;
  std::string kernel_;  // configuration, like the pattern
  // What the last pass placed, kept where provably unchanged (src/policy/batch/interval_memory.hpp):
  // a memo (core/memo.hpp), not state. Its rule: checked against each pass's own input at every
  // use, so one left by a rolled-back pass or any other input costs searches, never an answer.
  Memo<IntervalPassMemory> memory_;
};

}  // namespace tracewarp::batch
