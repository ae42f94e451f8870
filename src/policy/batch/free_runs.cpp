#include "free_runs.hpp"

#include "tracewarp/core/error.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TRACEWARP_X86_KERNELS 1
#endif

namespace tracewarp::batch::detail {
namespace {

// Most segments are used somewhere in the window: the first inner loop passes them with one
// test each, the second extends a free run. The longest run stays in a register.
FreeRunResult search_portable(std::span<const LineSegment> line, std::size_t start, std::uint32_t nodes,
                              const FreeRunQuery& q) {
  const LineSegment* s = line.data() + start;
  const LineSegment* const end = line.data() + line.size();
  const std::uint64_t mask = q.window;
  std::uint32_t best = 0;
  for (;;) {
    // Four at a time while four remain: one end test per four segments.
    while (end - s >= 4 && (s[0].used & mask) != 0 && (s[1].used & mask) != 0 && (s[2].used & mask) != 0 &&
           (s[3].used & mask) != 0)
      s += 4;
    while (s != end && (s->used & mask) != 0) ++s;
    if (s == end) break;
    const std::uint32_t run_first = std::max(s->first, q.from);
    do ++s;
    while (s != end && (s->used & mask) == 0);
    const std::uint32_t run = (s == end ? nodes : s->first) - run_first;
    if (run >= q.count) return {run_first, 0};
    best = std::max(best, run);
  }
  return {-1, best};
}

#if TRACEWARP_X86_KERNELS
static_assert(sizeof(LineSegment) == 16 && offsetof(LineSegment, used) == 8,
              "the AVX-512 kernel reads segments as pairs of 64-bit words");

// Eight segments per step, every step the same instructions: which are free (a bit each),
// where runs start and end among them, each lane's latest run start (a prefix maximum), and the
// length of every run that ends there. Branching per segment, as the portable kernel does,
// mispredicts at every run boundary, and scans meet a boundary every 16 segments or so. A
// segment past the end of the line stands at node `nodes`, used throughout, and ends the last run.
// (GCC 12's AVX-512 headers fill lanes from an "undefined" register, which it then warns about.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
[[gnu::target("avx512f")]] FreeRunResult search_avx512(std::span<const LineSegment> line, std::size_t start,
                                                       std::uint32_t nodes, const FreeRunQuery& q) {
  const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i low32 = _mm512_set1_epi64(0xffffffff), all = _mm512_set1_epi64(-1), zero = _mm512_setzero_si512();
  const __m512i window = _mm512_set1_epi64(static_cast<long long>(q.window)), need = _mm512_set1_epi64(q.count);
  const __m512i from = _mm512_set1_epi64(q.from), line_end = _mm512_set1_epi64(nodes);
  const __m512i last_lane = _mm512_set1_epi64(7);
  const auto* const bytes = reinterpret_cast<const unsigned char*>(line.data());
  const std::size_t n = line.size();
  __m512i longest = zero, carried = zero;  // carried: the latest run start in earlier steps
  unsigned in_run = 0;                     // whether the segment before this step is free
  for (std::size_t i = start; i <= n; i += 8) {
    const std::size_t left = n - i;
    const unsigned char* at = bytes + 16 * i;
    __m512i lo, hi;  // segments i..i+3 and i+4..i+7, two 64-bit words each
    __mmask8 real = 0xff;
    if (left >= 8) {
      lo = _mm512_loadu_si512(at);
      hi = _mm512_loadu_si512(at + 64);
    } else {  // masked loads read nothing past the line
      real = static_cast<__mmask8>((1u << left) - 1);
      lo = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(left >= 4 ? 0xffu : (1u << (2 * left)) - 1), at);
      hi = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(left > 4 ? (1u << (2 * (left - 4))) - 1 : 0u), at + 64);
    }
    const __m512i used = _mm512_mask_mov_epi64(all, real, _mm512_permutex2var_epi64(lo, odd, hi));
    const __m512i first =
        _mm512_mask_mov_epi64(line_end, real, _mm512_and_si512(_mm512_permutex2var_epi64(lo, even, hi), low32));
    const unsigned free_bits = _mm512_testn_epi64_mask(used, window);
    const unsigned before = (free_bits << 1 | in_run) & 0xffu;  // bit j: segment j - 1 is free
    const auto starts = static_cast<__mmask8>(free_bits & ~before), ends = static_cast<__mmask8>(~free_bits & before);
    // The prefix maximum is taken within the step, and only then with the run carried in, so
    // that consecutive steps depend on each other through one instruction.
    __m512i latest = _mm512_maskz_max_epu64(starts, first, from);
    latest = _mm512_max_epu64(latest, _mm512_alignr_epi64(latest, zero, 7));
    latest = _mm512_max_epu64(latest, _mm512_alignr_epi64(latest, zero, 6));
    latest = _mm512_max_epu64(latest, _mm512_alignr_epi64(latest, zero, 4));
    const __m512i run_first = _mm512_max_epu64(latest, carried);
    const __m512i length = _mm512_sub_epi64(first, run_first);
    if (const unsigned fit = _mm512_mask_cmpge_epu64_mask(ends, length, need); fit != 0) {
      alignas(64) std::uint64_t firsts[8];
      _mm512_store_si512(firsts, run_first);
      return {static_cast<std::int64_t>(firsts[std::countr_zero(fit)]), 0};
    }
    longest = _mm512_mask_max_epu64(longest, ends, longest, length);
    carried = _mm512_max_epu64(carried, _mm512_permutexvar_epi64(last_lane, latest));
    in_run = free_bits >> 7 & 1u;
  }
  return {-1, static_cast<std::uint32_t>(_mm512_reduce_max_epu64(longest))};
}
#pragma GCC diagnostic pop

