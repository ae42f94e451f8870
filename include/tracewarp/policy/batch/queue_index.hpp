// An index over a queue whose order is its job ids (arrival order), so that a backfill pass can
// jump over the stretches of the queue where no job can start instead of looking at each one.
// For every group of 8 consecutive ids, block of 8 groups and superblock of 64 blocks, it keeps
// the smallest node count and the shortest requested walltime of the queued jobs in it; a pass
// asks "may this stretch hold a candidate?" of those two numbers and looks inside only if so.
// (The two minima often come from different jobs, so a block that may hold one often holds
// none: groups keep that from costing 64 looks.) Arrivals and starts cost O(1) and O(64); a pass
// costs O(superblocks + blocks and groups that may hold a candidate) instead of O(queue). The ids
// covered slide forward as old jobs start (leading empty superblocks are dropped), so memory
// follows the span of queued ids, not the whole trace.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "tracewarp/core/persist.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {

class QueueIndex {
 public:
  static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::size_t kGroup = 8;
  static constexpr std::size_t kBlock = kGroup * 8;
  static constexpr std::size_t kSuper = kBlock * 64;

  // The smallest node count and shortest request of a stretch (kAbsent / infinity when empty).
  struct Summary {
    std::uint32_t nodes = kAbsent;
    Time requested = kTimeInfinity;
    bool operator==(const Summary&) const = default;
  };

  void insert(JobId id, std::uint32_t nodes, Time requested);
  void erase(JobId id);  // InvariantError if not present
  std::size_t size() const { return count_; }

  // Calls visit(id, nodes, requested) for the queued ids in [from, to], ascending, skipping every
  // block and superblock for which may_hold(summary) is false; stops when visit returns false.
  // may_hold must be false only where no job of the stretch can be a candidate; it is asked
  // again at each block, so it may read state that visit changes.
  template <class MayHold, class Visit>
  void scan(JobId from, JobId to, MayHold&& may_hold, Visit&& visit) const {
    if (count_ == 0 || to < base_ || from > to) return;
    std::size_t i = from > base_ ? static_cast<std::size_t>(from - base_) : 0;
    const std::size_t last = std::min<std::size_t>(nodes_.size() - 1, static_cast<std::size_t>(to - base_));
    while (i <= last) {
      if (const std::size_t s = i / kSuper; !may_hold(supers_[s])) {
        i = (s + 1) * kSuper;
        continue;
      }
      const std::size_t b = i / kBlock;
      const std::size_t block_last = std::min(last, (b + 1) * kBlock - 1);
      if (!may_hold(blocks_[b])) {
        i = block_last + 1;
        continue;
      }
      while (i <= block_last) {
        const std::size_t group_last = std::min(block_last, (i / kGroup + 1) * kGroup - 1);
        if (!may_hold(groups_[i / kGroup])) {
          i = group_last + 1;
          continue;
        }
        for (; i <= group_last; ++i)
          if (nodes_[i] != kAbsent && !visit(base_ + i, nodes_[i], requested_[i])) return;
      }
    }
  }

  bool operator==(const QueueIndex&) const = default;
  TRACEWARP_PERSIST(base_, nodes_, requested_, groups_, blocks_, supers_, count_)

 private:
  void cover(JobId id);
  void refresh(std::size_t leaf);  // the group, block and superblock summaries above a leaf
  void drop_empty_front();

  JobId base_ = 0;                    // id of leaf 0, a multiple of kSuper
  std::vector<std::uint32_t> nodes_;  // per id from base_: kAbsent if not queued
  std::vector<Time> requested_;
  std::vector<Summary> groups_, blocks_, supers_;
  std::size_t count_ = 0;
};

}  // namespace tracewarp::batch
