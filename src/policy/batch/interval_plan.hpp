// The plan of one interval-scheduling pass and its search (internal to src/policy/batch/; the
// rule it serves is include/tracewarp/policy/batch/interval.hpp).
//
// The plan is a line of node segments, each with a bit mask of the intervals in which it is
// used (at most 64 intervals), so checking a window of intervals on a segment is one AND; the
// search for free runs along the line looks at sixteen segments at once where the CPU has
// AVX-512, eight with AVX2 (free_runs.hpp). The search over start intervals is spread over TBB
// threads when the plan is large, and its result — the earliest fitting interval, lowest range —
// does not depend on the thread count.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tracewarp/policy/batch/interval.hpp"

namespace tracewarp::batch {

namespace detail {
struct FreeRunKernel;  // src/policy/batch/free_runs.hpp
}

// The used-space plan of one pass: nodes 0..N-1 times the pattern's intervals.
class IntervalPlan {
 public:
  // `kernel`: the free-run search (batch.free_runs; "auto" = the fastest this CPU runs).
  IntervalPlan(std::uint32_t nodes, Time now, const IntervalPattern& pattern, std::string_view kernel = "auto");

  std::uint32_t nodes() const { return nodes_; }
  std::size_t intervals() const { return begins_.size() - 1; }
  Time begin(std::size_t interval) const { return begins_[interval]; }
  // The intervals a job starting at `first_interval` for `duration` needs, as a bit mask; 0 if
  // the horizon ends before the duration is covered.
  std::uint64_t window(std::size_t first_interval, Time duration) const;
  // The windows of every start from the first on, in one sweep: masks[s] = window(s, duration)
  // for s below the returned count (the first start whose window leaves the horizon).
  std::size_t windows(Time duration, std::array<std::uint64_t, 64>& masks) const;
  // Marks nodes [first, first + count) used in the intervals of `mask`.
  void occupy(std::uint32_t first, std::uint32_t count, std::uint64_t mask);
  // Running jobs: each used from the first interval up to its requested end. On a fresh plan
  // they are written in one sweep.
  void occupy_running(std::span<const RunningJob> jobs);
  // The lowest first node of `count` contiguous nodes free in every interval of `mask`, or -1;
  // the caller may know that none starts below `from`. On failure, `longest` (if given) is the
  // longest free run from `from` on.
  std::int64_t lowest_free_range(std::uint32_t count, std::uint64_t mask, std::uint32_t from = 0,
                                 std::uint32_t* longest = nullptr) const;
  // Whether nodes [first, first + count) are free in every interval of `mask`.
  bool is_free(std::uint32_t first, std::uint32_t count, std::uint64_t mask) const;
  // The longest run of nodes free throughout `mask` that overlaps nodes [first, last); 0 if none.
  std::uint32_t longest_touching(std::uint32_t first, std::uint32_t last, std::uint64_t mask) const;
  // For every interval at once, a bound on the longest run free in it that overlaps nodes
  // [first, last): 0 where those nodes are all used, else the free nodes next to them on both
  // sides (looked for over a few segments, then assumed) plus their own count. A run free
  // throughout a window is no longer than the least bound over the window's intervals.
  void touching_bounds(std::uint32_t first, std::uint32_t last, std::array<std::uint32_t, 64>& bounds) const;

  // Nodes [first, first + count) in the intervals of `mask`.
  struct Cells {
    std::uint32_t first;
    std::uint32_t count;
    std::uint64_t mask;
    bool operator==(const Cells&) const = default;
  };
  // The cells used in `earlier` (a plan of the same nodes and intervals) and free in this one,
  // appended to `out` lowest node first, neighbours with the same mask merged.
  void freed_since(const IntervalPlan& earlier, std::vector<Cells>& out) const;
  // Whether `other` (a plan of the same nodes and intervals) uses exactly the same cells.
  bool same_cells(const IntervalPlan& other) const;
  // Takes the cells of `other` (a plan of the same nodes and intervals), keeping this plan's
  // interval times.
  void take_cells(const IntervalPlan& other);