// The same steps with AVX2 (x86-64 CPUs from 2013 on, among them those without AVX-512): the
// used words are tested four at a time and, with the first nodes, gathered into eight 32-bit
// lanes. The last, partial step reads a copy of the line's tail padded with segments at node
// `nodes`, used throughout.
[[gnu::target("avx2")]] FreeRunResult search_avx2(std::span<const LineSegment> line, std::size_t start,
                                                  std::uint32_t nodes, const FreeRunQuery& q) {
  const auto window_word = static_cast<long long>(q.window);
  const __m256i window = _mm256_set_epi64x(window_word, 0, window_word, 0);  // the used words of two segments
  const __m256i zero = _mm256_setzero_si256(), lane_bit = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
  const __m256i in_order = _mm256_set_epi32(7, 3, 6, 2, 5, 1, 4, 0);
  const __m256i up1 = _mm256_set_epi32(6, 5, 4, 3, 2, 1, 0, 0), up2 = _mm256_set_epi32(5, 4, 3, 2, 1, 0, 0, 0);
  const __m256i up4 = _mm256_set_epi32(3, 2, 1, 0, 0, 0, 0, 0), last_lane = _mm256_set1_epi32(7);
  const __m256i need = _mm256_set1_epi32(static_cast<int>(q.count)), from = _mm256_set1_epi32(static_cast<int>(q.from));
  const std::size_t n = line.size();
  LineSegment tail[8];
  __m256i longest = zero, carried = zero;
  unsigned in_run = 0;
  for (std::size_t i = start; i <= n; i += 8) {
    const LineSegment* block = line.data() + i;
    if (n - i < 8) {
      for (std::size_t k = 0; k < 8; ++k) tail[k] = i + k < n ? line[i + k] : LineSegment{nodes, ~std::uint64_t{0}};
      block = tail;
    }
    // Per pair of segments, dwords [first, pad, used lo, used hi] x 2; the used dwords become
    // all ones where the segment is free in the window.
    __m256 pair[4];
    for (int k = 0; k < 4; ++k) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2 * k));
      const __m256i is_free = _mm256_cmpeq_epi64(_mm256_and_si256(v, window), zero);
      pair[k] = _mm256_castsi256_ps(_mm256_blend_epi32(v, is_free, 0b11001100));
    }
    const __m256 p01 = _mm256_shuffle_ps(pair[0], pair[1], 0b10001000);  // first, free, first, free
    const __m256 p23 = _mm256_shuffle_ps(pair[2], pair[3], 0b10001000);
    const __m256i first =
        _mm256_permutevar8x32_epi32(_mm256_castps_si256(_mm256_shuffle_ps(p01, p23, 0b10001000)), in_order);
    const __m256 free_lanes = _mm256_permutevar8x32_ps(_mm256_shuffle_ps(p01, p23, 0b11011101), in_order);
    const auto free_bits = static_cast<unsigned>(_mm256_movemask_ps(free_lanes));
    const unsigned before = (free_bits << 1 | in_run) & 0xffu;  // bit j: segment j - 1 is free
    // All ones in lane j where bit j is set (a lambda would not be compiled for AVX2).
    const __m256i start_bits = _mm256_set1_epi32(static_cast<int>(free_bits & ~before));
    const __m256i end_bits = _mm256_set1_epi32(static_cast<int>(~free_bits & before));
    const __m256i starts = _mm256_cmpeq_epi32(_mm256_and_si256(start_bits, lane_bit), lane_bit);
    const __m256i ends = _mm256_cmpeq_epi32(_mm256_and_si256(end_bits, lane_bit), lane_bit);
    __m256i latest = _mm256_and_si256(starts, _mm256_max_epu32(first, from));
    latest = _mm256_max_epu32(latest, _mm256_permutevar8x32_epi32(latest, up1));  // lane 0 meets itself
    latest = _mm256_max_epu32(latest, _mm256_permutevar8x32_epi32(latest, up2));
    latest = _mm256_max_epu32(latest, _mm256_permutevar8x32_epi32(latest, up4));
    const __m256i run_first = _mm256_max_epu32(latest, carried);
    const __m256i length = _mm256_sub_epi32(first, run_first);
    const __m256i long_enough = _mm256_cmpeq_epi32(_mm256_max_epu32(length, need), length);
    if (const auto fit =
            static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(long_enough, ends))));
        fit != 0) {
      alignas(32) std::uint32_t firsts[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(firsts), run_first);
      return {firsts[std::countr_zero(fit)], 0};
    }
    longest = _mm256_max_epu32(longest, _mm256_and_si256(length, ends));
    carried = _mm256_max_epu32(carried, _mm256_permutevar8x32_epi32(latest, last_lane));
    in_run = free_bits >> 7 & 1u;
  }
  alignas(32) std::uint32_t lengths[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lengths), longest);
  return {-1, *std::max_element(lengths, lengths + 8)};
}
#endif

