// Where the events that arrived from other ranks are, by identity (sender LP and sequence), so
// that an anti-message can find its event. Open addressing with linear probing and backward-shift
// deletion: no allocation per event and no tombstones, which matters because every remote event
// is inserted once and erased once. The table also shrinks when few entries are left: a burst
// (the replication model's start, 50,000 events from the other rank) would otherwise leave the
// 2,000 entries of the steady state spread over 3 MiB, a cache miss at every insert and erase.
#pragma once

#include <cstdint>
#include <vector>

#include "tracewarp/engine/event.hpp"

namespace tracewarp::detail {

class RemoteIndex {
 public:
  static constexpr std::uint32_t kAbsent = ~0u;

  static constexpr std::size_t kMinSlots = 1024;

  RemoteIndex() { slots_.resize(kMinSlots); }

  void insert(const EventKey& key, std::uint32_t slot) {
    if ((size_ + 1) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
    place({key.kind_sender, key.seq, slot});
    ++size_;
  }
  std::uint32_t find(const EventKey& key) const {
    for (std::size_t i = home(key.kind_sender, key.seq);; i = next(i)) {
      const Entry& e = slots_[i];
      if (e.slot == kAbsent) return kAbsent;
      if (e.kind_sender == key.kind_sender && e.seq == key.seq) return e.slot;
    }
  }
  void erase(const EventKey& key) {
    std::size_t i = home(key.kind_sender, key.seq);
    while (!(slots_[i].kind_sender == key.kind_sender && slots_[i].seq == key.seq)) {
      if (slots_[i].slot == kAbsent) return;
      i = next(i);
    }
    // Backward shift: pull later entries of the probe run into the hole where that keeps them
    // reachable from their home position.
    for (std::size_t j = next(i);; j = next(j)) {
      if (slots_[j].slot == kAbsent) break;
      const std::size_t h = home(slots_[j].kind_sender, slots_[j].seq);
      const bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
      if (movable) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].slot = kAbsent;
    --size_;
    // Below an eighth full, half the slots. Either way a rehash leaves the next one at least an
    // eighth of the new table's slots in operations away, so it stays amortised O(1).
    if (size_ * 8 < slots_.size() && slots_.size() > kMinSlots) rehash(slots_.size() / 2);
  }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }

 private:
  struct Entry {
    std::uint64_t kind_sender = 0;
    std::uint64_t seq = 0;
    std::uint32_t slot = kAbsent;
  };
  std::size_t home(std::uint64_t a, std::uint64_t b) const {
    std::uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return static_cast<std::size_t>(x) & (slots_.size() - 1);
  }
  std::size_t next(std::size_t i) const { return (i + 1) & (slots_.size() - 1); }
  void place(const Entry& e) {
    std::size_t i = home(e.kind_sender, e.seq);
    while (slots_[i].slot != kAbsent) i = next(i);
    slots_[i] = e;
  }
  void rehash(std::size_t slots) {
    std::vector<Entry> old(slots);
    old.swap(slots_);
    for (const Entry& e : old)
      if (e.slot != kAbsent) place(e);
  }

  std::vector<Entry> slots_;
  std::size_t size_ = 0;
};

}  // namespace tracewarp::detail
