// Interval scheduling (the K computer study) on hand-made situations; every expected value is
// worked out in the comments. Times in the comments are hours and minutes after the pass.
#include <catch2/catch.hpp>

#include "../support/random_jobs.hpp"
#include "policy/batch/free_runs.hpp"
#include "policy/batch/interval_plan.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/policy/batch/interval.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {
constexpr Time kMin = 60 * kTicksPerSecond;
constexpr Time kHour = 60 * kMin;

QueuedJob job(JobId id, std::uint32_t nodes, Time requested) { return {id, nodes, requested, 0}; }
RunningJob running(JobId id, std::uint32_t first, std::uint32_t nodes, Time requested_end) {
  return {id, nodes, 0, requested_end, first};
}
PassDecision run_pass(IntervalPolicy& p, std::uint32_t total, const std::vector<RunningJob>& run,
                      const std::vector<QueuedJob>& queue, std::size_t depth = 0) {
  std::uint32_t used = 0;
  for (const RunningJob& r : run) used += r.nodes;
  return p.pass({0, queue, run, total, total - used, depth});
}
Time reservation_of(const PassDecision& d, JobId id) {
  for (const Reservation& r : d.reservations)
    if (r.id == id) return r.start;
  return -1;
}
}  // namespace

TEST_CASE("interval patterns: the study's A, B, C and user-given lists", "[unit][policy][interval]") {
  const IntervalPattern a = parse_interval_pattern("A");
  REQUIRE(a.lengths.size() == 40);  // 6 x 10 min, 22 x 30 min, 6 x 2 h, 3 x 4 h, 3 x 8 h
  REQUIRE(a.horizon() == 60 * kHour);
  REQUIRE(a.lengths[5] == 10 * kMin);
  REQUIRE(a.lengths[6] == 30 * kMin);
  REQUIRE(a.lengths[27] == 30 * kMin);
  REQUIRE(a.lengths[28] == 2 * kHour);
  REQUIRE(a.lengths[39] == 8 * kHour);
  REQUIRE(parse_interval_pattern("B").lengths == std::vector<Time>(60, kHour));
  REQUIRE(parse_interval_pattern("C").lengths == std::vector<Time>{60 * kHour});
  REQUIRE(parse_interval_pattern("30m:1h,1h:3h").lengths == std::vector<Time>{30 * kMin, 30 * kMin, kHour, kHour});
  REQUIRE(parse_interval_pattern("90:180s").lengths == std::vector<Time>{90 * kTicksPerSecond, 90 * kTicksPerSecond});
  REQUIRE_THROWS_WITH(parse_interval_pattern("10m:25m"), Catch::Contains("whole number of lengths"));
  REQUIRE_THROWS_WITH(parse_interval_pattern("1m:2h"), Catch::Contains("more than 64 intervals"));
  REQUIRE_THROWS_WITH(parse_interval_pattern("D"), Catch::Contains("length:up_to"));
  REQUIRE_THROWS_WITH(parse_interval_pattern("10x:1h"), Catch::Contains("not a duration"));
  REQUIRE_THROWS_WITH(parse_interval_pattern("1h:2h,1h:1h"), Catch::Contains("whole number"));
}

TEST_CASE("interval plan: windows cover the walltime from a boundary, inside the horizon", "[unit][policy][interval]") {
  // Intervals [0,1h) [1h,2h) [2h,4h) [4h,6h).
  const IntervalPlan plan(8, 0, parse_interval_pattern("1h:2h,2h:6h"));
  REQUIRE(plan.intervals() == 4);
  REQUIRE(plan.window(0, 30 * kMin) == 0b0001);
  REQUIRE(plan.window(0, kHour) == 0b0001);      // exactly one interval
  REQUIRE(plan.window(0, 61 * kMin) == 0b0011);  // one minute more takes the next
  REQUIRE(plan.window(1, 2 * kHour) == 0b0110);  // from 1h: ends at 4h, covers 3h
  REQUIRE(plan.window(2, 5 * kHour) == 0);       // 2h..6h is only 4h: beyond the horizon
  REQUIRE(plan.window(0, 6 * kHour) == 0b1111);
  REQUIRE(plan.window(3, 0) == 0b1000);  // a zero walltime still takes an interval
}

