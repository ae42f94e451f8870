// A double-ended ring buffer that keeps its slots constructed, so that pushing into a slot that
// was used before copy-assigns into it and reuses the memory the old value owned. Histories of
// processed events, sent-event references and state snapshots all live in rings: they grow at the
// back as events are processed, shrink at the back on rollback and at the front on fossil
// collection.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tracewarp::detail {

template <class T>
class Ring {
 public:
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return slots_[wrap(head_ + i)]; }
  const T& operator[](std::size_t i) const noexcept { return slots_[wrap(head_ + i)]; }
  T& front() noexcept { return slots_[head_]; }
  T& back() noexcept { return (*this)[size_ - 1]; }

  // Appends a copy of value.
  void push_back(const T& value) {
    if (size_ == slots_.size()) [[unlikely]]
      grow(value);
    else
      (*this)[size_] = value;
    ++size_;
  }
  // Appends a slot and returns it; a reused slot keeps its old value (and its capacity).
  T& push_back_slot() {
    if (size_ == slots_.size()) [[unlikely]]
      grow(T{});
    return (*this)[size_++];
  }
  // Where the next push_back() will write (for prefetching); nullptr if it must grow first.
  const T* next_slot() const noexcept { return size_ < slots_.size() ? &(*this)[size_] : nullptr; }
  void pop_back() noexcept { --size_; }
  void pop_front() noexcept {
    head_ = wrap(head_ + 1);
    --size_;
  }
  void truncate(std::size_t n) noexcept { size_ = n; }

 private:
  std::size_t wrap(std::size_t i) const noexcept { return i >= slots_.size() ? i - slots_.size() : i; }
  // Full: puts the slots in order from index 0 and appends one holding value; out of line, off
  // the common path.
  [[gnu::noinline]] void grow(const T& value) {
    std::rotate(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(head_), slots_.end());
    head_ = 0;
    slots_.push_back(value);
  }

  // size_ first: a record holding a ring at the end of a cache line has its size in that line.
  std::size_t size_ = 0;
  std::size_t head_ = 0;
  std::vector<T> slots_;
};

}  // namespace tracewarp::detail
