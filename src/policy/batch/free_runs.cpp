#include "free_runs.hpp"

#include "tracewarp/core/error.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TRACEWARP_X86_KERNELS 1
#endif

namespace tracewarp::batch::detail {
namespace {

// Bit k: segment k of the 64 is free in the window. A byte per segment first (a loop compilers
// vectorise, where a bit per segment they do not), then eight bytes of 0 or 1 to eight bits with
// one multiplication.
std::uint64_t free_bits_of_64(const std::uint64_t* used, std::uint64_t window) {
  alignas(8) std::uint8_t is_free[64];
#pragma GCC unroll 8
  for (std::size_t k = 0; k < 64; ++k) is_free[k] = (used[k] & window) == 0;
  std::uint64_t free = 0;
  for (std::size_t b = 0; b < 8; ++b) {
    std::uint64_t eight;
    std::memcpy(&eight, is_free + 8 * b, 8);
    if constexpr (std::endian::native == std::endian::big) eight = __builtin_bswap64(eight);
    free |= (eight * 0x0102040810204080u >> 56) << (8 * b);
  }
  return free;
}

// Sixty-four segments a block: a word of free bits, then a walk over the runs that end in the
// block, from the bit patterns. A branch per segment, as a plain loop takes, mispredicts at
// every run boundary (one every 16 segments or so in the K computer's searches); this walk
// mispredicts about once a block.
FreeRunResult search_portable(const FreeRunLine& line, std::size_t start, const FreeRunQuery& q) {
  const std::size_t n = line.size;
  const auto first_of = [&](std::size_t s) { return s < n ? line.firsts[s] : line.nodes; };
  std::uint32_t best = 0, carried = 0;  // carried: where a run still open at the block's start began
  std::uint64_t in_run = 0;             // whether the segment before the block is free
  for (std::size_t base = start; base <= n; base += 64) {
    std::uint64_t free = 0;  // past the line's end: used
    if (n - base >= 64)
      free = free_bits_of_64(line.used + base, q.window);
    else
      for (std::size_t k = 0; base + k < n; ++k) free |= std::uint64_t{(line.used[base + k] & q.window) == 0} << k;
    const std::uint64_t before = free << 1 | in_run;  // bit j: segment j - 1 is free
    const std::uint64_t starts = free & ~before;
    for (std::uint64_t ends = ~free & before; ends != 0; ends &= ends - 1) {
      const int end = std::countr_zero(ends);
      const std::uint64_t started = starts & ((std::uint64_t{1} << end) - 1);
      const std::uint32_t run_first =
          started != 0 ? std::max(line.firsts[base + 63 - std::countl_zero(started)], q.from) : carried;
      const std::uint32_t run = first_of(base + static_cast<std::size_t>(end)) - run_first;
      if (run >= q.count) return {run_first, 0};
      best = std::max(best, run);
    }
    if (starts != 0) carried = std::max(line.firsts[base + 63 - std::countl_zero(starts)], q.from);
    in_run = free >> 63;
  }
  return {-1, best};
}

#if TRACEWARP_X86_KERNELS
// The vector kernels take a step of segments at a time, every step the same instructions
// whatever the segments hold: a bit per segment free in the window; the run starts and ends
// among them (from the bits and the last step's last bit); in each lane the latest run start, a
// prefix maximum; the length of each run that ends there, compared with the count; and a running
// maximum of those lengths, the "longest free run" a failed search reports. They branch once a
// step, to leave on a fit. The AVX-512 kernel's prefix maximum is taken within the step and only
// then combined with the run carried in, so consecutive steps depend on each other through one
// instruction; its segments past the end of the line stand at node `nodes`, used throughout:
// the first of them ends the last run.
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

// Eight segments a step (AVX2, x86-64 CPUs from 2013 on, among them those without AVX-512). AVX2
// has no cheap prefix maximum across lanes, so a table does the run bookkeeping: indexed by the
// step's free bits and whether the segment before it is free, it gives each lane the lane its
// run starts at, or "before this step" (the sign bit), or, in a used lane that ends no run, the
// lane itself, whose length then comes out as zero. One lane permute then gives every
// lane's run start, and a lane long enough, end or not, holds the lowest run that fits.
struct RunStartTable {
  alignas(64) std::int8_t lane[512][8];
};
constexpr RunStartTable run_start_table() {
  RunStartTable t{};
  for (unsigned bits = 0; bits < 512; ++bits) {  // bits 0-7: free lanes; bit 8: the lane before
    int latest_start = -128;
    for (unsigned j = 0; j < 8; ++j) {
      const bool free = (bits >> j & 1u) != 0, before = j == 0 ? (bits >> 8 & 1u) != 0 : (bits >> (j - 1) & 1u) != 0;
      if (free && !before) latest_start = static_cast<int>(j);
      t.lane[bits][j] = static_cast<std::int8_t>(free || before ? latest_start : static_cast<int>(j));
    }
  }
  return t;
}
constexpr RunStartTable kRunStarts = run_start_table();

[[gnu::target("avx2")]] FreeRunResult search_avx2(const FreeRunLine& line, std::size_t start, const FreeRunQuery& q) {
  const __m256i window = _mm256_set1_epi64x(static_cast<long long>(q.window)), zero = _mm256_setzero_si256();
  const __m256i lanes = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0), last_lane = _mm256_set1_epi32(7);
  const __m256i need = _mm256_set1_epi32(static_cast<int>(q.count));
  const __m256i from = _mm256_set1_epi32(static_cast<int>(q.from)),
                line_end = _mm256_set1_epi32(static_cast<int>(line.nodes));
  const std::size_t n = line.size;
  __m256i longest = zero, carried = zero;  // carried: the latest run start in earlier steps
  unsigned in_run = 0;                     // whether the segment before this step is free
  for (std::size_t i = start; i <= n; i += 8) {
    __m256i used_low, used_high, first;
    if (n - i >= 8) {
      used_low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line.used + i));
      used_high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line.used + i + 4));
      first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line.firsts + i));
    } else {  // masked loads read nothing past the line: the lanes past it hold free segments at
              // node `nodes`, where a run open at the line's end gets its length and none begins
      const __m256i real = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - i)), lanes);
      used_low = _mm256_maskload_epi64(reinterpret_cast<const long long*>(line.used + i),
                                       _mm256_cvtepi32_epi64(_mm256_castsi256_si128(real)));
      used_high = _mm256_maskload_epi64(reinterpret_cast<const long long*>(line.used + i + 4),
                                        _mm256_cvtepi32_epi64(_mm256_extracti128_si256(real, 1)));
      first = _mm256_blendv_epi8(line_end, _mm256_maskload_epi32(reinterpret_cast<const int*>(line.firsts + i), real),
                                 real);
    }
    const auto free_bits =
        static_cast<unsigned>(
            _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(used_low, window), zero)))) |
        static_cast<unsigned>(
            _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(used_high, window), zero))))
            << 4;
    const __m256i start_lane = _mm256_cvtepi8_epi32(
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kRunStarts.lane[free_bits | in_run << 8])));
    const __m256i in_step = _mm256_permutevar8x32_epi32(_mm256_max_epu32(first, from), start_lane);
    const __m256i run_first = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(in_step), _mm256_castsi256_ps(carried), _mm256_castsi256_ps(start_lane)));
    // 0 in a lane that is no run's (its own start can lie below `from`, in the first step)
    const __m256i length = _mm256_sub_epi32(first, _mm256_min_epu32(run_first, first));
    if (const auto fit = static_cast<unsigned>(
            _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_max_epu32(length, need), length))));
        fit != 0) {
      alignas(32) std::uint32_t run_firsts[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(run_firsts), run_first);
      return {run_firsts[std::countr_zero(fit)], 0};
    }
    longest = _mm256_max_epu32(longest, length);
    carried = _mm256_permutevar8x32_epi32(run_first, last_lane);  // used only if the last lane is free
    in_run = free_bits >> 7 & 1u;
  }
  alignas(32) std::uint32_t lengths[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lengths), longest);
  return {-1, *std::max_element(lengths, lengths + 8)};
}
// As locate_avx512, eight to a compare, from 32 candidates on.
[[gnu::target("avx2")]] std::size_t locate_avx2(const std::uint32_t* firsts, std::size_t size, std::uint32_t node) {
  std::size_t n = size;
  const std::uint32_t* const base = halve_towards(firsts, n, node, 32);
  const __m256i key = _mm256_set1_epi32(static_cast<int>(node)), lanes = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
  std::size_t at_or_below = 0;
  for (std::size_t i = 0; i < n; i += 8) {
    const __m256i real =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<std::size_t>(n - i, 8))), lanes);
    const __m256i x = _mm256_maskload_epi32(reinterpret_cast<const int*>(base + i), real);
    const __m256i below = _mm256_and_si256(real, _mm256_cmpeq_epi32(_mm256_max_epu32(x, key), key));
    at_or_below +=
        static_cast<std::size_t>(std::popcount(static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(below)))));
  }
  return static_cast<std::size_t>(base - firsts) + at_or_below - 1;
}
#endif

std::vector<FreeRunKernel> kernels_of_this_cpu() {
  std::vector<FreeRunKernel> kernels{{"portable", search_portable, nullptr}};
#if TRACEWARP_X86_KERNELS
  if (__builtin_cpu_supports("avx2")) kernels.push_back({"avx2", search_avx2, locate_avx2});
  if (__builtin_cpu_supports("avx512f")) kernels.push_back({"avx512", search_avx512, locate_avx512});
#endif
  return kernels;
}

}  // namespace

std::span<const FreeRunKernel> free_run_kernels() {
  static const std::vector<FreeRunKernel> kernels = kernels_of_this_cpu();
  return kernels;
}

const FreeRunKernel& free_run_kernel_named(std::string_view name) {
  const std::span<const FreeRunKernel> kernels = free_run_kernels();
  if (name == "auto") return kernels.back();
  std::string names;
  for (const FreeRunKernel& k : kernels) {
    if (k.name == name) return k;
    names += std::string(names.empty() ? "" : ", ") + k.name;
  }
  throw ConfigError("batch.free_runs = " + std::string(name) + ": this CPU runs the free-run kernels " + names);
}

}  // namespace tracewarp::batch::detail
