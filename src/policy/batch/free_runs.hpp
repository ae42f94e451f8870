// The search interval scheduling spends most of its time in (docs/performance.md): along a
// plan's line of segments, the lowest run of nodes free throughout a window of intervals. It is
// written twice — portably, and for x86-64 CPUs with AVX-512, eight segments at a time with no
// branch per segment — and both give the same answers (tests/policy/test_interval_policy.cpp).
// The fastest kernel the CPU runs is chosen once, at the first search (or the one named by
// TRACEWARP_FREE_RUNS).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "tracewarp/policy/batch/interval.hpp"

namespace tracewarp::batch::detail {

struct FreeRunQuery {
  std::uint64_t window;  // the intervals the run must be free in
  std::uint32_t count;   // nodes wanted
  std::uint32_t from;    // no run is looked for below this node
};

struct FreeRunResult {
  std::int64_t first;     // the lowest first node of `count` nodes free from `from` on, or -1
  std::uint32_t longest;  // if none: the longest free run from `from` on
};

// `line`: a plan's segments, the first at node 0, the line ending at node `nodes`; `start`: the
// segment holding `from`.
using FreeRunSearch = FreeRunResult (*)(std::span<const LineSegment> line, std::size_t start, std::uint32_t nodes,
                                        const FreeRunQuery& query);

struct FreeRunKernel {
  const char* name;
  FreeRunSearch search;
};

// The kernels this CPU can run: the portable one first, the fastest last.
std::span<const FreeRunKernel> free_run_kernels();

// The kernel interval scheduling uses: the one named by the environment variable
// TRACEWARP_FREE_RUNS (portable, avx2 or avx512: for comparing them, or ruling a kernel out),
// else the fastest. ConfigError if the named kernel is not one this CPU runs.
FreeRunSearch chosen_free_run_search();

}  // namespace tracewarp::batch::detail