TEST_CASE("interval plan: running jobs hold their nodes in every interval begun before their requested end",
          "[unit][policy][interval]") {
  IntervalPlan plan(8, 0, parse_interval_pattern("1h:2h,2h:6h"));
  const std::vector<RunningJob> jobs = {
      running(2, 4, 2, 2 * kHour),  // the 2h interval begins at its end: not held
      running(1, 0, 4, 90 * kMin),  // intervals beginning at 0 and 1h
      running(3, 6, 1, -kHour),     // past its walltime, not killed: still running now
  };
  plan.occupy_running(jobs);
  REQUIRE(plan.mask_of(0) == 0b0011);
  REQUIRE(plan.mask_of(3) == 0b0011);
  REQUIRE(plan.mask_of(4) == 0b0011);
  REQUIRE(plan.mask_of(6) == 0b0001);
  REQUIRE(plan.mask_of(7) == 0);
  REQUIRE(plan.lowest_free_range(2, 0b0001) == -1);  // only node 7 is free now
  REQUIRE(plan.lowest_free_range(1, 0b0001) == 7);
  REQUIRE(plan.lowest_free_range(2, 0b0100) == 0);
  REQUIRE(plan.lowest_free_range(2, 0b0010) == 6);               // nodes 6-7 are free from 1h
  REQUIRE_THROWS_AS(plan.occupy(3, 2, 0b0010), InvariantError);  // node 3 is used at 1h already
  // On a plan already holding something, running jobs are added one by one: the same masks.
  IntervalPlan stepwise(8, 0, parse_interval_pattern("1h:2h,2h:6h"));
  stepwise.occupy(7, 1, 0b1000);
  stepwise.occupy_running(jobs);
  for (std::uint32_t n = 0; n < 7; ++n) REQUIRE(stepwise.mask_of(n) == plan.mask_of(n));
  REQUIRE(stepwise.mask_of(7) == 0b1000);
  // Two running jobs on one node is a model error, on a fresh plan too.
  IntervalPlan fresh(8, 0, parse_interval_pattern("1h:2h,2h:6h"));
  const std::vector<RunningJob> overlapping = {running(1, 0, 4, kHour), running(2, 3, 2, kHour)};
  REQUIRE_THROWS_AS(fresh.occupy_running(overlapping), InvariantError);
}

TEST_CASE("interval scheduling: FCFS order, earliest interval, lowest range, backfill of later jobs",
          "[unit][policy][interval]") {
  // 8 nodes, intervals [0,1h) [1h,2h) [2h,4h) [4h,6h). R holds nodes 0-3 until 1h30 (intervals
  // 0 and 1). In queue order:
  //  J1  6 nodes 30 min: 0 and 1h have only nodes 4-7 free; at 2h all are free -> nodes 0-5, T0 2h.
  //  J2  2 nodes 3 h: window 0-4h (intervals 0,1,2); nodes 6-7 are the only pair free in all
  //      three (J1 holds 0-5 at 2h) -> starts now on node 6.
  //  J3  2 nodes 30 min: interval 0, nodes 4-5 -> starts now on node 4.
  //  J4  8 nodes 1 h: intervals 0, 1, 2 each have something in use; interval 3 (4h) is free -> T0 4h.
  //  J5  1 node 10 h: longer than the 6 h horizon -> no reservation, stays queued.
  //  J6  1 node 10 min: nothing free at 0; at 1h nodes 4-5 (J3 held only interval 0) -> node 4, T0 1h.
  IntervalPolicy policy(parse_interval_pattern("1h:2h,2h:6h"));
  const PassDecision d = run_pass(policy, 8, {running(9, 0, 4, 90 * kMin)},
                                  {job(1, 6, 30 * kMin), job(2, 2, 3 * kHour), job(3, 2, 30 * kMin), job(4, 8, kHour),
                                   job(5, 1, 10 * kHour), job(6, 1, 10 * kMin)});
  REQUIRE(d.start_now == std::vector<JobId>{2, 3});
  REQUIRE(d.first_nodes == std::vector<std::uint32_t>{6, 4});
  REQUIRE(reservation_of(d, 1) == 2 * kHour);
  REQUIRE(reservation_of(d, 2) == 0);
  REQUIRE(reservation_of(d, 3) == 0);
  REQUIRE(reservation_of(d, 4) == 4 * kHour);
  REQUIRE(reservation_of(d, 5) == -1);
  REQUIRE(reservation_of(d, 6) == kHour);
  // The cells a nodes x intervals table would read: 8 nodes x the intervals of every start tried,
  // up to the one taken. J1 starts 0, 1, 2 (one interval each): 3; J2 start 0 (intervals 0-2): 3;
  // J3: 1; J4 starts 0-3: 4; J5: none (no window fits the horizon); J6 starts 0, 1: 2.
  // (3 + 3 + 1 + 4 + 0 + 2) x 8 = 104.
  REQUIRE(d.plan_cells == 104);
  // A queue depth of 3 leaves J4-J6 out of the pass.
  const PassDecision shallow =
      run_pass(policy, 8, {running(9, 0, 4, 90 * kMin)},
               {job(1, 6, 30 * kMin), job(2, 2, 3 * kHour), job(3, 2, 30 * kMin), job(4, 8, kHour)}, 3);
  REQUIRE(shallow.reservations.size() == 3);
}

