#include <catch2/catch.hpp>

#include "tracewarp/engine/detail/ring.hpp"
#include "tracewarp/engine/event.hpp"

using namespace tracewarp;

TEST_CASE("event keys order by time, then kind, then sender, then sequence", "[unit][event]") {
  const auto k = [](Time t, EventKind kind, LpId sender, std::uint64_t seq) {
    return EventKey::make(t, kind, sender, seq);
  };
  REQUIRE(k(1, 9, 9, 9) < k(2, 0, 0, 0));
  REQUIRE(k(5, 1, 9, 9) < k(5, 2, 0, 0));
  REQUIRE(k(5, 1, 3, 9) < k(5, 1, 4, 0));
  REQUIRE(k(5, 1, 3, 1) < k(5, 1, 3, 2));
  REQUIRE(kMinKey < k(std::numeric_limits<Time>::min() + 1, 0, 0, 0));
  const EventKey key = k(7, 65535, kMaxLps - 1, 3);
  REQUIRE(key.kind() == 65535);
  REQUIRE(key.sender() == kMaxLps - 1);
}

TEST_CASE("ring: grows, wraps and reuses slots in both directions", "[unit][ring]") {
  detail::Ring<std::vector<int>> ring;
  for (int i = 0; i < 10; ++i) ring.push_back({i});
  for (int i = 0; i < 4; ++i) ring.pop_front();
  for (int i = 10; i < 30; ++i) ring.push_back({i});  // wraps, then grows while wrapped
  REQUIRE(ring.size() == 26);
  for (std::size_t i = 0; i < ring.size(); ++i) REQUIRE(ring[i].front() == static_cast<int>(i) + 4);
  ring.truncate(3);
  REQUIRE(ring.back().front() == 6);
  std::vector<int>& reused = ring.push_back_slot();
  REQUIRE(reused.capacity() >= 1);  // the old value's memory is kept for reuse
}
