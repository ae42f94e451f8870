// Central placement of the multi-resource LAS study (docs/studies.md#las), as plain classes: given the head
// task's demands and every node's capacity and assigned (unfinished) demands, choose a node or
// wait. Our reading of both schedulers is written here once.
//
//  * SimilarityPlacement (proposed): among nodes where every demand fits the free (not yet
//    assigned) amount, the largest similarity sum_r D_r * F_r / C_r^2 (ties: lowest node id);
//    if none has room, the least-loaded node whose load is below L (ties: lowest id), load =
//    sqrt(sum_r (assigned_r / C_r)^2); if every node is at or above L, wait. The similarity scan
//    runs over TBB with a deterministic argmax.
//  * KairosPlacement (baseline): the node with the fewest unfinished assigned tasks (ties: lowest
//    id), never one that already holds Q; if all hold Q, wait.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tracewarp/core/persist.hpp"

namespace tracewarp::las {

inline constexpr std::size_t kResources = 2;  // CPU, memory
using Amounts = std::array<double, kResources>;

struct NodeView {
  Amounts capacity;
  Amounts assigned;          // demands of the tasks assigned to the node and not finished
  std::uint32_t unfinished;  // how many such tasks
  bool operator==(const NodeView&) const = default;
};

// sqrt(sum_r (assigned_r / capacity_r)^2)
double load(const NodeView& node);

// The nodes' loads and whether their mean is below a bound — the closed loop's question after
// every arrival, completion and release. The answer is the one the plain computation gives, the
// loads added in node order in double precision and divided by the node count, but that sum is
// taken only when the mean lies within its rounding error of the bound. Otherwise a running sum
// in fixed point (units of 2^-30, updated exactly as loads change) decides: with thousands of
// nodes, adding them all at every question took most of a run.
class NodeLoads {
 public:
  explicit NodeLoads(std::size_t nodes);
  void set(std::size_t node, double load);
  double operator[](std::size_t node) const { return loads_[node]; }
  std::span<const double> all() const { return loads_; }
  bool mean_below(double bound) const;
  bool operator==(const NodeLoads&) const = default;
  TRACEWARP_PERSIST(loads_, fixed_sum_, unbounded_)

 private:
  static std::int64_t fixed(double load, double limit) {
    return load < limit ? static_cast<std::int64_t>(load * 0x1p30) : 0;
  }
  std::vector<double> loads_;
  double limit_;                // loads at or above it are left out of the fixed sum, which then
                                // cannot overflow: nodes x limit x 2^30 <= 2^62
  std::int64_t fixed_sum_ = 0;  // sum over nodes of floor(load x 2^30), loads below limit_
  std::size_t unbounded_ = 0;   // nodes whose load is not below limit_ (or NaN): sum in full
};

// Whether every demand fits what is not yet assigned.
bool fits_free(const Amounts& demand, const NodeView& node);

class SimilarityPlacement {
 public:
  explicit SimilarityPlacement(double load_threshold = 1.5) : threshold_(load_threshold) {}
  // `loads`, if not empty, holds load(nodes[i]) for every node, kept by the caller (NodeLoads);
  // else the fallback computes them.
  std::optional<std::uint32_t> place(const Amounts& demand, std::span<const NodeView> nodes,
                                     std::span<const double> loads = {}) const;
  double threshold() const { return threshold_; }
  bool operator==(const SimilarityPlacement&) const = default;

 private:
  double threshold_;
};

class KairosPlacement {
 public:
  explicit KairosPlacement(std::uint32_t cap = 32) : cap_(cap) {}
  std::optional<std::uint32_t> place(const Amounts& demand, std::span<const NodeView> nodes,
                                     std::span<const double> loads = {}) const;  // loads: unused
  bool operator==(const KairosPlacement&) const = default;

 private:
  std::uint32_t cap_;
};

}  // namespace tracewarp::las