TEST_CASE("interval scheduling: one 60-h interval (pattern C) can never plan a job that does not fit now",
          "[unit][policy][interval]") {
  // 8 nodes; R holds nodes 0-3 for 10 more minutes. J1 needs 6 nodes for 1 h, J2 4 nodes.
  const std::vector<RunningJob> run{running(9, 0, 4, 10 * kMin)};
  const std::vector<QueuedJob> queue{job(1, 6, kHour), job(2, 4, kHour)};
  // C: R holds its nodes for the whole horizon, so J1 gets no plan; J2 starts on nodes 4-7.
  IntervalPolicy c(parse_interval_pattern("C"));
  const PassDecision dc = run_pass(c, 8, run, queue);
  REQUIRE(reservation_of(dc, 1) == -1);
  REQUIRE(dc.start_now == std::vector<JobId>{2});
  REQUIRE(dc.first_nodes == std::vector<std::uint32_t>{4});
  REQUIRE(dc.plan_cells == 16);  // one interval x 8 nodes, for each job
  // B: R holds only the first hour; J1 is planned at 1h on nodes 0-5; J2 still starts now on 4-7.
  IntervalPolicy b(parse_interval_pattern("B"));
  const PassDecision db = run_pass(b, 8, run, queue);
  REQUIRE(reservation_of(db, 1) == kHour);
  REQUIRE(db.start_now == std::vector<JobId>{2});
  REQUIRE(db.first_nodes == std::vector<std::uint32_t>{4});
  REQUIRE(db.plan_cells == 24);  // J1 tries starts 0 and 1, J2 start 0: 3 intervals x 8 nodes
}

TEST_CASE("interval plan: the (parallel) earliest-fit search equals a plain scan on large plans",
          "[unit][policy][interval]") {
  // 4096 nodes cut into ~1500 segments with random interval masks: earliest() takes its
  // parallel path; it must give the first interval, then the lowest range, a plain scan finds.
  const IntervalPattern pattern = parse_interval_pattern("B");
  IntervalPlan plan(4096, 0, pattern);
  RandomStream rng(5, 0);
  for (std::uint32_t first = 0; first < 4096;) {
    const std::uint32_t count = 1 + static_cast<std::uint32_t>(rng.below(5));
    if (first + count > 4096) break;
    const std::size_t from = rng.below(60), upto = from + rng.below(60 - from);
    if (rng.uniform() < 0.8) plan.occupy(first, count, plan.window(from, (upto - from + 1) * kHour - 1));
    first += count;
  }
  for (const std::uint32_t nodes : {1u, 3u, 8u, 40u, 400u})
    for (const Time duration : {10 * kMin, 5 * kHour, 30 * kHour}) {
      CAPTURE(nodes, duration);
      const IntervalPlan::Placement p = plan.earliest(nodes, duration);
      std::size_t s = 0;
      std::int64_t first = -1;
      for (; s < plan.intervals() && plan.window(s, duration) != 0; ++s)
        if ((first = plan.lowest_free_range(nodes, plan.window(s, duration))) >= 0) break;
      if (first < 0) {
        REQUIRE(p.interval == plan.intervals());
      } else {
        REQUIRE(p.interval == s);
        REQUIRE(p.first_node == static_cast<std::uint32_t>(first));
      }
    }
}

