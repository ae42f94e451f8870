// Elementary functions from IEEE-754 additions, multiplications, divisions and integer bit
// operations alone: the same bits on every machine, whatever its C library, and in every vector
// width.
//
// The C library's `log` and `sin`/`cos` are the one source of difference left between machines
// (docs/results.md): glibc picks an FMA or an SSE2 build of each at run time, and other
// libraries round differently. The functions here give up correct rounding (they are within two
// units in the last place: tests/unit/test_portable_math.cpp measures it) for that
// reproducibility. They have no branches, no table and no integer-double conversion the
// baseline x86-64 vector unit lacks, so that a loop over them vectorises: the replication model's
// walk draws eight steps at once with them. The build turns off contraction (-ffp-contract=off),
// so no compiler fuses `a * b + c` here, in any width.
//
// The reductions are Cody and Waite's; the polynomials are the minimax ones published with fdlibm
// (Sun Microsystems, 1993).
#pragma once

#include <bit>
#include <cstdint>

namespace tracewarp::portable {

// An integer below 2^52 as a double, exactly: its bits under the exponent of 2^52.
[[gnu::always_inline]] inline double small_to_double(std::uint64_t x) {
  return std::bit_cast<double>(x | 0x4330000000000000ull) - 0x1p52;
}

// Natural logarithm of a positive, normal, finite x. Zeros, subnormals, infinities and NaNs are
// outside its domain and are not checked, so that it stays branch-free.
[[gnu::always_inline]] inline double log_positive_normal(double x) {
  // x = 2^k m with m in [sqrt(2)/2, sqrt(2)); log(m) = log(1 + f), f = m - 1, from s = f / (2 + f):
  // log(1 + f) = f - (f^2/2 - s (f^2/2 + R(s^2))).
  constexpr std::uint64_t half_sqrt2 = 0x3fe6a09e667f3bcdull;
  // Adding 1's bits less sqrt(2)/2's carries a mantissa at or above sqrt(2)'s into the exponent.
  const std::uint64_t shifted = std::bit_cast<std::uint64_t>(x) + (0x3ff0000000000000ull - half_sqrt2);
  const double k = small_to_double(shifted >> 52) - 1023.0;
  const double m = std::bit_cast<double>((shifted & 0x000fffffffffffffull) + half_sqrt2);
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s, w = z * z;
  constexpr double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01, lg3 = 2.857142874366239149e-01,
                   lg4 = 2.222219843214978396e-01, lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01,
                   lg7 = 1.479819860511658591e-01;
  const double r = w * (lg2 + w * (lg4 + w * lg6)) + z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
  const double half_f2 = 0.5 * f * f;
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;  // hi: 32 bits
  return k * ln2_hi - ((half_f2 - (s * (half_f2 + r) + k * ln2_lo)) - f);
}

struct SinCos {
  double sin, cos;
};

// sin(2 pi t) and cos(2 pi t) for t in [0, 1), a fraction of a turn as a uniform draw gives it.
// Reducing to within an eighth of a turn is exact: t * 4 and its distance from the nearest
// integer are representable, so the result is accurate near every zero, unlike sin(2 * pi * t).
[[gnu::always_inline]] inline SinCos sin_cos_of_turns(double t) {
  const double quarters = t * 4.0;           // in [0, 4)
  const double rounded = quarters + 0x1p52;  // the nearest integer q, in the low bits
  const auto q = std::bit_cast<std::uint64_t>(rounded);
  const double f = quarters - (rounded - 0x1p52);  // exact, in [-1/2, 1/2]
  constexpr double half_pi_hi = 1.57079632679489655800e+00, half_pi_lo = 6.12323399573676603587e-17;
  const double a = f * half_pi_hi + f * half_pi_lo;  // in [-pi/4, pi/4]
  const double z = a * a;
  constexpr double s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03, s3 = -1.98412698298579493134e-04,
                   s4 = 2.75573137070700676789e-06, s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10;
  constexpr double c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03, c3 = 2.48015872894767294178e-05,
                   c4 = -2.75573143513906633035e-07, c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11;
  const double sin_a = a + a * z * (s1 + z * (s2 + z * (s3 + z * (s4 + z * (s5 + z * s6)))));
  // 1 - z/2 loses up to a bit as z/2 nears 0.3; adding back its rounding error keeps cos near an
  // ulp, as fdlibm's kernel does.
  const double half_z = 0.5 * z, one_minus = 1.0 - half_z;
  const double cos_a =
      one_minus + (((1.0 - one_minus) - half_z) + z * z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6))))));
  // sin and cos of a + q pi/2: swapped for odd q, sin negated for q = 2, 3 and cos for q = 1, 2,
  // with masks rather than branches.
  const std::uint64_t swap = 0 - (q & 1);
  const auto sin_bits = std::bit_cast<std::uint64_t>(sin_a), cos_bits = std::bit_cast<std::uint64_t>(cos_a);
  const std::uint64_t sin_q = (sin_bits & ~swap) | (cos_bits & swap), cos_q = (cos_bits & ~swap) | (sin_bits & swap);
  return {std::bit_cast<double>(sin_q ^ ((q & 2) << 62)), std::bit_cast<double>(cos_q ^ (((q + 1) & 2) << 62))};
}

}  // namespace tracewarp::portable
