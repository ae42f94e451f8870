// The LAS study's policies on hand-made situations (docs/studies.md#las); expected values worked out in the
// comments. Resources are (cores, GB).
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/policy/las/node_scheduler.hpp"
#include "tracewarp/policy/las/placement.hpp"

using namespace tracewarp;
using namespace tracewarp::las;

namespace {
using Ids = std::vector<std::uint64_t>;
constexpr Time kHour = 3600;

// A node of 4 cores / 8 GB, full: r0 (1, 1 GB) since 0, r1 (2, 4 GB) since 10, r2 (1, 3 GB)
// since 20 — attained service at 100: r0 100, r1 90, r2 80.
NodeScheduler full_node(NodeSchedulerSettings settings) {
  NodeScheduler node({4, 8}, settings);
  REQUIRE(node.dispatch({0, {1, 1}, kHour}, 0).started == Ids{0});
  REQUIRE(node.dispatch({1, {2, 4}, kHour}, 10).started == Ids{1});
  REQUIRE(node.dispatch({2, {1, 3}, kHour}, 20).started == Ids{2});
  return node;
}
}  // namespace

TEST_CASE("las node: the study's example — candidate sets preempt only r1, greedy preempts r0 and r1",
          "[unit][policy][las]") {
  // New task (2 cores, 4 GB) at 100 on the full node. Candidate sets in order: {r0} frees (1, 1):
  // not enough; {r1} frees (2, 4): enough -> only r1. Greedy: r0 (not enough), then r1 -> both.
  NodeScheduler proposed = full_node({Preemption::candidate_sets, 0, 4});
  NodeChanges c = proposed.dispatch({9, {2, 4}, 50}, 100);
  REQUIRE(c.preempted == Ids{1});
  REQUIRE(c.started == Ids{9});
  REQUIRE(proposed.preemptions() == 1);
  REQUIRE(proposed.attained(1, 100) == 90);  // suspended with what it had
  NodeScheduler kairos = full_node({Preemption::greedy, 0, 4});
  c = kairos.dispatch({9, {2, 4}, 50}, 100);
  REQUIRE(c.preempted == Ids{0, 1});
  // r0 was preempted for nothing it had to give: after 9 starts, (1, 1) is free again and the
  // suspended head — r1 (90 attained) before r0 (100) — does not fit; r0 does, so the head waits
  // and nothing else is tried (LAS order).
  REQUIRE(c.started == Ids{9});
  REQUIRE(kairos.preemptions() == 2);
}

TEST_CASE("las node: candidate sets come in the study's order", "[unit][policy][las]") {
  // 10 cores / 10 GB, full: r0 (2, 2) longest attained, r1 (2, 2), r2 (4, 4), r3 (2, 2) shortest;
  // N = 3 leaves r3 out. New task (4, 4): {r0} no, {r1} no, {r0, r1} frees (4, 4): yes — before
  // {r2}, which alone would also do.
  NodeScheduler node({10, 10}, {Preemption::candidate_sets, 0, 3});
  node.dispatch({0, {2, 2}, kHour}, 0);
  node.dispatch({1, {2, 2}, kHour}, 1);
  node.dispatch({2, {4, 4}, kHour}, 2);
  node.dispatch({3, {2, 2}, kHour}, 3);
  REQUIRE(node.dispatch({9, {4, 4}, 10}, 100).preempted == Ids{0, 1});
}