TEST_CASE("interval plan: what a pass learns about misfits and fits skips work, never changes an answer",
          "[unit][policy][interval]") {
  // Two identical plans, filled by the same queue of random jobs (each placed where earliest()
  // says): one searches with a memo, one without. Small plans take the in-order path,
  // large ones the parallel path.
  for (const std::uint32_t machine : {64u, 4096u}) {
    CAPTURE(machine);
    const IntervalPattern pattern = parse_interval_pattern("A");
    IntervalPlan with(machine, 0, pattern), without(machine, 0, pattern);
    IntervalPlan::SearchMemo memo(with.intervals());
    RandomStream rng(machine, 1);
    for (int j = 0; j < 400; ++j) {
      const auto nodes = static_cast<std::uint32_t>(1 + rng.below(machine / 8));
      const Time duration = (1 + static_cast<Time>(rng.below(24 * 60))) * kMin;
      const IntervalPlan::Placement a = with.earliest(nodes, duration, &memo);
      const IntervalPlan::Placement b = without.earliest(nodes, duration);
      CAPTURE(j, nodes, duration);
      REQUIRE(a.interval == b.interval);
      if (b.interval == without.intervals()) continue;
      REQUIRE(a.first_node == b.first_node);
      with.occupy(a.first_node, nodes, a.mask);
      without.occupy(b.first_node, nodes, b.mask);
    }
  }
}

TEST_CASE("interval plan: a misfit rules out every window that contains its own, and no other",
          "[unit][policy][interval]") {
  IntervalPlan::SearchMemo memo(8);
  memo.misfit(4, 5, 10);  // no 10 contiguous nodes free throughout intervals 4..5
  for (std::size_t first = 0; first < 8; ++first)
    for (std::size_t last = first; last < 8; ++last) {
      CAPTURE(first, last);
      const bool contains = first <= 4 && last >= 5;
      CHECK(memo.known_misfit(first, last, 10) == contains);
      CHECK(memo.known_misfit(first, last, 11) == contains);  // more nodes fit no better
      CHECK_FALSE(memo.known_misfit(first, last, 9));
    }
  memo.misfit(2, 6, 12);  // weaker, inside what is known: changes nothing
  CHECK_FALSE(memo.known_misfit(2, 6, 9));
  memo.misfit(6, 6, 3);
  CHECK(memo.known_misfit(0, 7, 3));
  CHECK(memo.known_misfit(4, 6, 3));
  CHECK_FALSE(memo.known_misfit(4, 5, 3));
  CHECK(memo.known_misfit(4, 5, 10));
}

TEST_CASE("interval plan: all windows in one sweep equal window() start by start", "[unit][policy][interval]") {
  for (const char* spec : {"A", "B", "C", "10m:1h,30m:12h,2h:24h,4h:36h,8h:60h"}) {
    const IntervalPlan plan(16, 5 * kMin, parse_interval_pattern(spec));
    for (const Time duration : {Time{0}, Time{1}, 10 * kMin, 10 * kMin + 1, 59 * kMin, kHour, 7 * kHour, 59 * kHour,
                                60 * kHour, 61 * kHour}) {
      CAPTURE(spec, duration);
      std::array<std::uint64_t, 64> masks{};
      const std::size_t starts = plan.windows(duration, masks);
      for (std::size_t s = 0; s < plan.intervals(); ++s)
        REQUIRE(plan.window(s, duration) == (s < starts ? masks[s] : 0));
    }
  }
}

