// The search interval scheduling spends most of its time in (docs/performance-history.md): along a
// plan's line of segments, the lowest run of nodes free throughout a window of intervals. It is
// written three times — portably, 64 segments a block; for x86-64 CPUs with AVX2, eight segments
// a step; with AVX-512, sixteen — none with a branch per segment, and all give the same answers
// (tests/policy/test_interval_policy.cpp). A kernel also finds the segment holding a node. A plan
// uses the kernel the key batch.free_runs names: by default the fastest this CPU runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace tracewarp::batch::detail {

// A plan's line of segments: segment i holds nodes firsts[i] up to the next segment's first (or
// `nodes`, the line's end) and is used in the intervals whose bits are set in used[i].
struct FreeRunLine {
  const std::uint32_t* firsts;  // ascending, firsts[0] == 0
  const std::uint64_t* used;
  std::size_t size;
  std::uint32_t nodes;
};

struct FreeRunQuery {
  std::uint64_t window;  // the intervals the run must be free in
  std::uint32_t count;   // nodes wanted, at least 1
  std::uint32_t from;    // no run is looked for below this node
};

struct FreeRunResult {
  std::int64_t first;     // the lowest first node of `count` nodes free from `from` on, or -1
  std::uint32_t longest;  // if none: the longest free run from `from` on
};

// `start`: the segment holding `from`.
using FreeRunSearch = FreeRunResult (*)(const FreeRunLine& line, std::size_t start, const FreeRunQuery& query);

// The segment holding `node`, at or above firsts[0] (the last segment that starts at or below it).
using SegmentLocate = std::size_t (*)(const std::uint32_t* firsts, std::size_t size, std::uint32_t node);

// Branch-free binary search, stopped once at most `stop` candidates remain: the segment holding
// `node` is among base[0..n) on return. A pass asks this for every placement and check, and the
// comparisons are unpredictable. Inline, so that callers do not pay a call for it.
inline const std::uint32_t* halve_towards(const std::uint32_t* base, std::size_t& n, std::uint32_t node,
                                          std::size_t stop) {
  while (n > stop) {
    const std::size_t half = n / 2;
    base = base[half] <= node ? base + half : base;
    n -= half;
  }
  return base;
}

inline std::size_t locate_by_halving(const std::uint32_t* firsts, std::size_t size, std::uint32_t node) {
  return static_cast<std::size_t>(halve_towards(firsts, size, node, 1) - firsts);
}

struct FreeRunKernel {
  const char* name;
  FreeRunSearch search;
  SegmentLocate locate;  // nullptr: locate_by_halving
};

// The kernels this CPU can run: the portable one first, the fastest last.
std::span<const FreeRunKernel> free_run_kernels();

// The kernel named by batch.free_runs: "auto" is the fastest this CPU runs; portable, avx2 or
// avx512 name one (for comparing them, or ruling one out). ConfigError if this CPU does not run it.
const FreeRunKernel& free_run_kernel_named(std::string_view name);

}  // namespace tracewarp::batch::detail