std::vector<FreeRunKernel> kernels_of_this_cpu() {
  std::vector<FreeRunKernel> kernels{{"portable", search_portable}};
#if TRACEWARP_X86_KERNELS
  if (__builtin_cpu_supports("avx2")) kernels.push_back({"avx2", search_avx2});
  if (__builtin_cpu_supports("avx512f")) kernels.push_back({"avx512", search_avx512});
#endif
  return kernels;
}

FreeRunSearch kernel_named_by_environment() {
  const std::span<const FreeRunKernel> kernels = free_run_kernels();
  const char* const name = std::getenv("TRACEWARP_FREE_RUNS");
  if (name == nullptr || *name == '\0') return kernels.back().search;
  std::string names;
  for (const FreeRunKernel& k : kernels) {
    if (k.name == std::string_view(name)) return k.search;
    names += std::string(names.empty() ? "" : ", ") + k.name;
  }
  throw ConfigError("TRACEWARP_FREE_RUNS=" + std::string(name) + ": this CPU runs the free-run kernels " + names);
}

}  // namespace

std::span<const FreeRunKernel> free_run_kernels() {
  static const std::vector<FreeRunKernel> kernels = kernels_of_this_cpu();
  return kernels;
}

FreeRunSearch chosen_free_run_search() {
  static const FreeRunSearch chosen = kernel_named_by_environment();
  return chosen;
}

}  // namespace tracewarp::batch::detail