TEST_CASE("interval plan: the lowest free range equals a node-by-node search, as the plan fills",
          "[unit][policy][interval]") {
  // Random placements on 3,000 nodes (hundreds of segments, so whole blocks of segments are
  // passed in one step); after each, every query is checked against each node's own mask.
  const IntervalPattern pattern = parse_interval_pattern("A");
  IntervalPlan plan(3000, 0, pattern);
  RandomStream rng(11, 0);
  // The lowest range from `from` on, else -1 and the longest free run from `from` on.
  const auto brute = [&](std::uint32_t count, std::uint64_t mask, std::uint32_t from,
                         std::uint32_t& longest) -> std::int64_t {
    std::uint32_t run = 0;
    longest = 0;
    for (std::uint32_t n = from; n < 3000; ++n) {
      run = (plan.mask_of(n) & mask) ? 0 : run + 1;
      if (run >= count) return n + 1 - count;
      longest = std::max(longest, run);
    }
    return -1;
  };
  for (int step = 0; step < 300; ++step) {
    const auto count = static_cast<std::uint32_t>(1 + rng.below(step < 250 ? 12 : 300));
    const Time duration = (1 + static_cast<Time>(rng.below(20 * 60))) * kMin;
    const IntervalPlan::Placement p = plan.earliest(count, duration);
    if (p.interval < plan.intervals()) plan.occupy(p.first_node, count, p.mask);
    for (int q = 0; q < 10; ++q) {
      const std::size_t s = rng.below(plan.intervals());
      const std::uint64_t mask = plan.window(s, (1 + static_cast<Time>(rng.below(6 * 60))) * kMin);
      if (mask == 0) continue;
      const auto want = static_cast<std::uint32_t>(1 + rng.below(q < 5 ? 8 : 800));
      const auto from = static_cast<std::uint32_t>(q % 2 == 0 ? 0 : rng.below(3000));
      CAPTURE(step, q, s, want, from);
      std::uint32_t longest = 0, expected_longest = 0;
      const std::int64_t expected = brute(want, mask, from, expected_longest);
      REQUIRE(plan.lowest_free_range(want, mask, from, &longest) == expected);
      if (expected < 0) REQUIRE(longest == expected_longest);
    }
  }
}

TEST_CASE("free-run search: every kernel this CPU runs equals a node-by-node look, and finds a node's segment",
          "[unit][policy][interval]") {
  // Random lines of 1 to 40 segments (every length of a partial last step, eight or sixteen
  // segments a step), of 64 and 128 (whole blocks of 64 only) and of 300, random windows, counts
  // and starting nodes.
  RandomStream rng(17, 0);
  for (const detail::FreeRunKernel& kernel : detail::free_run_kernels()) {
    CAPTURE(kernel.name);
    for (int line_no = 0; line_no < 400; ++line_no) {
      const std::size_t n =
          line_no % 10 == 9 ? std::array<std::size_t, 3>{64, 128, 300}[line_no / 10 % 3] : 1 + rng.below(40);
      std::vector<std::uint32_t> firsts;
      std::vector<std::uint64_t> used;
      std::uint32_t node = 0;
      for (std::size_t i = 0; i < n; ++i) {
        firsts.push_back(node);
        used.push_back(rng.below(2) == 0 ? 0 : rng.next_u64() & rng.next_u64());  // free in about half
        node += static_cast<std::uint32_t>(1 + rng.below(20));
      }
      const detail::FreeRunLine line{firsts.data(), used.data(), n, node};
      const auto segment_of = [&](std::uint32_t v) {
        std::size_t i = 0;
        while (i + 1 < n && firsts[i + 1] <= v) ++i;
        return i;
      };
      for (int q = 0; q < 8; ++q) {
        const std::size_t low = rng.below(8);
        const std::uint64_t window = (std::uint64_t{1} << (low + rng.below(4))) * 2 - (std::uint64_t{1} << low);
        const auto count = static_cast<std::uint32_t>(1 + rng.below(q < 4 ? 30 : 200));
        const auto from = static_cast<std::uint32_t>(q % 2 == 0 ? 0 : rng.below(line.nodes));
        std::int64_t expected = -1;
        std::uint32_t run = 0, longest = 0;
        for (std::uint32_t v = from; v < line.nodes && expected < 0; ++v) {
          run = (used[segment_of(v)] & window) == 0 ? run + 1 : 0;
          if (run >= count) expected = v + 1 - count;
          longest = std::max(longest, run);
        }
        CAPTURE(line_no, q, n, window, count, from);
        const detail::SegmentLocate locate = kernel.locate != nullptr ? kernel.locate : detail::locate_by_halving;
        REQUIRE(locate(firsts.data(), n, from) == segment_of(from));
        const detail::FreeRunResult got = kernel.search(line, segment_of(from), {window, count, from});
        REQUIRE(got.first == expected);
        if (expected < 0) REQUIRE(got.longest == longest);
      }
    }
  }
}