TEST_CASE("las node: W does not protect from a new task, only from a suspended one", "[unit][policy][las]") {
  // Node (5, 10), W = 60. R (1, 2) runs from 0; new A (5, 10) at 100 preempts it and ends at 110,
  // when R resumes (100 attained) and P (3, 6) and T (1, 2, ends at 140) start: the node is full.
  const auto prepare = [](Time w) {
    NodeScheduler node({5, 10}, {Preemption::candidate_sets, w, 4});
    node.dispatch({0, {1, 2}, 10 * kHour}, 0);
    REQUIRE(node.dispatch({1, {5, 10}, 10}, 100).preempted == Ids{0});
    REQUIRE(node.complete(1, 110).started == Ids{0});
    node.dispatch({2, {3, 6}, 10 * kHour}, 110);
    node.dispatch({3, {1, 2}, 30}, 110);
    // New B (3, 6) at 120: by attained service R (110), P (10), T (10). {R} frees too little,
    // {P} is enough: P is preempted although it has run only 10 s < W — a new task runs at once.
    const NodeChanges c = node.dispatch({4, {3, 6}, 10 * kHour}, 120);
    REQUIRE(c.preempted == Ids{2});
    REQUIRE(c.started == Ids{4});
    return node;
  };
  SECTION("W = 60: at 140 (T ends) the suspended P may not preempt B or R, both (re)started < 60 s ago") {
    NodeScheduler node = prepare(60);
    NodeChanges c = node.complete(3, 140);
    REQUIRE(c.preempted.empty());
    REQUIRE(c.started.empty());
    REQUIRE(node.suspended() == 1);
    // At 200 both have run >= 60 s; a new D (1, 2) takes the free space, then P's search finds
    // R (190 attained; {R} too little) and B (80 attained; {B} enough): B goes, P resumes.
    c = node.dispatch({5, {1, 2}, 5}, 200);
    REQUIRE(c.preempted == Ids{4});
    REQUIRE(c.started == Ids{5, 2});
  }
  SECTION("W = 0: at 140 the suspended P preempts B at once") {
    NodeScheduler node = prepare(0);
    const NodeChanges c = node.complete(3, 140);
    REQUIRE(c.preempted == Ids{4});
    REQUIRE(c.started == Ids{2});
  }
}

TEST_CASE("las node: N bounds the candidates", "[unit][policy][las]") {
  // N = 1: only r0 is a candidate; it does not free enough, so the new task waits, suspended.
  NodeScheduler narrow = full_node({Preemption::candidate_sets, 0, 1});
  const NodeChanges c = narrow.dispatch({9, {2, 4}, 50}, 100);
  REQUIRE(c.preempted.empty());
  REQUIRE(c.started.empty());
  REQUIRE(narrow.suspended() == 1);
  REQUIRE(narrow.preemptions() == 0);
}

TEST_CASE("las node: suspended tasks resume shortest-attained first when resources free", "[unit][policy][las]") {
  // The example again: 9 (50 s) preempts r1 at 100 and finishes at 150; r1 (90 attained,
  // 3600 needed) resumes at 150 and finishes at 150 + 3510.
  NodeScheduler node = full_node({Preemption::candidate_sets, 0, 4});
  node.dispatch({9, {2, 4}, 50}, 100);
  REQUIRE(node.finish_time(9) == 150);
  REQUIRE(node.finish_time(1) == kTimeInfinity);
  std::uint32_t preempted = 99;
  const NodeChanges c = node.complete(9, 150, &preempted);
  REQUIRE(preempted == 0);
  REQUIRE(c.started == Ids{1});
  REQUIRE(node.finish_time(1) == 150 + 3510);
  REQUIRE(node.used() == Amounts{4, 8});
  // A suspended head may only preempt tasks with more attained service than itself. Task 20
  // (4, 8) arrives at 200: candidates r0 (200), r2 (180), r1 (140): {r0}, {r2}, {r0,r2}, {r1},
  // {r0,r1}, {r2,r1}, {r0,r2,r1} -> all three go. 20 finishes at 210; they resume, shortest
  // attained first: r1, r2, r0.
  REQUIRE(node.dispatch({20, {4, 8}, 10}, 200).preempted == Ids{0, 2, 1});
  REQUIRE(node.complete(20, 210).started == Ids{1, 2, 0});
  REQUIRE_THROWS_AS(node.complete(20, 211), InvariantError);                // not running
  REQUIRE_THROWS_AS(node.dispatch({30, {5, 1}, 10}, 220), InvariantError);  // larger than the node
}

