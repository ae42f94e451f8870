#include "tracewarp/policy/batch/queue_index.hpp"

#include <algorithm>
#include <string>

#include "tracewarp/core/error.hpp"

namespace tracewarp::batch {

namespace {
QueueIndex::Summary lower(QueueIndex::Summary s, std::uint32_t nodes, Time requested) {
  return {std::min(s.nodes, nodes), std::min(s.requested, requested)};
}
}  // namespace

void QueueIndex::cover(JobId id) {
  if (nodes_.empty()) base_ = id - id % kSuper;
  if (id < base_) {  // an id below the window (not arrival order): rebuild with a lower base
    const JobId new_base = id - id % kSuper;
    const auto shift = static_cast<std::size_t>(base_ - new_base);
    nodes_.insert(nodes_.begin(), shift, kAbsent);
    requested_.insert(requested_.begin(), shift, kTimeInfinity);
    groups_.insert(groups_.begin(), shift / kGroup, Summary{});
    blocks_.insert(blocks_.begin(), shift / kBlock, Summary{});
    supers_.insert(supers_.begin(), shift / kSuper, Summary{});
    base_ = new_base;
  }
  const auto offset = static_cast<std::size_t>(id - base_);
  if (offset >= nodes_.size()) {
    const std::size_t size = (offset / kSuper + 1) * kSuper;
    nodes_.resize(size, kAbsent);
    requested_.resize(size, kTimeInfinity);
    groups_.resize(size / kGroup);
    blocks_.resize(size / kBlock);
    supers_.resize(size / kSuper);
  }
}

void QueueIndex::insert(JobId id, std::uint32_t nodes, Time requested) {
  cover(id);
  const auto i = static_cast<std::size_t>(id - base_);
  if (nodes_[i] != kAbsent) throw InvariantError("queue index: job " + std::to_string(id) + " inserted twice");
  nodes_[i] = nodes;
  requested_[i] = requested;
  groups_[i / kGroup] = lower(groups_[i / kGroup], nodes, requested);
  blocks_[i / kBlock] = lower(blocks_[i / kBlock], nodes, requested);
  supers_[i / kSuper] = lower(supers_[i / kSuper], nodes, requested);
  ++count_;
}

void QueueIndex::erase(JobId id) {
  const std::size_t i = id >= base_ ? static_cast<std::size_t>(id - base_) : nodes_.size();
  if (i >= nodes_.size() || nodes_[i] == kAbsent)
    throw InvariantError("queue index: job " + std::to_string(id) + " is not queued");
  nodes_[i] = kAbsent;
  requested_[i] = kTimeInfinity;
  --count_;
  refresh(i);
  drop_empty_front();
}

void QueueIndex::refresh(std::size_t leaf) {
  const std::size_t g = leaf / kGroup;
  Summary group;
  for (std::size_t i = g * kGroup; i < (g + 1) * kGroup; ++i) group = lower(group, nodes_[i], requested_[i]);
  groups_[g] = group;
  const std::size_t b = leaf / kBlock;
  Summary block;
  for (std::size_t k = b * (kBlock / kGroup); k < (b + 1) * (kBlock / kGroup); ++k)
    block = lower(block, groups_[k].nodes, groups_[k].requested);
  blocks_[b] = block;
  const std::size_t s = leaf / kSuper;
  Summary super;
  for (std::size_t k = s * (kSuper / kBlock); k < (s + 1) * (kSuper / kBlock); ++k)
    super = lower(super, blocks_[k].nodes, blocks_[k].requested);
  supers_[s] = super;
}

// The window slides forward as the oldest jobs start: once at least half of it is leading empty
// superblocks, they are dropped (each leaf is moved O(1) times on average).
void QueueIndex::drop_empty_front() {
  if (count_ == 0) {
    *this = QueueIndex{};
    return;
  }
  std::size_t empty = 0;
  while (empty < supers_.size() && supers_[empty].nodes == kAbsent) ++empty;
  if (empty == 0 || 2 * empty < supers_.size()) return;
  nodes_.erase(nodes_.begin(), nodes_.begin() + static_cast<std::ptrdiff_t>(empty * kSuper));
  requested_.erase(requested_.begin(), requested_.begin() + static_cast<std::ptrdiff_t>(empty * kSuper));
  groups_.erase(groups_.begin(), groups_.begin() + static_cast<std::ptrdiff_t>(empty * (kSuper / kGroup)));
  blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(empty * (kSuper / kBlock)));
  supers_.erase(supers_.begin(), supers_.begin() + static_cast<std::ptrdiff_t>(empty));
  base_ += empty * kSuper;
}

}  // namespace tracewarp::batch
