#include "tracewarp/policy/batch/node_pool.hpp"

#include <algorithm>

#include "tracewarp/core/error.hpp"

namespace tracewarp::batch {

Allocation parse_allocation(const std::string& name) {
  if (name == "any") return Allocation::any;
  if (name == "contiguous") return Allocation::contiguous;
  throw ConfigError("unknown allocation '" + name + "' (any or contiguous)");
}

NodePool::NodePool(std::uint32_t nodes) : total_(nodes), free_(nodes) {
  if (nodes > 0) ranges_[0] = nodes;
}

bool NodePool::can_allocate(std::uint32_t nodes, Allocation rule) const {
  if (nodes == 0) return false;
  return rule == Allocation::any ? nodes <= free_ : nodes <= largest_free_range();
}

std::uint32_t NodePool::largest_free_range() const {
  std::uint32_t best = 0;
  for (const auto& [first, count] : ranges_) best = std::max(best, count);
  return best;
}

void NodePool::take(std::uint32_t first, std::uint32_t count) {
  auto it = ranges_.upper_bound(first);
  --it;  // the free range containing `first`
  const std::uint32_t range_first = it->first, range_count = it->second;
  ranges_.erase(it);
  if (first > range_first) ranges_[range_first] = first - range_first;
  const std::uint32_t end = first + count, range_end = range_first + range_count;
  if (end < range_end) ranges_[end] = range_end - end;
  free_ -= count;
}

std::vector<NodeRange> NodePool::allocate(std::uint32_t nodes, Allocation rule) {
  std::vector<NodeRange> out;
  if (!can_allocate(nodes, rule)) return out;
  if (rule == Allocation::contiguous) {
    for (const auto& [first, count] : ranges_) {
      if (count >= nodes) {
        out.push_back({first, nodes});
        break;
      }
    }
  } else {
    std::uint32_t need = nodes;
    for (const auto& [first, count] : ranges_) {
      const std::uint32_t n = std::min(need, count);
      out.push_back({first, n});
      need -= n;
      if (need == 0) break;
    }
  }
  for (const NodeRange& r : out) take(r.first, r.count);
  return out;
}

bool NodePool::allocate_at(std::uint32_t first, std::uint32_t count) {
  if (count == 0) return false;
  auto it = ranges_.upper_bound(first);
  if (it == ranges_.begin()) return false;
  --it;  // the free range that would contain `first`
  if (it->first + it->second < first + count) return false;
  take(first, count);
  return true;
}

void NodePool::release(const std::vector<NodeRange>& ranges) {
  for (const NodeRange& r : ranges) {
    if (r.count == 0 || r.first + r.count > total_) throw InvariantError("release of nodes outside the machine");
    std::uint32_t first = r.first, count = r.count;
    auto next = ranges_.lower_bound(first);
    if (next != ranges_.end() && next->first < first + count)
      throw InvariantError("node " + std::to_string(next->first) + " released while free (double release)");
    if (next != ranges_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second > first)
        throw InvariantError("node " + std::to_string(first) + " released while free (double release)");
      if (prev->first + prev->second == first) {  // merge with the free range before
        first = prev->first;
        count += prev->second;
        ranges_.erase(prev);
      }
    }
    if (next != ranges_.end() && next->first == r.first + r.count) {  // and the one after
      count += next->second;
      ranges_.erase(next);
    }
    ranges_[first] = count;
    free_ += r.count;
  }
}

}  // namespace tracewarp::batch
