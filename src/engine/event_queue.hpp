// The pending-event list of a rank: a 4-ary min-heap of (time, pool slot), ordered by the full
// event key. Entries hold only the time; the rest of the key is read from the pool when two
// times tie, which keeps entries at 16 bytes (four children per cache line) in the common case.
//
// pop() is lazy: it leaves the root vacant, and the next push() fills the vacancy with one
// sift-down instead of the two sifts of a pop followed by a push. Executing an event and
// scheduling its successor — the usual pattern — therefore costs one pass down the heap.
#pragma once

#include <cstdint>
#include <vector>

#include "event_pool.hpp"

namespace tracewarp::detail {

struct QueueEntry {
  Time time;
  std::uint32_t slot;
  std::uint32_t lp;  // local index of the destination LP
};

class EventQueue {
 public:
  explicit EventQueue(EventPool& pool) : pool_(pool) {}

  bool empty() {
    settle();
    return heap_.empty();
  }
  std::size_t size() const noexcept { return heap_.size() - (vacant_ ? 1 : 0); }
  const QueueEntry& top() {
    settle();
    return heap_.front();
  }
  void push(Time time, std::uint32_t slot, std::uint32_t lp) {
    if (vacant_) {
      vacant_ = false;
      sift_down({time, slot, lp});
      return;
    }
    heap_.push_back({time, slot, lp});
    sift_up(heap_.size() - 1);
  }
  // Removes the top entry (which must exist).
  void pop() {
    settle();
    vacant_ = true;
  }
  // After pop(): the entry most likely to be the next top (the smallest child of the vacant
  // root; only a newly pushed earlier event can overtake it), or nullptr. The kernels prefetch
  // its event and LP while the current handler runs.
  const QueueEntry* likely_next() const {
    const std::size_t n = heap_.size();
    if (!vacant_ || n < 2) return nullptr;
    const std::size_t last = n < 5 ? n : 5;
    std::size_t best = 1;
    for (std::size_t c = 2; c < last; ++c)
      if (heap_[c].time < heap_[best].time) best = c;
    return &heap_[best];
  }

 private:
  bool before(const QueueEntry& a, const QueueEntry& b) const {
    if (a.time != b.time) return a.time < b.time;
    return pool_[a.slot].key < pool_[b.slot].key;
  }
  // Fills a vacant root with the last entry.
  void settle() {
    if (!vacant_) return;
    vacant_ = false;
    const QueueEntry last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
  }
  void sift_up(std::size_t i) {
    const QueueEntry x = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before(x, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = x;
  }
  // Places x, which replaces the root, where it belongs.
  void sift_down(const QueueEntry& x) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], x)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = x;
  }

  EventPool& pool_;
  std::vector<QueueEntry> heap_;
  bool vacant_ = false;
};

}  // namespace tracewarp::detail
