// The pending-event list of a rank: a 4-ary min-heap of (key, pool slot), ordered by the event
// key. A 4-ary heap halves the depth of a binary one and keeps each node's children in one
// cache line, which is what the event loop spends its time on.
#pragma once

#include <cstdint>
#include <vector>

#include "tracewarp/engine/event.hpp"

namespace tracewarp::detail {

struct QueueEntry {
  EventKey key;
  std::uint32_t slot;
};

class EventQueue {
 public:
  bool empty() const noexcept { return heap_.empty(); }
  std::size_t size() const noexcept { return heap_.size(); }
  const QueueEntry& top() const noexcept { return heap_.front(); }

  void push(const EventKey& key, std::uint32_t slot) {
    heap_.push_back({key, slot});
    sift_up(heap_.size() - 1);
  }
  void pop() {
    const QueueEntry last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
  }

 private:
  static bool before(const QueueEntry& a, const QueueEntry& b) noexcept {
    if (a.key.time != b.key.time) return a.key.time < b.key.time;
    if (a.key.kind_sender != b.key.kind_sender) return a.key.kind_sender < b.key.kind_sender;
    return a.key.seq < b.key.seq;
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

  std::vector<QueueEntry> heap_;
};

}  // namespace tracewarp::detail
