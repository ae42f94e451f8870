// A contiguous sequence with spare room at both ends: inserting or erasing moves the elements on
// the shorter side of the position. For sorted lists that change near both ends — running jobs by
// requested end: the ones ending leave near the front, new ones join near the back — where a
// std::vector would move nearly every element at each removal. Elements are read as a span.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

namespace tracewarp {

template <class T>
class DoubleEndedVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "spare slots hold default values and are moved as bytes");

 public:
  std::size_t size() const { return tail_ - head_; }
  bool empty() const { return tail_ == head_; }
  T* begin() { return buf_.data() + head_; }
  T* end() { return buf_.data() + tail_; }
  const T* begin() const { return buf_.data() + head_; }
  const T* end() const { return buf_.data() + tail_; }
  const T& operator[](std::size_t i) const { return buf_[head_ + i]; }
  const T& front() const { return buf_[head_]; }
  operator std::span<const T>() const { return {begin(), end()}; }

  // Inserts before `at` (an index, 0..size()).
  void insert(std::size_t at, const T& value) {
    const bool front_side = at < size() / 2;
    if (front_side ? head_ == 0 : tail_ == buf_.size()) recenter();
    if (front_side) {
      std::move(begin(), begin() + at, begin() - 1);
      --head_;
    } else {
      std::move_backward(begin() + at, end(), end() + 1);
      ++tail_;
    }
    buf_[head_ + at] = value;
  }
  // Erases the element at index `at`.
  void erase(std::size_t at) {
    if (at < size() / 2) {
      std::move_backward(begin(), begin() + at, begin() + at + 1);
      ++head_;
    } else {
      std::move(begin() + at + 1, end(), begin() + at);
      --tail_;
    }
  }

  bool operator==(const DoubleEndedVector& other) const {
    return std::equal(begin(), end(), other.begin(), other.end());
  }

  // Saved as the live elements only (core/persist.hpp): a restored copy has its room recentred.
  template <class Archive>
  void persist(Archive& archive) {
    std::vector<T> live(begin(), end());
    archive(live);
    if (live.size() != size() || !std::equal(live.begin(), live.end(), begin())) assign(live);
  }

 private:
  // Puts the elements in the middle of a buffer with as much room again on each side.
  void recenter() {
    const std::size_t n = size(), room = n + 8;
    std::vector<T> fresh(n + 2 * room);
    std::copy(begin(), end(), fresh.begin() + static_cast<std::ptrdiff_t>(room));
    buf_ = std::move(fresh);
    head_ = room;
    tail_ = room + n;
  }
  void assign(const std::vector<T>& items) {
    buf_.assign(items.size() + 16, T{});
    head_ = 8;
    tail_ = 8 + items.size();
    std::copy(items.begin(), items.end(), begin());
  }

  std::vector<T> buf_;  // live elements are buf_[head_, tail_)
  std::size_t head_ = 0, tail_ = 0;
};

}  // namespace tracewarp