TEST_CASE("free-run search: a free run that ends the line at a step's or block's end is found and measured",
          "[unit][policy][interval]") {
  // Segments of two nodes, used in interval 0 but for the last three: the run is nodes
  // 2(n-3)..2n-1, and it ends where the line does, after whole steps of 8 or 16 and blocks of 64.
  for (const detail::FreeRunKernel& kernel : detail::free_run_kernels()) {
    for (const std::size_t n : {8u, 16u, 32u, 64u, 128u, 192u}) {
      CAPTURE(kernel.name, n);
      std::vector<std::uint32_t> firsts;
      std::vector<std::uint64_t> used;
      for (std::size_t i = 0; i < n; ++i) {
        firsts.push_back(static_cast<std::uint32_t>(2 * i));
        used.push_back(i + 3 < n ? 1 : 0);
      }
      const detail::FreeRunLine line{firsts.data(), used.data(), n, static_cast<std::uint32_t>(2 * n)};
      const auto run_first = static_cast<std::uint32_t>(2 * (n - 3));
      REQUIRE(kernel.search(line, 0, {1, 6, 0}).first == run_first);
      const detail::FreeRunResult too_many = kernel.search(line, 0, {1, 7, 0});
      REQUIRE(too_many.first == -1);
      REQUIRE(too_many.longest == 6);
      // From inside the run: the part above `from`.
      REQUIRE(kernel.search(line, n - 3, {1, 5, run_first + 1}).first == run_first + 1);
      REQUIRE(kernel.search(line, n - 3, {1, 6, run_first + 1}).longest == 5);
    }
  }
}

