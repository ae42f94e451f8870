// Storage for the events a rank holds (pending, processed-but-uncommitted, cancelled).
// Chunked so that addresses stay stable while handlers send (a handler holds a reference to the
// event it is processing while new events are allocated).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

#include "tracewarp/engine/event.hpp"

namespace tracewarp::detail {

enum class SlotState : std::uint8_t { pending, processed, cancelled };

// Per-slot bookkeeping, kept apart from the events in a dense array: the event loop checks it
// for every pending event, and a byte per slot stays in cache where the 100-byte events do not.
struct SlotInfo {
  SlotState state = SlotState::pending;
  bool from_remote = false;  // indexed in the rank's remote-event table
};

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
      info_.resize(info_.size() + kChunkSize);
    }
    return next_++;
  }
  void free(std::uint32_t s) {
    free_.push_back(s);
    --live_;
  }
  Event& operator[](std::uint32_t s) { return chunks_[s >> kChunkBits][s & (kChunkSize - 1)]; }
  // Copies `ev` into slot s: the header word by word and only the payload words in use. A sent
  // event was just written field by field; copying it whole, in wider loads than those stores,
  // stalls on every load that spans two of them, and most payloads are far shorter than 64 bytes.
  void store(std::uint32_t s, const Event& ev) {
    Event& to = (*this)[s];
    to.key = ev.key;
    to.dest = ev.dest;
    to.payload_size = ev.payload_size;
    const std::uint32_t words = (ev.payload_size + 7) / 8;
    for (std::uint32_t w = 0; w < words; ++w) std::memcpy(to.payload + 8 * w, ev.payload + 8 * w, 8);
  }
  SlotInfo& info(std::uint32_t s) { return info_[s]; }
  std::size_t live() const { return live_; }

 private:
  // Chunks are 2 MiB-aligned and, on Linux, offered to the kernel for transparent huge pages:
  // with millions of pending events every event touched is a TLB miss and every new page a fault.
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  struct ChunkDelete {
    void operator()(Event* chunk) const { ::operator delete (chunk, std::align_val_t{kHugePage}); }
  };
  static std::unique_ptr<Event[], ChunkDelete> new_chunk() {
    constexpr std::size_t bytes = sizeof(Event) * kChunkSize;
    auto* chunk = static_cast<Event*>(::operator new (bytes, std::align_val_t{kHugePage}));
#ifdef MADV_HUGEPAGE
    madvise(chunk, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);  // a hint: failure changes nothing
#endif
    std::uninitialized_default_construct_n(chunk, kChunkSize);
    return std::unique_ptr<Event[], ChunkDelete>(chunk);
  }
  std::vector<std::unique_ptr<Event[], ChunkDelete>> chunks_;
  std::vector<SlotInfo> info_;
  std::vector<std::uint32_t> free_;
  std::uint32_t next_ = 0;
  std::size_t live_ = 0;
};

}  // namespace tracewarp::detail
