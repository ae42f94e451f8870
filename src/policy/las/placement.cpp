#include "tracewarp/policy/las/placement.hpp"

#include <cmath>
#include <limits>

#include "tracewarp/core/parallel.hpp"

namespace tracewarp::las {

double load(const NodeView& node) {
  double sum = 0;
  for (std::size_t r = 0; r < kResources; ++r) {
    const double share = node.assigned[r] / node.capacity[r];
    sum += share * share;
  }
  return std::sqrt(sum);
}

bool fits_free(const Amounts& demand, const NodeView& node) {
  for (std::size_t r = 0; r < kResources; ++r)
    if (demand[r] > node.capacity[r] - node.assigned[r]) return false;
  return true;
}

std::optional<std::uint32_t> SimilarityPlacement::place(const Amounts& demand, std::span<const NodeView> nodes) const {
  const ArgMax best = deterministic_argmax(
      nodes.size(),
      [&](std::size_t i) {
        const NodeView& n = nodes[i];
        if (!fits_free(demand, n)) return std::numeric_limits<double>::quiet_NaN();  // not a candidate
        double similarity = 0;
        for (std::size_t r = 0; r < kResources; ++r)
          similarity += demand[r] * (n.capacity[r] - n.assigned[r]) / (n.capacity[r] * n.capacity[r]);
        return similarity;
      },
      256);
  if (best.found()) return static_cast<std::uint32_t>(best.index);
  // No room anywhere: the least-loaded node below the threshold (argmax of -load).
  const ArgMax least = deterministic_argmax(
      nodes.size(),
      [&](std::size_t i) {
        const double l = load(nodes[i]);
        return l < threshold_ ? -l : std::numeric_limits<double>::quiet_NaN();
      },
      256);
  if (least.found()) return static_cast<std::uint32_t>(least.index);
  return std::nullopt;
}

std::optional<std::uint32_t> KairosPlacement::place(const Amounts&, std::span<const NodeView> nodes) const {
  std::optional<std::uint32_t> best;
  for (std::uint32_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].unfinished < cap_ && (!best || nodes[i].unfinished < nodes[*best].unfinished)) best = i;
  return best;
}

}  // namespace tracewarp::las
