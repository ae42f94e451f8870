#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "engine/kernel.hpp"

using namespace tracewarp;

TEST_CASE("sparse clock: never goes back, and catches up within its longest stride", "[unit][engine]") {
  detail::SparseClock clock;
  double last = clock.seconds();
  for (int i = 0; i < 200000; ++i) {  // fast calls: the stride grows
    const double now = clock.seconds();
    REQUIRE(now >= last);
    last = now;
  }
  const double before_sleep = detail::steady_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  bool caught_up = false;
  for (int i = 0; i < 1024 && !caught_up; ++i) caught_up = clock.seconds() >= before_sleep + 0.003;
  REQUIRE(caught_up);
}
