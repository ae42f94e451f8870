#include "tracewarp/policy/batch/node_pool.hpp"

#include <algorithm>

#include "tracewarp/core/error.hpp"

namespace tracewarp::batch {

Allocation parse_allocation(const std::string& name) {
  if (name == "any") return Allocation::any;
  if (name == "contiguous") return Allocation::contiguous;
  throw ConfigError("unknown allocation '" + name + "' (any or contiguous)");
}

NodePool::NodePool(std::uint32_t units, std::uint32_t cores_per_node)
    : total_(units), free_(units), cores_per_node_(cores_per_node) {
  if (units > 0) ranges_[0] = units;
  if (cores_per_node_ == 0) return;
  if (units % cores_per_node_ != 0)
    throw InvariantError("node pool: " + std::to_string(units) + " cores are not whole nodes of " +
                         std::to_string(cores_per_node_));
  const std::uint32_t nodes = units / cores_per_node_;
  leaves_ = 1;
  while (leaves_ < nodes) leaves_ *= 2;
  most_free_.assign(2 * std::size_t{leaves_}, 0);
  for (std::uint32_t n = 0; n < nodes; ++n) most_free_[leaves_ + n] = cores_per_node_;
  for (std::uint32_t i = leaves_ - 1; i > 0; --i) most_free_[i] = std::max(most_free_[2 * i], most_free_[2 * i + 1]);
}

bool NodePool::can_allocate(std::uint32_t nodes, Allocation rule) const {
  if (nodes == 0) return false;
  switch (rule) {
    case Allocation::any:
      return nodes <= free_;
    case Allocation::contiguous:
      return nodes <= largest_free_range();
    case Allocation::packed:
      return !packed_ranges(nodes).empty();
  }
  return false;
}

std::uint32_t NodePool::largest_free_range() const {
  std::uint32_t best = 0;
  for (const auto& [first, count] : ranges_) best = std::max(best, count);
  return best;
}

std::int64_t NodePool::first_node_with(std::uint32_t cores, std::uint32_t from) const {
  // Descends the max-tree, skipping subtrees that end before `from` or have no node free enough.
  const auto find = [&](const auto& self, std::uint32_t i, std::uint32_t lo, std::uint32_t hi) -> std::int64_t {
    if (hi <= from || most_free_[i] < cores) return -1;
    if (hi - lo == 1) return lo;
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const std::int64_t left = self(self, 2 * i, lo, mid);
    return left >= 0 ? left : self(self, 2 * i + 1, mid, hi);
  };
  return leaves_ == 0 ? -1 : find(find, 1, 0, leaves_);
}

std::vector<NodeRange> NodePool::packed_ranges(std::uint32_t cores) const {
  const std::uint32_t c = cores_per_node_;
  if (c == 0) throw InvariantError("node pool: packed allocation without cores per node");
  if (cores == 0 || cores > free_) return {};
  std::vector<std::uint32_t> whole;
  for (std::uint32_t k = 0, from = 0; k < cores / c; ++k) {
    const std::int64_t n = first_node_with(c, from);
    if (n < 0) return {};
    whole.push_back(static_cast<std::uint32_t>(n));
    from = static_cast<std::uint32_t>(n) + 1;
  }
  std::vector<NodeRange> out;
  for (const std::uint32_t n : whole) {
    if (!out.empty() && out.back().first + out.back().count == n * c)
      out.back().count += c;
    else
      out.push_back({n * c, c});
  }
  if (const std::uint32_t rest = cores % c; rest > 0) {
    std::int64_t n = first_node_with(rest, 0);
    while (n >= 0 && std::binary_search(whole.begin(), whole.end(), static_cast<std::uint32_t>(n)))
      n = first_node_with(rest, static_cast<std::uint32_t>(n) + 1);
    if (n < 0) return {};
    // The node's lowest-numbered free cores.
    const std::uint32_t begin = static_cast<std::uint32_t>(n) * c, end = begin + c;
    std::uint32_t need = rest;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin()) --it;
    for (; need > 0 && it != ranges_.end() && it->first < end; ++it) {
      const std::uint32_t lo = std::max(it->first, begin), hi = std::min(it->first + it->second, end);
      if (lo >= hi) continue;
      const std::uint32_t k = std::min(need, hi - lo);
      out.push_back({lo, k});
      need -= k;
    }
    std::sort(out.begin(), out.end(), [](const NodeRange& a, const NodeRange& b) { return a.first < b.first; });
  }
  return out;
}

void NodePool::count_cores(std::uint32_t first, std::uint32_t count, bool taken) {
  const std::uint32_t c = cores_per_node_;
  for (std::uint32_t unit = first; unit < first + count;) {
    const std::uint32_t node = unit / c;
    const std::uint32_t upto = std::min(first + count, (node + 1) * c);
    std::uint32_t i = leaves_ + node;
    most_free_[i] = taken ? most_free_[i] - (upto - unit) : most_free_[i] + (upto - unit);
    for (i /= 2; i > 0; i /= 2) most_free_[i] = std::max(most_free_[2 * i], most_free_[2 * i + 1]);
    unit = upto;
  }
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
  if (cores_per_node_ > 0) count_cores(first, count, true);
}

std::vector<NodeRange> NodePool::allocate(std::uint32_t nodes, Allocation rule) {
  std::vector<NodeRange> out;
  if (rule == Allocation::packed) {
    out = packed_ranges(nodes);
  } else if (!can_allocate(nodes, rule)) {
    return out;
  } else if (rule == Allocation::contiguous) {
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
    if (cores_per_node_ > 0) count_cores(r.first, r.count, false);
  }
}

}  // namespace tracewarp::batch
