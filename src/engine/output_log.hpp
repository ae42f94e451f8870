// The rows that a rank's uncommitted events emitted (optimistic mode), held until the events
// commit or are undone.
//
// Why one log per rank and not a buffer per event record: the records live in each LP's own
// history ring, so an event's rows went to a buffer that was cold (100,000 replication hosts, a
// few records each) and often new (a heap allocation per record slot's first use); writing them
// was 5-6% of an optimistic replication run and the record's first read a cache miss. Here every
// event appends at the same tail, which stays in cache, and a record holds only where its rows
// are. Events commit roughly in the order they ran, so chunks empty from the oldest end: a chunk
// is reused once no record points into it any more.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "tracewarp/engine/lp.hpp"

namespace tracewarp::detail {

class OutputLog {
 public:
  // Where one event's rows are (size 0: it emitted none, and holds no chunk).
  struct Span {
    std::uint32_t chunk = 0;
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
  };

  static constexpr std::size_t kChunkBytes = std::size_t{256} << 10;  // a few GVT rounds' rows; stays in L2

  // Opens the rows of the event about to run; append() adds to them, close() says where they are.
  void open() {
    if (chunks_.empty()) add_tail(kChunkBytes);
    if (chunks_[tail_].live == 0) fill_ = 0;  // nothing points into the tail: start it again
    start_ = fill_;
  }
  void append(RecordTag tag, const void* row, std::uint32_t size) {
    std::byte* at = reserve(sizeof(CommitContext::RecordHeader) + size);
    CommitContext::write_header(at, tag, size);
    if (size != 0) std::memcpy(at + sizeof(CommitContext::RecordHeader), row, size);
  }
  Span close() {
    const Span span{tail_, static_cast<std::uint32_t>(start_), static_cast<std::uint32_t>(fill_ - start_)};
    if (span.size != 0) ++chunks_[tail_].live;
    return span;
  }

  std::span<const std::byte> view(const Span& span) const {
    if (span.size == 0) return {};
    return {chunks_[span.chunk].bytes.get() + span.offset, span.size};
  }
  // The event committed or was undone: its rows are no longer needed.
  void release(Span& span) {
    if (span.size == 0) return;
    Chunk& chunk = chunks_[span.chunk];
    if (--chunk.live == 0 && span.chunk != tail_) retire(span.chunk);
    span = {};
  }

  std::uint64_t bytes() const {
    std::uint64_t total = 0;
    for (const Chunk& c : chunks_) total += c.capacity;
    return total;
  }

 private:
  struct Chunk {
    std::unique_ptr<std::byte[]> bytes;
    std::size_t capacity = 0;
    std::uint64_t live = 0;  // spans pointing into it
  };

  // Room for n more bytes of the open event's rows, moving them to a fresh chunk if the tail is
  // full (an event's rows stay contiguous).
  std::byte* reserve(std::size_t n) {
    if (fill_ + n > chunks_[tail_].capacity) [[unlikely]]
      move_to_new_tail(n);
    std::byte* at = chunks_[tail_].bytes.get() + fill_;
    fill_ += n;
    return at;
  }

  [[gnu::noinline]] void move_to_new_tail(std::size_t n) {
    const std::uint32_t old = tail_;
    const std::size_t open_bytes = fill_ - start_;
    const std::size_t needed = open_bytes + n;
    if (needed <= kChunkBytes && !spare_.empty()) {
      tail_ = spare_.back();
      spare_.pop_back();
    } else {
      add_tail(std::max(kChunkBytes, needed));
    }
    std::memcpy(chunks_[tail_].bytes.get(), chunks_[old].bytes.get() + start_, open_bytes);
    start_ = 0;
    fill_ = open_bytes;
    if (chunks_[old].live == 0) retire(old);
  }

  // Nothing points into chunk c any more: a standard one waits to be the tail again, a larger
  // one (made for one event's rows) is freed.
  void retire(std::uint32_t c) {
    Chunk& chunk = chunks_[c];
    if (chunk.capacity == kChunkBytes) {
      spare_.push_back(c);
    } else {
      chunk = {};
      unused_.push_back(c);
    }
  }

  void add_tail(std::size_t capacity) {
    Chunk fresh{std::make_unique_for_overwrite<std::byte[]>(capacity), capacity, 0};
    if (!unused_.empty()) {
      tail_ = unused_.back();
      unused_.pop_back();
      chunks_[tail_] = std::move(fresh);
    } else {
      chunks_.push_back(std::move(fresh));
      tail_ = static_cast<std::uint32_t>(chunks_.size() - 1);
    }
  }

  std::vector<Chunk> chunks_;
  std::vector<std::uint32_t> spare_;   // standard chunks nothing points into, other than the tail
  std::vector<std::uint32_t> unused_;  // entries of freed chunks, for the next new one
  std::uint32_t tail_ = 0;
  std::size_t start_ = 0;  // where the open event's rows begin in the tail
  std::size_t fill_ = 0;   // bytes of the tail in use
};

}  // namespace tracewarp::detail
