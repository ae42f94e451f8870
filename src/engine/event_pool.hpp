// Storage for the events a rank holds (pending, processed-but-uncommitted, cancelled).
// Chunked so that addresses stay stable while handlers send (a handler holds a reference to the
// event it is processing while new events are allocated).
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "tracewarp/core/memory.hpp"
#include "tracewarp/engine/event.hpp"

namespace tracewarp::detail {

enum class SlotState : std::uint8_t { pending, processed, cancelled };

class EventPool {
 public:
  static constexpr std::uint32_t kChunkBits = 15;
  static constexpr std::uint32_t kChunkSize = 1u << kChunkBits;

  std::uint32_t alloc() {
    ++live_;
    if (!free_.empty()) {
      const std::uint32_t s = free_.back();
      free_.pop_back();
      // The next slot handed out was freed long ago (at a fossil collection, in optimistic
      // mode): fetch it for writing now, while the caller fills this one.
      if (!free_.empty()) __builtin_prefetch(&(*this)[free_.back()], 1);
      return s;
    }
    if ((next_ & (kChunkSize - 1)) == 0 && (next_ >> kChunkBits) == chunks_.size()) {
      chunks_.push_back(new_chunk());
      states_.resize(states_.size() + kChunkSize);
      remote_.resize(remote_.size() + kChunkSize / 64);
    }
    return next_++;
  }
  void free(std::uint32_t s) {
    assert(states_[s] == SlotState::pending && !from_remote(s));
    free_.push_back(s);
    --live_;
  }
  Event& operator[](std::uint32_t s) { return chunks_[s >> kChunkBits][s & (kChunkSize - 1)]; }
  // Copies `ev` into slot s: the header and the payload words in use, one 8-byte word at a time.
  // A sent event was just written field by field; a load wider than those stores, spanning two
  // of them, cannot take its data from the store buffer and waits until both stores reach the
  // cache — behind every older store still missing it. (GCC merged a plain copy of the key into
  // such a 16-byte load; the empty asm keeps each word in a general register.) Most payloads are
  // far shorter than 64 bytes.
  void store(std::uint32_t s, const Event& ev) {
    static_assert(offsetof(Event, payload) % 8 == 0);
    const std::size_t words = offsetof(Event, payload) / 8 + (ev.payload_size + 7) / 8;
    auto* to = reinterpret_cast<char*>(&(*this)[s]);
    const auto* from = reinterpret_cast<const char*>(&ev);
    for (std::size_t w = 0; w < words; ++w) {
      std::uint64_t word;
      std::memcpy(&word, from + 8 * w, 8);
      asm("" : "+r"(word));
      std::memcpy(to + 8 * w, &word, 8);
    }
  }
  // Per-slot bookkeeping, kept apart from the events in dense arrays that stay in cache where
  // the 100-byte events do not: a slot's state (a byte), and whether it came from another rank
  // (a bit; such events are indexed in the rank's remote-event table). Every event released
  // reads its bit: as a byte beside the state it was a cache miss per event at 16,384 LPs
  // (16% of one optimistic rank's samples), as a bit the whole set fits in L2.
  SlotState& state(std::uint32_t s) { return states_[s]; }
  bool from_remote(std::uint32_t s) const { return (remote_[s / 64] >> (s % 64)) & 1; }
  // A slot is freed pending and with its bit clear, so that alloc() hands it out so without
  // writing either: the event committed at once, the most common, never touches them.
  void set_from_remote(std::uint32_t s, bool remote) {
    const std::uint64_t bit = std::uint64_t{1} << (s % 64);
    remote_[s / 64] = remote ? remote_[s / 64] | bit : remote_[s / 64] & ~bit;
  }
  // Bookkeeping bytes per slot, for the memory budget.
  static constexpr double kBookkeepingBytes = sizeof(SlotState) + 1.0 / 8;
  std::size_t live() const { return live_; }

 private:
  // Chunks are 2 MiB-aligned and, on Linux, offered to the kernel for transparent huge pages:
  // with millions of pending events every event touched is a TLB miss and every new page a fault.
  struct ChunkDelete {
    void operator()(Event* chunk) const { ::operator delete (chunk, std::align_val_t{kHugePageBytes}); }
  };
  static std::unique_ptr<Event[], ChunkDelete> new_chunk() {
    constexpr std::size_t bytes = sizeof(Event) * kChunkSize;
    auto* chunk = static_cast<Event*>(::operator new (bytes, std::align_val_t{kHugePageBytes}));
    offer_huge_pages(chunk, bytes);
    std::uninitialized_default_construct_n(chunk, kChunkSize);
    return std::unique_ptr<Event[], ChunkDelete>(chunk);
  }
  std::vector<std::unique_ptr<Event[], ChunkDelete>> chunks_;
  std::vector<SlotState> states_;
  std::vector<std::uint64_t> remote_;
  std::vector<std::uint32_t> free_;
  std::uint32_t next_ = 0;
  std::size_t live_ = 0;
};

}  // namespace tracewarp::detail
