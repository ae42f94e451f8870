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

TEST_CASE("ring: holds types without a default constructor, and moves", "[unit][ring]") {
  struct Copy {
    explicit Copy(int v) : value(v) {}
    int value;
  };
  detail::Ring<Copy> ring;
  for (int i = 0; i < 5; ++i) ring.push_back(Copy(i));
  ring.pop_front();
  ring.pop_front();
  for (int i = 5; i < 40; ++i) ring.push_back(Copy(i));  // wraps, then grows while wrapped
  REQUIRE(ring.size() == 38);
  for (std::size_t i = 0; i < ring.size(); ++i) REQUIRE(ring[i].value == static_cast<int>(i) + 2);
  detail::Ring<Copy> moved(std::move(ring));
  REQUIRE(moved.size() == 38);
  REQUIRE(moved.back().value == 39);
  REQUIRE(ring.empty());
  ring = std::move(moved);
  REQUIRE(ring.front().value == 2);
}

TEST_CASE("ring: drops many records from the front at once, across the wrap", "[unit][ring]") {
  detail::Ring<int> ring;
  for (int i = 0; i < 8; ++i) ring.push_back(i);
  ring.pop_front(6);
  for (int i = 8; i < 14; ++i) ring.push_back(i);  // the back wraps past the front's old place
  REQUIRE(ring.size() == 8);
  ring.pop_front(5);  // the front wraps too
  REQUIRE(ring.size() == 3);
  for (std::size_t i = 0; i < ring.size(); ++i) REQUIRE(ring[i] == static_cast<int>(i) + 11);
  ring.pop_front(0);
  REQUIRE(ring.front() == 11);
}