TEST_CASE("interval plan: free ranges, runs touching a range and freed cells equal a node-by-node look",
          "[unit][policy][interval]") {
  const IntervalPattern pattern = parse_interval_pattern("A");
  RandomStream rng(13, 0);
  IntervalPlan earlier(600, 0, pattern), plan(600, 0, pattern);
  for (int step = 0; step < 200; ++step) {
    const auto count = static_cast<std::uint32_t>(1 + rng.below(20));
    const Time duration = (1 + static_cast<Time>(rng.below(20 * 60))) * kMin;
    const IntervalPlan::Placement p = plan.earliest(count, duration);
    if (p.interval == plan.intervals()) continue;
    plan.occupy(p.first_node, count, p.mask);
    if (step % 3 != 0) earlier.occupy(p.first_node, count, p.mask);  // what `plan` lacks is freed
  }
  // `earlier` is not a plan `plan` came from: cells it holds and `plan` does not are "freed".
  std::vector<IntervalPlan::Cells> freed;
  plan.freed_since(earlier, freed);
  for (std::uint32_t n = 0; n < 600; ++n) {
    std::uint64_t listed = 0;
    for (const IntervalPlan::Cells& c : freed)
      if (n >= c.first && n < c.first + c.count) listed |= c.mask;
    REQUIRE(listed == (earlier.mask_of(n) & ~plan.mask_of(n)));
  }
  // The longest run free throughout `mask` overlapping [first, last), node by node.
  const auto brute_touching = [&](std::uint32_t first, std::uint32_t last, std::uint64_t mask) {
    std::uint32_t best = 0;
    for (std::uint32_t n = 0; n < 600;) {
      if (plan.mask_of(n) & mask) {
        ++n;
        continue;
      }
      std::uint32_t end = n;
      while (end < 600 && (plan.mask_of(end) & mask) == 0) ++end;
      if (n < last && end > first) best = std::max(best, end - n);
      n = end;
    }
    return best;
  };
  for (int q = 0; q < 300; ++q) {
    const auto first = static_cast<std::uint32_t>(rng.below(600));
    const auto last = first + 1 + static_cast<std::uint32_t>(rng.below(std::min<std::uint64_t>(40, 600 - first)));
    const std::size_t s = rng.below(plan.intervals());
    const std::uint64_t mask = plan.window(s, (1 + static_cast<Time>(rng.below(6 * 60))) * kMin);
    if (mask == 0) continue;
    CAPTURE(q, first, last, s);
    bool free = true;
    for (std::uint32_t n = first; n < last; ++n) free = free && (plan.mask_of(n) & mask) == 0;
    REQUIRE(plan.is_free(first, last - first, mask) == free);
    REQUIRE(plan.longest_touching(first, last, mask) == brute_touching(first, last, mask));
    std::array<std::uint32_t, 64> bounds{};
    plan.touching_bounds(first, last, bounds);
    for (std::size_t i = 0; i < plan.intervals(); ++i)  // a bound, and 0 where the range is all used
      REQUIRE(bounds[i] >= brute_touching(first, last, std::uint64_t{1} << i));
  }
}

TEST_CASE("interval scheduling: a pass that keeps the last pass's placements decides as one that searches all",
          "[unit][policy][interval]") {
  // A small machine run pass after pass: jobs arrive, start where the pass says, end early or
  // at their walltime, are now and then withdrawn from the queue, and time moves on by nothing
  // (a pass that may resume the last one), by less than an interval or by several. One policy
  // remembers its last pass; a fresh one each pass, and one told to plan from scratch, search
  // every job. Every fifth pass the remembering policy is also shown an older input (as after a
  // rollback) and must still agree.
  constexpr std::uint32_t kNodes = 96;
  const IntervalPattern pattern = parse_interval_pattern("10m:1h,30m:6h,2h:12h");
  IntervalPolicy remembering(pattern), from_scratch(pattern, IntervalPolicy::Passes::from_scratch);
  RandomStream rng(17, 0);
  struct Running {
    RunningJob job;
    Time end;
  };
  std::vector<Running> running;
  std::vector<QueuedJob> queue;
  JobId next_id = 1;
  Time now = 0;
  std::vector<std::pair<std::vector<RunningJob>, std::vector<QueuedJob>>> older;
  const auto agree = [&](Time at, const std::vector<RunningJob>& run, const std::vector<QueuedJob>& q) {
    std::uint32_t used = 0;
    for (const RunningJob& r : run) used += r.nodes;
    const SchedulingInput in{at, q, run, kNodes, kNodes - used, 0};
    IntervalPolicy fresh(pattern);
    const PassDecision a = remembering.pass(in), b = fresh.pass(in), c = from_scratch.pass(in);
    REQUIRE(c.start_now == b.start_now);
    REQUIRE(c.first_nodes == b.first_nodes);
    REQUIRE(c.plan_cells == b.plan_cells);
    REQUIRE(a.start_now == b.start_now);
    REQUIRE(a.first_nodes == b.first_nodes);
    REQUIRE(a.plan_cells == b.plan_cells);
    REQUIRE(a.reservations.size() == b.reservations.size());
    for (std::size_t i = 0; i < a.reservations.size(); ++i) {
      REQUIRE(a.reservations[i].id == b.reservations[i].id);
      REQUIRE(a.reservations[i].start == b.reservations[i].start);
    }
    return a;
  };
  for (int pass = 0; pass < 600; ++pass) {
    CAPTURE(pass);
    const double step = rng.uniform();
    now += step < 0.2   ? 0
           : step < 0.7 ? static_cast<Time>(rng.below(5 * 60)) * kTicksPerSecond
                        : static_cast<Time>(rng.below(3 * 3600)) * kTicksPerSecond;
    std::erase_if(running, [&](const Running& r) { return r.end <= now; });
    if (!queue.empty() && rng.uniform() < 0.1)  // withdrawn
      queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(rng.below(queue.size())));
    for (int a = static_cast<int>(rng.below(4)); a-- > 0;)
      queue.push_back(job(next_id++, 1 + static_cast<std::uint32_t>(rng.below(rng.uniform() < 0.8 ? 12 : 60)),
                          (1 + static_cast<Time>(rng.below(8 * 60))) * kMin));
    std::vector<RunningJob> run;
    for (const Running& r : running) run.push_back(r.job);
    if (pass % 5 == 4 && !older.empty()) {
      const auto& [old_run, old_queue] = older[rng.below(older.size())];
      agree(now - static_cast<Time>(rng.below(3600)) * kTicksPerSecond, old_run, old_queue);
    }
    older.emplace_back(run, queue);
    const PassDecision d = agree(now, run, queue);
    for (std::size_t i = 0; i < d.start_now.size(); ++i) {
      const auto it =
          std::find_if(queue.begin(), queue.end(), [&](const QueuedJob& q) { return q.id == d.start_now[i]; });
      const Time run_for = rng.uniform() < 0.8
                               ? 1 + static_cast<Time>(rng.below(static_cast<std::uint64_t>(it->requested)))
                               : it->requested;
      running.push_back({RunningJob{it->id, it->nodes, now, now + it->requested, d.first_nodes[i]}, now + run_for});
      queue.erase(it);
    }
  }
}

