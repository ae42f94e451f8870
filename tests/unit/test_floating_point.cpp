#include <catch2/catch.hpp>

#include <cmath>

// The build compiles without floating-point contraction (-ffp-contract=off in CMakeLists.txt), so
// that a build for a CPU with fused multiply-add (-march=native, aarch64) computes the same
// numbers as the default x86-64 build. This test is compiled with the same flags as the library.
TEST_CASE("floating point: a * b + c rounds the product before the sum, whatever the target CPU",
          "[unit][determinism]") {
  // a * b = 1 - 2^-60 exactly, which rounds to 1: the sum is 0 when the product is rounded first
  // and -2^-60 when it is fused with the addition.
  volatile double a = 1.0 + std::ldexp(1.0, -30);
  volatile double b = 1.0 - std::ldexp(1.0, -30);
  volatile double c = -1.0;
  const double x = a, y = b, z = c;
  REQUIRE(x * y + z == 0.0);
  REQUIRE(std::fma(x, y, z) == -std::ldexp(1.0, -60));  // what a fused operation gives
}
