#include "tracewarp/model/replication/walk_draws.hpp"

#include "tracewarp/core/portable_math.hpp"

#include <cmath>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TRACEWARP_X86_KERNELS 1
#endif

namespace tracewarp::replication {
namespace {

using u64 = std::uint64_t;

// The walk's stream: the top key word is tagged so that it never meets the RandomStream of the same
// seed and LP.
constexpr std::uint32_t kWalkTag = 0x57a1c0deu;
// Philox4x32's key increments (Weyl constants).
constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;
// Its multipliers.
constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;

// Philox4x32-10 (Salmon et al., SC 2011) on kWalkBatch counters at once, in plain C++: each 32-bit
// word is held in a 64-bit lane, so that a round's two 32 x 32 -> 64-bit products are plain 64-bit
// multiplies. The same bits as r123::Philox4x32 (tests/policy/test_replication_policies.cpp).
[[gnu::always_inline]] inline void philox_blocks(const WalkKey& key, u64 first_step, u64 (&out)[4][kWalkBatch]) {
  u64 c0[kWalkBatch], c1[kWalkBatch], c2[kWalkBatch], c3[kWalkBatch];
  for (int i = 0; i < kWalkBatch; ++i) {
    const u64 n = first_step + static_cast<u64>(i);
    c0[i] = n & 0xffffffffu;
    c1[i] = n >> 32;
    c2[i] = key.host & 0xffffffffu;
    c3[i] = key.host >> 32;
  }
  u64 k0 = key.seed & 0xffffffffu, k1 = (key.seed >> 32) ^ kWalkTag;
  for (int round = 0; round < 10; ++round) {
#pragma GCC unroll 1  // unrolled, the lanes would no longer be a loop to vectorise
    for (int i = 0; i < kWalkBatch; ++i) {
      const u64 p0 = (c0[i] & 0xffffffffu) * kPhiloxM0, p1 = (c2[i] & 0xffffffffu) * kPhiloxM1;
      const u64 next0 = (p1 >> 32) ^ c1[i] ^ k0, next2 = (p0 >> 32) ^ c3[i] ^ k1;
      c1[i] = p1 & 0xffffffffu;
      c3[i] = p0 & 0xffffffffu;
      c0[i] = next0;
      c2[i] = next2;
    }
    k0 = (k0 + kPhiloxW0) & 0xffffffffu;
    k1 = (k1 + kPhiloxW1) & 0xffffffffu;
  }
  for (int i = 0; i < kWalkBatch; ++i) {
    out[0][i] = c0[i];
    out[1][i] = c1[i];
    out[2][i] = c2[i];
    out[3][i] = c3[i];
  }
}

// A 53-bit integer from two 32-bit words (the top 53 of their 64), as a double.
[[gnu::always_inline]] inline double top_53_bits(u64 hi, u64 lo) {
  const u64 bits = ((hi << 32) | lo) >> 11;
  return portable::small_to_double(bits >> 32) * 0x1p32 + portable::small_to_double(bits & 0xffffffffu);
}

// Box-Muller on the blocks' words, lane by lane (a loop the compiler vectorises).
[[gnu::always_inline]] inline void normals_of_blocks(const u64 (&r)[4][kWalkBatch], StepNormals& out) {
  for (int i = 0; i < kWalkBatch; ++i) {
    // Uniforms in (0, 1] and [0, 1); Box-Muller gives two independent normals.
    const double u1 = (top_53_bits(r[0][i], r[1][i]) + 1) * 0x1.0p-53;
    const double u2 = top_53_bits(r[2][i], r[3][i]) * 0x1.0p-53;
    const double radius = std::sqrt(-2 * portable::log_positive_normal(u1));
    const portable::SinCos angle = portable::sin_cos_of_turns(u2);
    out.u[i] = radius * angle.cos;
    out.w[i] = radius * angle.sin;
  }
}

void draw_portable(const WalkKey& key, u64 first_step, StepNormals& out) {
  u64 blocks[4][kWalkBatch];
  philox_blocks(key, first_step, blocks);
  normals_of_blocks(blocks, out);
}

#if TRACEWARP_X86_KERNELS
// The same rounds with the products written out as the vector unit's 32 x 32 -> 64-bit multiply:
// the compiler does not see that the portable loop's operands fit 32 bits, and builds each product
// from shifts and adds (the portable loop's blocks cost 2.3x these with AVX-512).
// GCC 12's own header trips -Wuninitialized in _mm512_set1_epi64 (a false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
[[gnu::target("avx512f")]] void draw_avx512(const WalkKey& key, u64 first_step, StepNormals& out) {
  const __m512i low_word = _mm512_set1_epi64(0xffffffffll);
  const __m512i step =
      _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(first_step)), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
  __m512i c0 = _mm512_and_si512(step, low_word), c1 = _mm512_srli_epi64(step, 32);
  __m512i c2 = _mm512_set1_epi64(static_cast<long long>(key.host & 0xffffffffu));
  __m512i c3 = _mm512_set1_epi64(static_cast<long long>(key.host >> 32));
  const __m512i m0 = _mm512_set1_epi64(kPhiloxM0), m1 = _mm512_set1_epi64(kPhiloxM1);
  std::uint32_t k0 = static_cast<std::uint32_t>(key.seed), k1 = static_cast<std::uint32_t>(key.seed >> 32) ^ kWalkTag;
  for (int round = 0; round < 10; ++round) {
    const __m512i p0 = _mm512_mul_epu32(c0, m0), p1 = _mm512_mul_epu32(c2, m1);
    const __m512i next0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p1, 32), c1), _mm512_set1_epi64(k0));
    const __m512i next2 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p0, 32), c3), _mm512_set1_epi64(k1));
    c1 = _mm512_and_si512(p1, low_word);
    c3 = _mm512_and_si512(p0, low_word);
    c0 = next0;
    c2 = next2;
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
  u64 blocks[4][kWalkBatch];
  _mm512_storeu_si512(blocks[0], c0);
  _mm512_storeu_si512(blocks[1], c1);
  _mm512_storeu_si512(blocks[2], c2);
  _mm512_storeu_si512(blocks[3], c3);
  normals_of_blocks(blocks, out);
}
#pragma GCC diagnostic pop

