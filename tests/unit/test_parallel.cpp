#include <catch2/catch.hpp>

#include <tbb/global_control.h>

#include <cmath>

#include "tracewarp/core/parallel.hpp"

using namespace tracewarp;

TEST_CASE("deterministic reduce and argmax give the same answer on 1 and 4 threads", "[unit][parallel]") {
  const auto score = [](std::size_t i) { return std::sin(static_cast<double>(i) * 0.37) * 1e6; };
  const auto sum_with = [&](std::size_t threads) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    return deterministic_reduce(100000, 0.0, score, std::plus<>{}, 64);
  };
  REQUIRE(sum_with(1) == sum_with(4));  // bitwise equal, not approximately

  // Ties go to the lowest index; NaN means "not a candidate".
  const ArgMax tie = deterministic_argmax(
      10, [](std::size_t i) { return i == 3 || i == 7 ? 5.0 : 1.0; }, 2);
  REQUIRE(tie.index == 3);
  const ArgMax none = deterministic_argmax(10, [](std::size_t) { return std::nan(""); });
  REQUIRE_FALSE(none.found());
}