TEST_CASE("las node: Kairos's quantum swaps a suspended task in once a running one has a quantum more service",
          "[unit][policy][las]") {
  // One core; quantum 10. A (service 100) starts at 0; B (100) arrives at 5 and, greedy,
  // preempts A (attained 5). B must reach 5 + 10 = 15 before A replaces it: at 12 it has 7, at
  // 19 14: no swap; at 20 it has 15: A replaces B. Then A must reach 15 + 10 = 25: at 39 it has
  // 24, no; at 40 25: B replaces A.
  NodeScheduler node({1, 1}, {Preemption::greedy, 0, 4, 10});
  REQUIRE(node.dispatch({0, {1, 1}, 100}, 0).started == Ids{0});
  const NodeChanges arrival = node.dispatch({1, {1, 1}, 100}, 5);
  REQUIRE(arrival.preempted == Ids{0});
  REQUIRE(arrival.started == Ids{1});
  REQUIRE(node.on_quantum(12).started.empty());
  REQUIRE(node.on_quantum(19).started.empty());
  const NodeChanges swap = node.on_quantum(20);
  REQUIRE(swap.preempted == Ids{1});
  REQUIRE(swap.started == Ids{0});
  REQUIRE(node.attained(1, 20) == 15);
  REQUIRE(node.on_quantum(39).started.empty());
  REQUIRE(node.on_quantum(40).started == Ids{1});
  REQUIRE(node.preemptions() == 3);
  // Without a quantum nothing happens between arrivals and completions.
  NodeScheduler plain({1, 1}, {Preemption::greedy, 0, 4, 0});
  plain.dispatch({0, {1, 1}, 100}, 0);
  plain.dispatch({1, {1, 1}, 100}, 5);
  REQUIRE(plain.on_quantum(1000).started.empty());
}

TEST_CASE("las placement: similarity among fitting nodes, else the least loaded below L, else wait",
          "[unit][policy][las]") {
  // Three nodes of (4, 8). Assigned: n0 (3, 1), n1 (1, 6), n2 (4, 0). Demand (1, 1) fits n0 and
  // n1 (n2 has no free core): similarity n0 = 1*1/16 + 1*7/64 = 0.171875,
  // n1 = 1*3/16 + 1*2/64 = 0.21875 -> n1.
  std::vector<NodeView> nodes{{{4, 8}, {3, 1}, 3}, {{4, 8}, {1, 6}, 2}, {{4, 8}, {4, 0}, 1}};
  const SimilarityPlacement proposed(1.5);
  REQUIRE(proposed.place({1, 1}, nodes) == 1u);
  // Ties go to the lowest id.
  const std::vector<NodeView> twins{{{4, 8}, {0, 0}, 0}, {{4, 8}, {0, 0}, 0}};
  REQUIRE(proposed.place({1, 1}, twins) == 0u);
  // Demand (2, 4) fits nowhere: loads n0 = sqrt(0.75^2 + 0.125^2) = 0.760, n1 = sqrt(0.25^2 +
  // 0.75^2) = 0.791, n2 = sqrt(1^2 + 0) = 1 -> n0.
  REQUIRE(proposed.place({2, 4}, nodes) == 0u);
  REQUIRE(load(nodes[0]) == Approx(0.7603).epsilon(1e-3));
  // Overloaded nodes (load >= L) get nothing: raise n0 to (6, 2) (load 1.51) -> n1.
  nodes[0].assigned = {6, 2};
  REQUIRE(proposed.place({2, 4}, nodes) == 1u);
  // Every node at or above L: wait.
  for (NodeView& n : nodes) n.assigned = {6, 6};
  REQUIRE_FALSE(proposed.place({2, 4}, nodes).has_value());
  // ... and resume once one drops below it.
  nodes[2].assigned = {4, 4};  // load sqrt(1 + 0.25) = 1.118
  REQUIRE(proposed.place({2, 4}, nodes) == 2u);
}

TEST_CASE("las placement: Kairos takes the node with the fewest unfinished tasks, below the cap Q",
          "[unit][policy][las]") {
  std::vector<NodeView> nodes{{{4, 8}, {0, 0}, 32}, {{4, 8}, {0, 0}, 5}, {{4, 8}, {0, 0}, 5}};
  const KairosPlacement kairos(32);
  REQUIRE(kairos.place({1, 1}, nodes) == 1u);  // tie of n1 and n2 -> lowest id; n0 is at Q
  nodes[1].unfinished = nodes[2].unfinished = 32;
  REQUIRE_FALSE(kairos.place({1, 1}, nodes).has_value());
}

