// The portable log and sin/cos (core/portable_math.hpp): accurate to two units in the last place
// against long double references, exact where the answer is exact, and pure IEEE arithmetic.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "tracewarp/core/portable_math.hpp"
#include "tracewarp/core/random.hpp"

using namespace tracewarp;

namespace {

// |got - reference| in units of the last place of the reference rounded to double.
double ulps(double got, long double reference) {
  const double r = static_cast<double>(reference);
  if (r == 0) return got == 0 ? 0 : 1e300;
  const double ulp = std::nextafter(std::fabs(r), INFINITY) - std::fabs(r);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - reference)) / ulp;
}

// sin and cos of 2 pi t in long double, reduced exactly as the function under test reduces, so that
// the reference's own error (2^-64 relative) stays far below a double's ulp.
struct Reference {
  long double sin, cos;
};
Reference sin_cos_reference(double t) {
  const long double quarters = static_cast<long double>(t) * 4;
  const long double q = std::nearbyint(quarters);
  const long double a = (quarters - q) * 1.570796326794896619231321691639751442L;
  const long double s = std::sin(a), c = std::cos(a);
  switch (static_cast<int>(q) & 3) {
    case 0:
      return {s, c};
    case 1:
      return {c, -s};
    case 2:
      return {-s, -c};
    default:
      return {-c, s};
  }
}

}  // namespace

TEST_CASE("portable log: within an ulp of the true logarithm over (0, 1] and beyond", "[unit][determinism]") {
  RandomStream draws(5, 0);
  double worst = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    // Uniforms as the walk draws them, some scaled far down, some above 1.
    double x = 1.0 - draws.uniform();
    if (i % 3 == 1) x = std::ldexp(x, -static_cast<int>(draws.below(1000)));
    if (i % 3 == 2) x = std::ldexp(x, static_cast<int>(draws.below(1000)));
    worst = std::max(worst, ulps(portable::log_positive_normal(x), std::log(static_cast<long double>(x))));
  }
  CHECK(worst < 1.0);
  CHECK(portable::log_positive_normal(1.0) == 0.0);
  const long double ln2 = std::log(2.0L);
  CHECK(ulps(portable::log_positive_normal(0x1p-53), -53 * ln2) < 1.0);
  CHECK(ulps(portable::log_positive_normal(std::sqrt(2.0)), std::log(static_cast<long double>(std::sqrt(2.0)))) < 1.0);
}

TEST_CASE("portable sin and cos of a fraction of a turn: within two ulps, exact at quarter turns",
          "[unit][determinism]") {
  RandomStream draws(6, 0);
  double worst_sin = 0, worst_cos = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    double t = draws.uniform();
    if (i % 4 == 1) t = std::ldexp(t, -static_cast<int>(draws.below(60)));                         // near 0: tiny sines
    if (i % 4 == 2) t = std::nextafter(std::round(t * 4) / 4, draws.uniform() < 0.5 ? 0.0 : 1.0);  // near zeros
    if (t >= 1.0) continue;
    const portable::SinCos got = portable::sin_cos_of_turns(t);
    const Reference want = sin_cos_reference(t);
    worst_sin = std::max(worst_sin, ulps(got.sin, want.sin));
    worst_cos = std::max(worst_cos, ulps(got.cos, want.cos));
  }
  CHECK(worst_sin < 2.0);
  CHECK(worst_cos < 2.0);
  for (const auto& [t, s, c] : {std::tuple{0.0, 0.0, 1.0}, {0.25, 1.0, 0.0}, {0.5, 0.0, -1.0}, {0.75, -1.0, 0.0}}) {
    const portable::SinCos got = portable::sin_cos_of_turns(t);
    CHECK(got.sin == s);
    CHECK(got.cos == c);
  }
  // Near a zero the reduction is exact, where sin(2 * pi * t) in doubles is not: 2^-40 of a turn
  // short of a half turn has sine 2 pi 2^-40 to within a relative 10^-23.
  const double near_half = 0.5 - 0x1p-40;
  CHECK(portable::sin_cos_of_turns(near_half).sin == Approx(2 * M_PI * 0x1p-40).epsilon(1e-15));
}
