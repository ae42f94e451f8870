// The machine's nodes as a line 0..N-1 and which of them are free, kept as maximal free ranges.
// Allocation "any": the lowest-numbered free nodes (possibly several ranges); "contiguous": one
// range, the one starting lowest among those long enough.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tracewarp/core/persist.hpp"

namespace tracewarp::batch {

struct NodeRange {
  std::uint32_t first;
  std::uint32_t count;
  bool operator==(const NodeRange&) const = default;
};

enum class Allocation { any, contiguous };
Allocation parse_allocation(const std::string& name);  // "any" or "contiguous"; ConfigError

class NodePool {
 public:
  explicit NodePool(std::uint32_t nodes);

  std::uint32_t total() const { return total_; }
  std::uint32_t free() const { return free_; }
  // Whether `nodes` can be allocated now under the rule.
  bool can_allocate(std::uint32_t nodes, Allocation rule) const;
  // Takes `nodes` nodes under the rule; empty if they cannot be had.
  std::vector<NodeRange> allocate(std::uint32_t nodes, Allocation rule);
  // Takes exactly nodes [first, first + count) (a policy's placement); false if any is in use.
  bool allocate_at(std::uint32_t first, std::uint32_t count);
  // Gives back ranges that allocate() returned.
  void release(const std::vector<NodeRange>& ranges);
  // Largest free contiguous range.
  std::uint32_t largest_free_range() const;

  bool operator==(const NodePool&) const = default;
  TRACEWARP_PERSIST(free_, ranges_)

 private:
  void take(std::uint32_t first, std::uint32_t count);

  std::uint32_t total_;
  std::uint32_t free_;
  std::map<std::uint32_t, std::uint32_t> ranges_;  // first free node -> count, disjoint, not adjacent
};

}  // namespace tracewarp::batch
