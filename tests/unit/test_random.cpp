#include <catch2/catch.hpp>

#include "tracewarp/core/random.hpp"

using tracewarp::RandomStream;

TEST_CASE("random stream: restoring a saved copy replays the same numbers", "[unit][random]") {
  RandomStream rng(42, 7);
  for (int i = 0; i < 5; ++i) rng.next_u64();
  const RandomStream saved = rng;
  std::vector<std::uint64_t> first;
  for (int i = 0; i < 101; ++i) first.push_back(rng.next_u64());
  rng = saved;
  for (int i = 0; i < 101; ++i) REQUIRE(rng.next_u64() == first[static_cast<std::size_t>(i)]);
  REQUIRE(rng.draws() == saved.draws() + 101);
}

TEST_CASE("random stream: streams differ by seed and by LP", "[unit][random]") {
  RandomStream a(1, 0), b(1, 1), c(2, 0);
  const auto x = a.next_u64();
  REQUIRE(x != b.next_u64());
  REQUIRE(x != c.next_u64());
  REQUIRE(RandomStream(1, 0).next_u64() == x);
}

TEST_CASE("random stream: distributions stay in range and have the right mean", "[unit][random]") {
  RandomStream rng(3, 9);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    REQUIRE(rng.below(10) < 10);
    sum += rng.exponential(2.0);
  }
  REQUIRE(sum / n == Approx(2.0).epsilon(0.02));
}

TEST_CASE("random stream: rewinding to a draw count leaves it as drawing that many from the start", "[unit][random]") {
  for (std::uint64_t back_to : {0, 1, 2, 3, 6, 7}) {
    CAPTURE(back_to);
    RandomStream fresh(5, 9), used(5, 9);
    for (std::uint64_t i = 0; i < back_to; ++i) fresh.next_u64();
    for (int i = 0; i < 11; ++i) used.next_u64();
    used.rewind_to(back_to);
    REQUIRE(used == fresh);  // the whole state, the current block included
    REQUIRE(used.draws() == back_to);
    for (int i = 0; i < 5; ++i) REQUIRE(used.next_u64() == fresh.next_u64());
  }
  RandomStream s(1, 2);
  s.uniform();
  s.rewind_to(s.draws());  // no change
  REQUIRE(s.draws() == 1);
}
