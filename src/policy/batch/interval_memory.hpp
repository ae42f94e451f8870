// What an interval-scheduling pass keeps of the one before it, so that it can take over every
// placement that provably did not change instead of searching for it again (internal to
// src/policy/batch/). The answers are the same with or without it.
//
// Why a placement can be kept. The last pass placed its jobs one by one, job j at the earliest
// start, then lowest node, free in plan P_j (its start plan plus the jobs placed before j). This
// pass places the same jobs on plan Q (its own start plan plus what it has placed so far). Let F
// hold every cell of P_j that is not in Q: the cells the last pass's start plan and started jobs
// held that are free now (jobs ended, running jobs' tails fell out of the horizon as time moved
// on), and the old cells of every earlier job that was not placed where it was. A place that
// comes before j's old one (earlier start, or the same start and a lower node) was not free in
// P_j; if it is free in Q, it must cover a cell of F. So j's old place is still its earliest if it
// is free in Q and no run of j's node count free in Q through one of j's earlier windows touches
// a cell of F (checked per group of cells, IntervalPlan::longest_touching; Q only fills up during
// a pass, so a run found once bounds every later check of the same group and window). A job that
// fit nowhere is kept the same way over all its windows. The check is conservative: when it
// fails, the job is searched.
//
// Resuming. When nothing was freed and the pass starts from the very cells the last pass ended its
// own start with (its start plan and the jobs it started), every job keeps its place while the
// queue follows the last pass's order: no earlier place can be free without a freed cell. Jobs the
// last pass started later in the queue are now running, so this pass's plan at job j holds more
// than the last one's did, never less: j's place is still free (it never overlapped theirs) and
// still the earliest. Such a pass takes those places without checking them or writing them into
// its plan, and once it has taken them all, the last pass's final plan is its own.
//
// The memory is checked against the pass's own input at every use (ids, node counts, the plans
// themselves), so one left over from a rolled-back pass, or from any other input, costs searches,
// never an answer.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "interval_plan.hpp"

namespace tracewarp::batch {

// The windows of each walltime (IntervalPlan::windows), which depend only on the pattern (the
// boundaries are relative to the pass time): computed once per walltime, then looked up. Passes
// look a walltime up for most jobs they visit, so the table is open-addressed with a
// multiplicative hash (a std::unordered_map divided by its prime bucket count at every lookup:
// about 2% of a K computer run).
class WindowCache {
 public:
  // Between passes: a trace of ever new walltimes must not grow it without end (4,096 entries,
  // about 3.2 MB; a year of the K computer mix has 1,435 distinct walltimes, RICC 154).
  void trim() {
    if (entries_.size() > 4096) {
      entries_.clear();
      slots_.assign(slots_.size(), Slot{});
    }
  }
  struct Windows {
    std::array<std::uint64_t, 64> masks;
    std::size_t starts;
    // The intervals of the windows of starts 0..s together (what a table search reading those
    // starts reads per node: PassDecision::plan_cells).
    std::array<std::uint32_t, 64> intervals_upto;
    std::uint32_t intervals_through(std::size_t last) const {
      return starts == 0 ? 0 : intervals_upto[std::min(last, starts - 1)];
    }
  };
  const Windows& of(const IntervalPlan& plan, Time duration) {
    if (slots_.empty()) slots_.resize(64);
    std::size_t i = home(duration);
    for (; slots_[i].windows != nullptr; i = (i + 1) & (slots_.size() - 1))
      if (slots_[i].duration == duration) return *slots_[i].windows;
    Windows& w = entries_.emplace_back();  // a deque: references handed out stay valid
    w.starts = plan.windows(duration, w.masks);
    for (std::uint32_t s = 0, sum = 0; s < w.starts; ++s)  // a window is a run of bits
      w.intervals_upto[s] = sum += static_cast<std::uint32_t>(std::bit_width(w.masks[s]) - s);
    slots_[i] = {duration, &w};
    if (2 * entries_.size() > slots_.size()) grow();
    return w;
  }

 private:
  struct Slot {
    Time duration = 0;
    const Windows* windows = nullptr;  // in entries_; none: the slot is empty
  };
  std::size_t home(Time duration) const {
    const std::uint64_t mixed = static_cast<std::uint64_t>(duration) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(mixed >> (64 - std::countr_zero(slots_.size())));
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& slot : old) {
      if (slot.windows == nullptr) continue;
      std::size_t i = home(slot.duration);
      while (slots_[i].windows != nullptr) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = slot;
    }
  }
  std::deque<Windows> entries_;
  std::vector<Slot> slots_;  // a power of two, at most half full
};

