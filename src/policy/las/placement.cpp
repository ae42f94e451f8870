#include "tracewarp/policy/las/placement.hpp"

#include <algorithm>
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

NodeLoads::NodeLoads(std::size_t nodes)
    : loads_(nodes, 0.0), limit_(std::ldexp(1.0, 32) / static_cast<double>(std::max<std::size_t>(nodes, 1))) {}

void NodeLoads::set(std::size_t node, double load) {
  double& old = loads_.at(node);
  unbounded_ -= !(old < limit_);
  fixed_sum_ -= fixed(old, limit_);
  old = load;
  unbounded_ += !(load < limit_);
  fixed_sum_ += fixed(load, limit_);
}

bool NodeLoads::mean_below(double bound) const {
  const auto plain = [&] {
    double sum = 0;
    for (const double l : loads_) sum += l;
    return sum / static_cast<double>(loads_.size()) < bound;
  };
  if (unbounded_ != 0 || loads_.empty()) return plain();
  // The fixed sum is below the exact sum by less than one unit a node; the plain sum differs
  // from the exact one by less than (n-1)u of it, its mean by a further u (u = 2^-53). The
  // tolerance covers all three with room to spare.
  const auto n = static_cast<double>(loads_.size());
  const double mean = std::ldexp(static_cast<double>(fixed_sum_), -30) / n;
  const double tolerance = 0x1p-29 + 4 * (n + 1) * 0x1p-53 * (mean + 1);
  if (mean + tolerance < bound) return true;
  if (mean - tolerance >= bound) return false;
  return plain();
}

bool fits_free(const Amounts& demand, const NodeView& node) {
  for (std::size_t r = 0; r < kResources; ++r)
    if (demand[r] > node.capacity[r] - node.assigned[r]) return false;
  return true;
}

std::optional<std::uint32_t> SimilarityPlacement::place(const Amounts& demand, std::span<const NodeView> nodes,
                                                        std::span<const double> loads) const {
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
        const double l = loads.empty() ? load(nodes[i]) : loads[i];
        return l < threshold_ ? -l : std::numeric_limits<double>::quiet_NaN();
      },
      256);
  if (least.found()) return static_cast<std::uint32_t>(least.index);
  return std::nullopt;
}

std::optional<std::uint32_t> KairosPlacement::place(const Amounts&, std::span<const NodeView> nodes,
                                                    std::span<const double>) const {
  // The least (unfinished tasks, node id) among the nodes below the cap, as one 64-bit key a
  // node: a minimum with no branch, where a branch on each node mispredicted.
  constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t least = kNone;
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    const std::uint64_t key = std::uint64_t{nodes[i].unfinished} << 32 | i;
    least = std::min(least, nodes[i].unfinished < cap_ ? key : kNone);
  }
  if (least == kNone) return std::nullopt;
  return static_cast<std::uint32_t>(least);
}

}  // namespace tracewarp::las
