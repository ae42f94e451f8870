// Storage for the events a rank holds (pending, processed-but-uncommitted, cancelled).
// Chunked so that addresses stay stable while handlers send (a handler holds a reference to the
// event it is processing while new events are allocated).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tracewarp/engine/event.hpp"

namespace tracewarp::detail {

enum class SlotState : std::uint8_t { pending, processed, cancelled };

struct EventSlot {
  Event event;
  SlotState state = SlotState::pending;
  bool from_remote = false;  // indexed in the rank's remote-event table
};

class EventPool {
 public:
  static constexpr std::uint32_t kChunkBits = 12;
  static constexpr std::uint32_t kChunkSize = 1u << kChunkBits;

  std::uint32_t alloc() {
    ++live_;
    if (!free_.empty()) {
      const std::uint32_t s = free_.back();
      free_.pop_back();
      return s;
    }
    if ((next_ & (kChunkSize - 1)) == 0 && (next_ >> kChunkBits) == chunks_.size())
      chunks_.push_back(std::make_unique<EventSlot[]>(kChunkSize));
    return next_++;
  }
  void free(std::uint32_t s) {
    free_.push_back(s);
    --live_;
  }
  EventSlot& slot(std::uint32_t s) { return chunks_[s >> kChunkBits][s & (kChunkSize - 1)]; }
  Event& operator[](std::uint32_t s) { return slot(s).event; }
  std::size_t live() const { return live_; }

 private:
  std::vector<std::unique_ptr<EventSlot[]>> chunks_;
  std::vector<std::uint32_t> free_;
  std::uint32_t next_ = 0;
  std::size_t live_ = 0;
};

}  // namespace tracewarp::detail