// Eight lanes as two halves of four.
[[gnu::target("avx2")]] void draw_avx2(const WalkKey& key, u64 first_step, StepNormals& out) {
  const __m256i low_word = _mm256_set1_epi64x(0xffffffffll);
  const __m256i m0 = _mm256_set1_epi64x(kPhiloxM0), m1 = _mm256_set1_epi64x(kPhiloxM1);
  __m256i c0[2], c1[2], c2[2], c3[2];
  for (int h = 0; h < 2; ++h) {
    const __m256i step = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<long long>(first_step)),
                                          _mm256_set_epi64x(4 * h + 3, 4 * h + 2, 4 * h + 1, 4 * h));
    c0[h] = _mm256_and_si256(step, low_word);
    c1[h] = _mm256_srli_epi64(step, 32);
    c2[h] = _mm256_set1_epi64x(static_cast<long long>(key.host & 0xffffffffu));
    c3[h] = _mm256_set1_epi64x(static_cast<long long>(key.host >> 32));
  }
  std::uint32_t k0 = static_cast<std::uint32_t>(key.seed), k1 = static_cast<std::uint32_t>(key.seed >> 32) ^ kWalkTag;
  for (int round = 0; round < 10; ++round) {
    const __m256i key0 = _mm256_set1_epi64x(k0), key1 = _mm256_set1_epi64x(k1);
    for (int h = 0; h < 2; ++h) {
      const __m256i p0 = _mm256_mul_epu32(c0[h], m0), p1 = _mm256_mul_epu32(c2[h], m1);
      const __m256i next0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), c1[h]), key0);
      const __m256i next2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), c3[h]), key1);
      c1[h] = _mm256_and_si256(p1, low_word);
      c3[h] = _mm256_and_si256(p0, low_word);
      c0[h] = next0;
      c2[h] = next2;
    }
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
  u64 blocks[4][kWalkBatch];
  for (int h = 0; h < 2; ++h) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(&blocks[0][4 * h]), c0[h]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(&blocks[1][4 * h]), c1[h]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(&blocks[2][4 * h]), c2[h]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(&blocks[3][4 * h]), c3[h]);
  }
  normals_of_blocks(blocks, out);
}
#endif

std::vector<WalkKernel> kernels_of_this_cpu() {
  std::vector<WalkKernel> kernels{{"portable", draw_portable}};
#if TRACEWARP_X86_KERNELS
  if (__builtin_cpu_supports("avx2")) kernels.push_back({"avx2", draw_avx2});
  if (__builtin_cpu_supports("avx512f")) kernels.push_back({"avx512", draw_avx512});
#endif
  return kernels;
}

}  // namespace

std::span<const WalkKernel> walk_kernels() {
  static const std::vector<WalkKernel> kernels = kernels_of_this_cpu();
  return kernels;
}

}  // namespace tracewarp::replication
