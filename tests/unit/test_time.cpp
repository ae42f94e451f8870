// Sums of simulated times that a 64-bit count of nanoseconds cannot hold.
#include <catch2/catch.hpp>

#include "tracewarp/core/time.hpp"

using namespace tracewarp;

TEST_CASE("time sum: 10^7 delays of 10^4 s add up exactly, past the range of a Time", "[unit][time]") {
  TimeSum sum;
  const Time delay = from_seconds(std::int64_t{10'000}) + 123;  // and 123 ns
  for (int i = 0; i < 10'000'000; ++i) sum.add(delay);
  CHECK(sum.seconds == 100'000'000'001LL);  // 10^11 s, and 10^7 x 123 ns = 1.23 s
  CHECK(sum.nanoseconds == 230'000'000);
  CHECK(sum.in_seconds() == Approx(1.0000000000123e11).epsilon(1e-15));
  TimeSum other;
  other.add(Time{900'000'000});
  other.add(sum);
  CHECK(other.seconds == 100'000'000'002LL);
  CHECK(other.nanoseconds == 130'000'000);
}
