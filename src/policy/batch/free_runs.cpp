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
FreeRunResult search_portable(const FreeRunLine& line, std::size_t start, const FreeRunQuery& q) {
  const std::uint64_t* const used = line.used;
  const std::size_t n = line.size;
  const std::uint64_t mask = q.window;
  std::size_t s = start;
  std::uint32_t best = 0;
  for (;;) {
    // Four at a time while four remain: one end test per four segments.
    while (n - s >= 4 && (used[s] & mask) != 0 && (used[s + 1] & mask) != 0 && (used[s + 2] & mask) != 0 &&
           (used[s + 3] & mask) != 0)
      s += 4;
    while (s != n && (used[s] & mask) != 0) ++s;
    if (s == n) break;
    const std::uint32_t run_first = std::max(line.firsts[s], q.from);
    do ++s;
    while (s != n && (used[s] & mask) == 0);
    const std::uint32_t run = (s == n ? line.nodes : line.firsts[s]) - run_first;
    if (run >= q.count) return {run_first, 0};
    best = std::max(best, run);
  }
  return {-1, best};
}

#if TRACEWARP_X86_KERNELS
// The vector kernels take a step of segments at a time, every step the same instructions
// whatever the segments hold: a bit per segment free in the window; the run starts and ends
// among them (from the bits and the last step's last bit); in each lane the latest run start, a
// prefix maximum; the length of each run that ends there, compared with the count; and a running
// maximum of those lengths, the "longest free run" a failed search reports. Branching per
// segment, as the portable kernel does, mispredicts at every run boundary, and the K computer's
// searches meet one every 16 segments or so. The prefix maximum is taken within the step and only
// then combined with the run carried in, so consecutive steps depend on each other through one
// instruction. Segments past the end of the line stand at node `nodes`, used throughout: the
// first of them ends the last run.
// (GCC 12's AVX-512 headers fill lanes from an "undefined" register, which it then warns about.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
[[gnu::target("avx512f")]] FreeRunResult search_avx512(const FreeRunLine& line, std::size_t start,
                                                       const FreeRunQuery& q) {
  // Sixteen segments a step: used words in two 512-bit registers, first nodes in one.
  const __m512i window = _mm512_set1_epi64(static_cast<long long>(q.window)), all = _mm512_set1_epi64(-1);
  const __m512i zero = _mm512_setzero_si512(), last_lane = _mm512_set1_epi32(15);
  const __m512i need = _mm512_set1_epi32(static_cast<int>(q.count)), from = _mm512_set1_epi32(static_cast<int>(q.from));
  const __m512i line_end = _mm512_set1_epi32(static_cast<int>(line.nodes));
  const std::size_t n = line.size;
  __m512i longest = zero, carried = zero;  // carried: the latest run start in earlier steps
  unsigned in_run = 0;                     // whether the segment before this step is free
  for (std::size_t i = start; i <= n; i += 16) {
    __m512i used_low, used_high, first;
    if (n - i >= 16) {
      used_low = _mm512_loadu_si512(line.used + i);
      used_high = _mm512_loadu_si512(line.used + i + 8);
      first = _mm512_loadu_si512(line.firsts + i);
    } else {  // masked loads read nothing past the line
      const auto real = static_cast<__mmask16>((1u << (n - i)) - 1);
      used_low = _mm512_mask_loadu_epi64(all, static_cast<__mmask8>(real), line.used + i);
      used_high = _mm512_mask_loadu_epi64(all, static_cast<__mmask8>(real >> 8), line.used + i + 8);
      first = _mm512_mask_loadu_epi32(line_end, real, line.firsts + i);
    }
    const unsigned free_bits = static_cast<unsigned>(_mm512_testn_epi64_mask(used_low, window)) |
                               static_cast<unsigned>(_mm512_testn_epi64_mask(used_high, window)) << 8;
    const unsigned before = (free_bits << 1 | in_run) & 0xffffu;  // bit j: segment j - 1 is free
    const auto starts = static_cast<__mmask16>(free_bits & ~before), ends = static_cast<__mmask16>(~free_bits & before);
    __m512i latest = _mm512_maskz_max_epu32(starts, first, from);
    latest = _mm512_max_epu32(latest, _mm512_alignr_epi32(latest, zero, 15));
    latest = _mm512_max_epu32(latest, _mm512_alignr_epi32(latest, zero, 14));
    latest = _mm512_max_epu32(latest, _mm512_alignr_epi32(latest, zero, 12));
    latest = _mm512_max_epu32(latest, _mm512_alignr_epi32(latest, zero, 8));
    const __m512i run_first = _mm512_max_epu32(latest, carried);
    const __m512i length = _mm512_sub_epi32(first, run_first);
    if (const unsigned fit = _mm512_mask_cmpge_epu32_mask(ends, length, need); fit != 0) {
      alignas(64) std::uint32_t firsts[16];
      _mm512_store_si512(firsts, run_first);
      return {firsts[std::countr_zero(fit)], 0};
    }
    longest = _mm512_mask_max_epu32(longest, ends, longest, length);
    carried = _mm512_max_epu32(carried, _mm512_permutexvar_epi32(last_lane, latest));
    in_run = free_bits >> 15 & 1u;
  }
  return {-1, _mm512_reduce_max_epu32(longest)};
}
// The segment holding `node`: halving while more than 64 candidates remain, then counting those
// at or below it, sixteen to a compare, instead of six more halvings that each wait on a load.
[[gnu::target("avx512f")]] std::size_t locate_avx512(const std::uint32_t* firsts, std::size_t size,
                                                     std::uint32_t node) {
  std::size_t n = size;
  const std::uint32_t* const base = halve_towards(firsts, n, node, 64);
  const __m512i key = _mm512_set1_epi32(static_cast<int>(node));
  std::size_t at_or_below = 0;
  for (std::size_t i = 0; i < n; i += 16) {
    const auto real = static_cast<__mmask16>(n - i >= 16 ? 0xffffu : (1u << (n - i)) - 1);
    const __m512i x = _mm512_maskz_loadu_epi32(real, base + i);
    at_or_below +=
        static_cast<std::size_t>(std::popcount(static_cast<unsigned>(_mm512_mask_cmple_epu32_mask(real, x, key))));
  }
  return static_cast<std::size_t>(base - firsts) + at_or_below - 1;
}
#pragma GCC diagnostic pop

