// Data-parallel helpers for event handlers whose result feeds the simulation, and so must not
// depend on the number of threads. parallel_deterministic_reduce splits the range into the same
// tree for any thread count, and the combination order follows the tree; ties in argmax go to
// the lowest index.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <cstddef>
#include <limits>

namespace tracewarp {

// combine(identity, map(0), ..., map(n-1)) with a fixed bracketing. combine must be associative
// up to the precision the caller accepts (the bracketing is fixed, so results are reproducible).
template <class T, class Map, class Combine>
T deterministic_reduce(std::size_t n, T identity, Map map, Combine combine, std::size_t grain = 1024) {
  return tbb::parallel_deterministic_reduce(
      tbb::blocked_range<std::size_t>(0, n, grain), identity,
      [&](const tbb::blocked_range<std::size_t>& r, T acc) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) acc = combine(acc, map(i));
        return acc;
      },
      combine);
}

struct ArgMax {
  std::size_t index = std::numeric_limits<std::size_t>::max();  // max(): no candidate
  double score = -std::numeric_limits<double>::infinity();
  bool found() const { return index != std::numeric_limits<std::size_t>::max(); }
};

// The index in [0, n) with the highest score(i), skipping NaN scores (use NaN for "not a
// candidate"); ties go to the lowest index.
template <class Score>
ArgMax deterministic_argmax(std::size_t n, Score score, std::size_t grain = 1024) {
  const auto better = [](const ArgMax& a, const ArgMax& b) {
    if (!b.found()) return a;
    if (!a.found()) return b;
    if (b.score > a.score || (b.score == a.score && b.index < a.index)) return b;
    return a;
  };
  return deterministic_reduce(
      n, ArgMax{},
      [&](std::size_t i) {
        const double s = score(i);
        return s == s ? ArgMax{i, s} : ArgMax{};
      },
      better, grain);
}

}  // namespace tracewarp
