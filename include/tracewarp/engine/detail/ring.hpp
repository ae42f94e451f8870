// A double-ended ring buffer that keeps its slots constructed, so that pushing into a slot that
// was used before copy-assigns into it and reuses the memory the old value owned. Histories of
// processed events, sent-event references and state snapshots all live in rings: they grow at the
// back as events are processed, shrink at the back on rollback and at the front on fossil
// collection.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <utility>

namespace tracewarp::detail {

template <class T>
class Ring {
 public:
  Ring() = default;
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  Ring(Ring&& other) noexcept { swap(other); }
  Ring& operator=(Ring&& other) noexcept {
    Ring gone(std::move(*this));
    swap(other);
    return *this;
  }
  ~Ring() {
    std::destroy_n(slots_, slot_count_);
    if (slots_ != nullptr) ::operator delete (slots_, std::align_val_t{alignof(T)});
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return slots_[wrap(head_ + i)]; }
  const T& operator[](std::size_t i) const noexcept { return slots_[wrap(head_ + i)]; }
  T& front() noexcept { return slots_[head_]; }
  T& back() noexcept { return (*this)[size_ - 1]; }

  // Appends a copy of value.
  void push_back(const T& value) {
    if (size_ == slot_count_) [[unlikely]]
      grow(value);
    else
      (*this)[size_] = value;
    ++size_;
  }
  // Appends a slot and returns it; a reused slot keeps its old value (and its capacity).
  T& push_back_slot() {
    if (size_ == slot_count_) [[unlikely]]
      grow(T{});
    return (*this)[size_++];
  }
  // Where the next push_back() will write (for prefetching); nullptr if it must grow first.
  const T* next_slot() const noexcept { return size_ < slot_count_ ? &(*this)[size_] : nullptr; }
  void pop_back() noexcept { --size_; }
  void pop_front() noexcept { pop_front(1); }
  void pop_front(std::uint32_t n) noexcept {  // n <= size()
    head_ = static_cast<std::uint32_t>(wrap(std::size_t{head_} + n));
    size_ -= n;
  }
  void truncate(std::size_t n) noexcept { size_ = static_cast<std::uint32_t>(n); }

 private:
  std::size_t wrap(std::size_t i) const noexcept { return i >= slot_count_ ? i - slot_count_ : i; }

  // Full: puts the slots in order from index 0 and appends one holding value, in room that
  // doubles when it runs out; out of line, off the common path.
  [[gnu::noinline]] void grow(const T& value) {
    constexpr std::uint32_t kMost = std::numeric_limits<std::uint32_t>::max();
    if (slot_count_ == kMost) throw std::length_error("a ring of more than 2^32 - 1 records");
    std::rotate(slots_, slots_ + head_, slots_ + slot_count_);
    head_ = 0;
    if (slot_count_ == room_) {
      const std::uint32_t room = room_ == 0 ? 4 : room_ > kMost / 2 ? kMost : 2 * room_;
      T* slots = static_cast<T*>(::operator new (sizeof(T) * room, std::align_val_t{alignof(T)}));
      std::uninitialized_move_n(slots_, slot_count_, slots);
      std::destroy_n(slots_, slot_count_);
      if (slots_ != nullptr) ::operator delete (slots_, std::align_val_t{alignof(T)});
      slots_ = slots;
      room_ = room;
    }
    std::construct_at(slots_ + slot_count_, value);
    ++slot_count_;
  }

  void swap(Ring& other) noexcept {
    std::swap(size_, other.size_);
    std::swap(head_, other.head_);
    std::swap(slot_count_, other.slot_count_);
    std::swap(room_, other.room_);
    std::swap(slots_, other.slots_);
  }

  // 24 bytes, size_ first: a record holding a ring at the end of a cache line has its size in that
  // line, and the optimistic kernel's LP record holds two rings in its second line.
  std::uint32_t size_ = 0;
  std::uint32_t head_ = 0;
  std::uint32_t slot_count_ = 0;  // constructed slots: the ring's capacity
  std::uint32_t room_ = 0;        // slots the memory holds
  T* slots_ = nullptr;
};

}  // namespace tracewarp::detail
