// The machine's allocation units (nodes, or processors) as a line 0..N-1 and which of them are
// free, kept as maximal free ranges. Allocation "any": the lowest-numbered free units (possibly
// several ranges); "contiguous": one range, the one starting lowest among those long enough;
// "packed": units are the cores of nodes of `cores_per_node`, numbered node by node, and a job's
// cores are packed onto nodes shared with other jobs (batch.resources = "shared-nodes"):
//   a job of p cores takes floor(p / c) wholly free nodes, the lowest-numbered, and its other
//   p mod c cores on the lowest-numbered node that has that many free (first fit), its
//   lowest-numbered free cores. So a job that fits on one node is never split across nodes,
//   and small jobs fill partly used nodes before empty ones.
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

enum class Allocation { any, contiguous, packed };
// "any" or "contiguous" (packed comes with shared nodes, not by name); ConfigError
Allocation parse_allocation(const std::string& name);

class NodePool {
 public:
  // `cores_per_node` > 0 keeps each node's free cores, which Allocation::packed needs.
  explicit NodePool(std::uint32_t units, std::uint32_t cores_per_node = 0);

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
  TRACEWARP_PERSIST(free_, ranges_, most_free_)

 private:
  void take(std::uint32_t first, std::uint32_t count);
  // The cores a packed allocation of `cores` would take, by first unit; empty if it cannot.
  std::vector<NodeRange> packed_ranges(std::uint32_t cores) const;
  // The lowest-numbered node from `from` on with at least `cores` free; -1 if none.
  std::int64_t first_node_with(std::uint32_t cores, std::uint32_t from) const;
  void count_cores(std::uint32_t first, std::uint32_t count, bool taken);

  std::uint32_t total_;
  std::uint32_t free_;
  std::map<std::uint32_t, std::uint32_t> ranges_;  // first free unit -> count, disjoint, not adjacent
  // Packed allocation only: cores per node, and a max-tree over the nodes' free cores (leaves
  // from index `leaves_`), so that first fit is one descent rather than a scan.
  std::uint32_t cores_per_node_ = 0;
  std::uint32_t leaves_ = 0;
  std::vector<std::uint32_t> most_free_;
};

}  // namespace tracewarp::batch