TEST_CASE("las placement: the parallel similarity scan equals a plain scan on many nodes", "[unit][policy][las]") {
  std::vector<NodeView> nodes;
  for (std::uint32_t i = 0; i < 5000; ++i)
    nodes.push_back({{16, 64}, {static_cast<double>((i * 7) % 17), static_cast<double>((i * 13) % 61)}, i % 9});
  const SimilarityPlacement proposed(1.5);
  std::vector<double> loads;  // as a caller keeps them (NodeLoads): the same answers
  for (const NodeView& n : nodes) loads.push_back(load(n));
  for (const Amounts demand : {Amounts{1, 2}, Amounts{4, 8}, Amounts{15, 3}, Amounts{17, 1}}) {  // 17: no room
    std::optional<std::uint32_t> plain;
    double best = -1;
    for (std::uint32_t i = 0; i < nodes.size(); ++i) {
      if (!fits_free(demand, nodes[i])) continue;
      double s = 0;
      for (std::size_t r = 0; r < kResources; ++r)
        s += demand[r] * (nodes[i].capacity[r] - nodes[i].assigned[r]) / (nodes[i].capacity[r] * nodes[i].capacity[r]);
      if (s > best) best = s, plain = i;
    }
    if (plain) REQUIRE(proposed.place(demand, nodes) == plain);
    REQUIRE(proposed.place(demand, nodes, loads) == proposed.place(demand, nodes));
  }
}

TEST_CASE("las node: a task whose service completes at this instant is never preempted", "[unit][policy][las]") {
  // A fills the node and needs 100 s; at 100 it is done (its end is due at this instant), so a
  // task dispatched at 100 waits rather than preempting it.
  for (const Preemption rule : {Preemption::candidate_sets, Preemption::greedy}) {
    NodeScheduler node({4, 8}, {rule, 0, 4});
    node.dispatch({0, {4, 8}, 100}, 0);
    const NodeChanges c = node.dispatch({1, {1, 1}, 10}, 100);
    REQUIRE(c.preempted.empty());
    REQUIRE(node.suspended() == 1);
    REQUIRE(node.complete(0, 100).started == Ids{1});
  }
}

TEST_CASE("las node loads: the mean against a bound, as the loads' sum in node order gives it", "[unit][policy][las]") {
  NodeLoads four(4);
  for (const auto& [node, l] : {std::pair{0, 1.0}, {1, 2.0}, {2, 3.0}}) four.set(node, l);
  REQUIRE(four[2] == 3.0);
  REQUIRE(four.mean_below(1.6));  // (1 + 2 + 3 + 0) / 4 = 1.5
  REQUIRE_FALSE(four.mean_below(1.5));
  REQUIRE_FALSE(four.mean_below(1.4));
  four.set(2, 0.5);
  REQUIRE(four.mean_below(1.0));  // 3.5 / 4

  // Random loads, some past the fixed sum's limit, and bounds at and one ulp around the plain
  // mean, where the fixed-point estimate cannot decide alone.
  RandomStream rng(5, 0);
  for (const std::size_t n : {1u, 3u, 256u, 4096u}) {
    NodeLoads loads(n);
    std::vector<double> plain_loads(n, 0.0);
    for (int step = 0; step < 2000; ++step) {
      const std::size_t node = rng.below(n);
      const double l = step % 97 == 0 ? 1e12 * rng.uniform() : 3 * rng.uniform() * rng.uniform();
      loads.set(node, l);
      plain_loads[node] = l;
      double sum = 0;
      for (const double x : plain_loads) sum += x;
      const double mean = sum / static_cast<double>(n);
      for (const double bound : {mean, std::nextafter(mean, 0.0), std::nextafter(mean, 1e300), mean * (1 + 1e-9),
                                 mean * (1 - 1e-9), 1.41421356, 3 * rng.uniform()}) {
        CAPTURE(n, step, mean, bound);
        REQUIRE(loads.mean_below(bound) == (mean < bound));
      }
    }
  }
}