  struct Placement {
    std::size_t interval;  // first interval; intervals() if none inside the horizon
    std::uint32_t first_node;
    std::uint64_t mask;
  };
  // What one pass has learnt about windows, given that the plan only fills up during a pass:
  //   * misfits: if `count` contiguous nodes are not free throughout intervals s..e, neither are
  //     more nodes throughout s'..e' for any s' <= s and e' >= e, so earliest() skips such
  //     starts unseen (a scan that fails knows the longest free run, which rules out every
  //     larger count);
  //   * fits: if the lowest range of `count` nodes free throughout s..e started at node x, no
  //     range of at least as many nodes starts below x later, so the scan begins there.
  // The answers are the same with or without it.
  class SearchMemo {
   public:
    explicit SearchMemo(std::size_t intervals);
    bool known_misfit(std::size_t first, std::size_t last, std::uint32_t count) const {
      return smallest_[first * k_ + last] <= count;
    }
    void misfit(std::size_t first, std::size_t last, std::uint32_t count);
    // The lowest node a range of `count` nodes free throughout first..last may start at.
    std::uint32_t lowest_possible(std::size_t first, std::size_t last, std::uint32_t count) const {
      const Fit& f = fits_[first * k_ + last];
      return f.count <= count ? f.node : 0;
    }
    // The node count of the fit lowest_possible() comes from.
    std::uint32_t lowest_possible_count(std::size_t first, std::size_t last) const {
      return fits_[first * k_ + last].count;
    }
    void fit(std::size_t first, std::size_t last, std::uint32_t count, std::uint32_t node) {
      fits_[first * k_ + last] = {count, node};
    }

   private:
    struct Fit {
      std::uint32_t count = std::numeric_limits<std::uint32_t>::max();
      std::uint32_t node = 0;
    };
    std::size_t k_;
    std::vector<std::uint32_t> smallest_;  // [first][last]: the fewest nodes known not to fit
    std::vector<Fit> fits_;                // [first][last]: the latest fit found
  };
  // The earliest start interval, then lowest range, for `count` nodes during `duration`.
  Placement earliest(std::uint32_t count, Time duration, SearchMemo* memo = nullptr) const;
  // The same, given the windows of the duration (windows(): masks and their count).
  Placement earliest(std::uint32_t count, const std::array<std::uint64_t, 64>& masks, std::size_t starts,
                     SearchMemo* memo = nullptr) const;

  // Used-interval mask of every node, for tests: node -> mask.
  std::uint64_t mask_of(std::uint32_t node) const;
  // Nodes free during `interval` (not necessarily contiguous).
  std::uint32_t free_in(std::size_t interval) const { return free_[interval]; }

 private:
  struct Segment {
    std::uint32_t first;  // first node; the segment lasts until the next one's first
    std::uint64_t used;   // bit k: used during interval k
  };
  std::size_t segment_at(std::uint32_t node) const;  // the segment holding `node`
  std::uint32_t end_of(std::size_t segment) const;
  // Segments at..at + replaced - 1 become `line`.
  void replace_segments(std::size_t at, std::size_t replaced, std::span<const Segment> line);

  // Whether every interval of `mask` has at least `count` nodes free in all (not necessarily
  // contiguous): a check in O(intervals) that rules a start out before any segment is scanned.
  bool enough_free(std::uint32_t count, std::uint64_t mask) const;

  std::uint32_t nodes_;
  const detail::FreeRunKernel* kernel_;  // the search and locate kernels chosen for this CPU
  std::vector<Time> begins_;             // start time of each interval, then the horizon's end
  // The segments, as two arrays (a search reads `used_` alone until a run ends, eight or
  // sixteen segments at a time).
  std::vector<std::uint32_t> firsts_;  // first node of each segment, ascending from 0
  std::vector<std::uint64_t> used_;    // bit k: the segment is used during interval k
  std::vector<std::uint32_t> free_;    // nodes free in each interval
  std::vector<Segment> scratch_;       // occupy()'s working line
};

}  // namespace tracewarp::batch