// Eight segments a step (AVX2, x86-64 CPUs from 2013 on, among them those without AVX-512): used
// words tested four at a time, first nodes in 32-bit lanes. The last, partial step reads a copy
// of the line's tail.
[[gnu::target("avx2")]] FreeRunResult search_avx2(const FreeRunLine& line, std::size_t start, const FreeRunQuery& q) {
  const __m256i window = _mm256_set1_epi64x(static_cast<long long>(q.window));
  const __m256i zero = _mm256_setzero_si256(), lane_bit = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
  const __m256i up1 = _mm256_set_epi32(6, 5, 4, 3, 2, 1, 0, 0), up2 = _mm256_set_epi32(5, 4, 3, 2, 1, 0, 0, 0);
  const __m256i up4 = _mm256_set_epi32(3, 2, 1, 0, 0, 0, 0, 0), last_lane = _mm256_set1_epi32(7);
  const __m256i need = _mm256_set1_epi32(static_cast<int>(q.count)), from = _mm256_set1_epi32(static_cast<int>(q.from));
  const std::size_t n = line.size;
  std::uint32_t tail_firsts[8];
  std::uint64_t tail_used[8];
  __m256i longest = zero, carried = zero;
  unsigned in_run = 0;
  for (std::size_t i = start; i <= n; i += 8) {
    const std::uint32_t* firsts = line.firsts + i;
    const std::uint64_t* used = line.used + i;
    if (n - i < 8) {
      for (std::size_t k = 0; k < 8; ++k) {
        tail_firsts[k] = i + k < n ? line.firsts[i + k] : line.nodes;
        tail_used[k] = i + k < n ? line.used[i + k] : ~std::uint64_t{0};
      }
      firsts = tail_firsts;
      used = tail_used;
    }
    const __m256i free_low =
        _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(used)), window), zero);
    const __m256i free_high = _mm256_cmpeq_epi64(
        _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(used + 4)), window), zero);
    // The low dword of each 64-bit result: lanes [0, 1, 4, 5 | 2, 3, 6, 7], then in order.
    const __m256 halves = _mm256_shuffle_ps(_mm256_castsi256_ps(free_low), _mm256_castsi256_ps(free_high), 0b10001000);
    const __m256 free_lanes = _mm256_castsi256_ps(_mm256_permute4x64_epi64(_mm256_castps_si256(halves), 0b11011000));
    const __m256i first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(firsts));
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
      alignas(32) std::uint32_t run_firsts[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(run_firsts), run_first);
      return {run_firsts[std::countr_zero(fit)], 0};
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
  std::vector<FreeRunKernel> kernels{{"portable", search_portable, nullptr}};
#if TRACEWARP_X86_KERNELS
  if (__builtin_cpu_supports("avx2")) kernels.push_back({"avx2", search_avx2, nullptr});
  if (__builtin_cpu_supports("avx512f")) kernels.push_back({"avx512", search_avx512, locate_avx512});
#endif
  return kernels;
}

const FreeRunKernel& kernel_named_by_environment() {
  const std::span<const FreeRunKernel> kernels = free_run_kernels();
  const char* const name = std::getenv("TRACEWARP_FREE_RUNS");
  if (name == nullptr || *name == '\0') return kernels.back();
  std::string names;
  for (const FreeRunKernel& k : kernels) {
    if (k.name == std::string_view(name)) return k;
    names += std::string(names.empty() ? "" : ", ") + k.name;
  }
  throw ConfigError("TRACEWARP_FREE_RUNS=" + std::string(name) + ": this CPU runs the free-run kernels " + names);
}

}  // namespace

std::span<const FreeRunKernel> free_run_kernels() {
  static const std::vector<FreeRunKernel> kernels = kernels_of_this_cpu();
  return kernels;
}

const FreeRunKernel& chosen_free_run_kernel() {
  static const FreeRunKernel& chosen = kernel_named_by_environment();
  return chosen;
}

}  // namespace tracewarp::batch::detail
