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
