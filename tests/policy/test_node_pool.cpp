#include <catch2/catch.hpp>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/policy/batch/node_pool.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

TEST_CASE("node pool: lowest-numbered nodes for 'any', lowest fitting range for 'contiguous'", "[unit][policy]") {
  NodePool pool(16);
  const auto a = pool.allocate(4, Allocation::any);         // 0-3
  const auto b = pool.allocate(3, Allocation::contiguous);  // 4-6
  const auto c = pool.allocate(5, Allocation::any);         // 7-11
  REQUIRE(a == std::vector<NodeRange>{{0, 4}});
  REQUIRE(b == std::vector<NodeRange>{{4, 3}});
  REQUIRE(c == std::vector<NodeRange>{{7, 5}});
  pool.release(b);  // free: 4-6, 12-15
  REQUIRE(pool.free() == 7);
  REQUIRE(pool.largest_free_range() == 4);
  // contiguous 4: 4-6 is too short, so 12-15; any 5: 4-6 then 12-13
  REQUIRE(pool.can_allocate(4, Allocation::contiguous));
  REQUIRE_FALSE(pool.can_allocate(5, Allocation::contiguous));
  NodePool copy = pool;
  REQUIRE(copy.allocate(4, Allocation::contiguous) == std::vector<NodeRange>{{12, 4}});
  REQUIRE(pool.allocate(5, Allocation::any) == std::vector<NodeRange>{{4, 3}, {12, 2}});
  REQUIRE(pool.allocate(3, Allocation::any).empty());          // only 2 free
  REQUIRE_THROWS_AS(pool.release({{14, 1}}), InvariantError);  // 14 is free already
}

TEST_CASE("node pool: random allocations and releases never overlap and merge back", "[unit][policy]") {
  NodePool pool(1000);
  RandomStream rng(9, 9);
  std::vector<std::vector<NodeRange>> held;
  std::vector<bool> used(1000, false);
  for (int step = 0; step < 20000; ++step) {
    if (held.empty() || rng.uniform() < 0.5) {
      const auto rule = rng.uniform() < 0.5 ? Allocation::any : Allocation::contiguous;
      auto got = pool.allocate(1 + static_cast<std::uint32_t>(rng.below(80)), rule);
      for (const NodeRange& r : got)
        for (std::uint32_t n = r.first; n < r.first + r.count; ++n) {
          REQUIRE_FALSE(used[n]);  // never handed out twice
          used[n] = true;
        }
      if (!got.empty()) held.push_back(std::move(got));
    } else {
      const std::size_t k = rng.below(held.size());
      for (const NodeRange& r : held[k])
        for (std::uint32_t n = r.first; n < r.first + r.count; ++n) used[n] = false;
      pool.release(held[k]);
      held[k] = held.back();
      held.pop_back();
    }
  }
  for (const auto& h : held) pool.release(h);
  REQUIRE(pool.free() == 1000);
  REQUIRE(pool.largest_free_range() == 1000);  // everything merged back into one range
}

TEST_CASE("node pool, shared nodes: a job's cores are packed by the stated rule", "[unit][policy]") {
  NodePool pool(16, 4);  // 4 nodes of 4 cores: node n holds cores 4n..4n+3
  // Two 3-core jobs: each fits on one node, so neither is split; the second takes node 1
  // (node 0 has one core left), and a 1-core job then fills node 0.
  REQUIRE(pool.allocate(3, Allocation::packed) == std::vector<NodeRange>{{0, 3}});
  REQUIRE(pool.allocate(3, Allocation::packed) == std::vector<NodeRange>{{4, 3}});
  REQUIRE(pool.allocate(1, Allocation::packed) == std::vector<NodeRange>{{3, 1}});
  // 6 cores: one whole free node (node 2), and 2 more on the first node with 2 free (node 3).
  REQUIRE(pool.allocate(6, Allocation::packed) == std::vector<NodeRange>{{8, 4}, {12, 2}});
  REQUIRE(pool.free() == 3);  // core 7 on node 1, cores 14-15 on node 3
  // 3 cores are free, but no node has 3: a packed job of 3 cannot start, any would split it.
  REQUIRE_FALSE(pool.can_allocate(3, Allocation::packed));
  REQUIRE(pool.allocate(3, Allocation::packed).empty());
  REQUIRE(pool.can_allocate(3, Allocation::any));
  REQUIRE(pool.allocate(2, Allocation::packed) == std::vector<NodeRange>{{14, 2}});
  pool.release({{8, 4}});  // node 2 free again
  REQUIRE(pool.allocate(5, Allocation::packed) == std::vector<NodeRange>{{7, 1}, {8, 4}});
}

TEST_CASE("node pool, shared nodes: random jobs never overbook a node nor split a job that fits one",
          "[unit][policy]") {
  constexpr std::uint32_t kCores = 8, kNodes = 64;
  NodePool pool(kCores * kNodes, kCores);
  RandomStream rng(4, 2);
  std::vector<std::vector<NodeRange>> held;
  std::vector<bool> used(kCores * kNodes, false);
  for (int step = 0; step < 20000; ++step) {
    if (held.empty() || rng.uniform() < 0.5) {
      const auto cores = 1 + static_cast<std::uint32_t>(rng.below(rng.uniform() < 0.8 ? kCores : 4 * kCores));
      auto got = pool.allocate(cores, Allocation::packed);
      std::uint32_t taken = 0;
      std::vector<std::uint32_t> nodes;
      for (const NodeRange& r : got)
        for (std::uint32_t n = r.first; n < r.first + r.count; ++n) {
          REQUIRE_FALSE(used[n]);
          used[n] = true;
          ++taken;
          if (nodes.empty() || nodes.back() != n / kCores) nodes.push_back(n / kCores);
        }
      if (got.empty()) continue;
      REQUIRE(taken == cores);
      REQUIRE(nodes.size() <= (cores + kCores - 1) / kCores + 1);
      if (cores <= kCores) REQUIRE(nodes.size() == 1);
      held.push_back(std::move(got));
    } else {
      const std::size_t k = rng.below(held.size());
      for (const NodeRange& r : held[k])
        for (std::uint32_t n = r.first; n < r.first + r.count; ++n) used[n] = false;
      pool.release(held[k]);
      held[k] = held.back();
      held.pop_back();
    }
  }
  for (const auto& h : held) pool.release(h);
  REQUIRE(pool == NodePool(kCores * kNodes, kCores));  // every node's count back to whole
}