TEST_CASE("interval plan: running jobs written in one sweep equal them added one by one", "[unit][policy][interval]") {
  // Random running jobs on 2,000 nodes; one plan takes them all at once (the sweep, with the
  // free count per interval summed at the end), the other one by one. Every node's mask, every
  // interval's free count (node by node) and every search must agree.
  const IntervalPattern pattern = parse_interval_pattern("A");
  RandomStream rng(23, 0);
  std::vector<RunningJob> jobs;
  for (std::uint32_t first = 0; first < 2000;) {
    const auto count = static_cast<std::uint32_t>(1 + rng.below(std::min<std::uint64_t>(40, 2000 - first)));
    if (rng.uniform() < 0.7)
      jobs.push_back(running(first, first, count, static_cast<Time>(rng.below(70 * 60)) * kMin - 5 * kHour));
    first += count;
  }
  // In no particular node order, as the model hands them over (its order is by requested end).
  for (std::size_t i = jobs.size(); i > 1; --i) std::swap(jobs[i - 1], jobs[rng.below(i)]);
  IntervalPlan sweep(2000, 0, pattern), stepwise(2000, 0, pattern);
  sweep.occupy_running(jobs);
  for (const RunningJob& j : jobs) stepwise.occupy_running(std::span(&j, 1));
  for (std::uint32_t n = 0; n < 2000; ++n) REQUIRE(sweep.mask_of(n) == stepwise.mask_of(n));
  for (std::size_t i = 0; i < sweep.intervals(); ++i) {
    std::uint32_t free = 0;
    for (std::uint32_t n = 0; n < 2000; ++n) free += (sweep.mask_of(n) >> i & 1) == 0;
    CAPTURE(i);
    REQUIRE(sweep.free_in(i) == free);
    REQUIRE(stepwise.free_in(i) == free);
  }
  for (int q = 0; q < 200; ++q) {
    const auto count = static_cast<std::uint32_t>(1 + rng.below(q < 100 ? 40 : 600));
    const Time duration = (1 + static_cast<Time>(rng.below(30 * 60))) * kMin;
    CAPTURE(q, count, duration);
    const IntervalPlan::Placement a = sweep.earliest(count, duration), b = stepwise.earliest(count, duration);
    REQUIRE(a.interval == b.interval);
    if (a.interval < sweep.intervals()) REQUIRE(a.first_node == b.first_node);
  }
}