// A job's windows, looked up at the first use: a job whose place is kept rarely needs them.
class JobWindows {
 public:
  JobWindows(WindowCache& cache, const IntervalPlan& plan, Time duration)
      : cache_(cache), plan_(plan), duration_(duration) {}
  const std::array<std::uint64_t, 64>& masks() { return get().masks; }
  std::size_t starts() { return get().starts; }
  const WindowCache::Windows& get() {
    if (windows_ == nullptr) windows_ = &cache_.of(plan_, duration_);
    return *windows_;
  }

 private:
  WindowCache& cache_;
  const IntervalPlan& plan_;
  Time duration_;
  const WindowCache::Windows* windows_ = nullptr;
};

class IntervalPassMemory {
 public:
  // A pass starts: `start` holds the running jobs. Learns what was freed since the last pass;
  // with `keep` false, the pass keeps nothing (only the windows are looked up).
  void begin(const IntervalPlan& start, bool keep);
  // The place `job` had in the last pass if it is still its earliest in `plan` (intervals() as
  // the interval if it still fits nowhere); nullopt if it must be searched. Call once per job
  // the pass does not skip, in queue order, then searched() if the answer was nullopt.
  struct Kept {
    IntervalPlan::Placement place;
    std::uint64_t plan_cells;  // what the pass counted for the job (PassDecision::plan_cells)
  };
  std::optional<Kept> kept(const QueuedJob& job, const IntervalPlan& plan, JobWindows& windows);
  // Resuming (above): whether this pass may; then, job by job in queue order, the place the
  // last pass gave `job` if it is the next one it placed (nullopt ends the resumption, and the
  // pass goes on with kept()); at the end, whether every place was taken over, so that the last
  // pass's final plan (final_plan()) is the pass's own.
  bool resumable() const { return resumable_; }
  std::optional<Kept> resumed(const QueuedJob& job);
  bool resumed_all();
  const IntervalPlan& final_plan() const { return *final_; }
  // The search's answer for the job kept() could not answer.
  void searched(const IntervalPlan::Placement& p);
  // What the pass did with a job it did not skip. A skipped job (a larger or longer job already
  // fit nowhere) is not recorded: the next pass searches it as if it were new.
  void placed(const QueuedJob& job, const IntervalPlan::Placement& p, std::uint64_t plan_cells);
  // The pass ends with `final` (its start plan and every place it gave); the jobs it starts now
  // join the plan the next pass compares its own with.
  void end(const IntervalPlan& final);

  WindowCache windows;

 private:
  struct Record {
    JobId id;
    std::uint32_t nodes;
    Time requested;
    IntervalPlan::Placement place;  // place.interval == intervals(): fit nowhere
    std::uint64_t plan_cells;
  };
  // The first record from `from` on whose id is not below `id` (last_ is in id order).
  std::vector<Record>::const_iterator record_from(std::vector<Record>::const_iterator from, JobId id) const;
  void pass_started();           // moves next_ past the records of jobs the last pass started
  void forget(const Record& r);  // `r`'s old cells are not (known to be) in this pass's plan
  void add_freed(const IntervalPlan::Cells& cells);
  // Whether a run of `count` nodes free throughout `window` in `plan` may touch freed_[f].
  bool may_touch(std::size_t f, std::uint32_t count, std::uint64_t window, const IntervalPlan& plan);

  std::optional<IntervalPlan> base_;   // the last pass's start plan with its started jobs
  std::optional<IntervalPlan> final_;  // the last pass's plan at its end
  bool resumable_ = false;
  std::vector<Record> last_;       // the last pass's jobs, in its order
  bool last_by_id_ = false;        // whether last_ is in id order (the only order kept() reads)
  std::size_t next_ = 0;           // first record of last_ not yet matched
  std::optional<Record> pending_;  // the record kept() could not confirm

  std::optional<IntervalPlan> start_;  // this pass's start plan
  std::vector<Record> now_;            // this pass's jobs
  // F above, in groups of cells. For each group, once looked at: per interval a bound on the
  // longest free run touching it (IntervalPlan::touching_bounds; Q only fills up, so a bound
  // stays one), kept as a table of minima over 2^j intervals so a window's bound is two reads.
  struct Freed {
    IntervalPlan::Cells cells;
    bool bounded = false;
    std::uint32_t most = 0;                                // the largest bound over the group's own intervals
    std::array<std::array<std::uint32_t, 64>, 7> least{};  // [j][i]: least bound over i..i+2^j-1
  };
  std::vector<Freed> freed_;
  std::vector<IntervalPlan::Cells> freed_cells_;  // scratch of begin()
  std::size_t freed_count_ = 0;                   // freed_[0..count) are this pass's (the rest is kept storage)
  // [group][first interval][last interval]: the longest run touching the group found so far
  // (a bound for the rest of the pass), or the largest uint32 if not looked at.
  std::vector<std::uint32_t> touching_;
  std::size_t intervals_ = 0;
  bool keeping_ = false;   // begin()'s `keep`
  bool given_up_ = false;  // F grew too large to be worth checking
};

}  // namespace tracewarp::batch
