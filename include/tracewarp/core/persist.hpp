// Saving a value as bytes and reading it back: what engine checkpoints are made of.
//
// A class whose state is to be saved lists its members once, for both directions:
//
//   class Queue {
//     ...
//     TRACEWARP_PERSIST(jobs_, front_, index_)   // expands to template <class A> void persist(A&)
//   };
//
// Members that are set by the constructor and never change (configuration, pointers to shared
// read-only data or to output objects) are left out: a checkpoint is restored into an object
// freshly built by the same code, and only what the run changed is read back into it. The
// engine proves each restore by comparing the restored object with the saved one (operator==),
// so a member missing from the list is reported, not silently lost.
//
// Without a persist member: arithmetic types, enums and trivially copyable structs are saved as
// their bytes (they must not hold pointers); std::string, vector, deque, map, set, their
// unordered and multi variants, optional, variant, pair, tuple and array element by element.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "tracewarp/core/error.hpp"

#define TRACEWARP_PERSIST(...)              \
  template <class TracewarpArchive>         \
  void persist(TracewarpArchive& archive) { \
    archive(__VA_ARGS__);                   \
  }

namespace tracewarp::persist {

class Writer;
class Reader;

template <class T>
void save(Writer& w, const T& value);
template <class T>
void load(Reader& r, T& value);

class Writer {
 public:
  void bytes(const void* data, std::size_t size) {
    if (size != 0) out_.append(static_cast<const char*>(data), size);  // data may be null when empty
  }
  template <class T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&v, sizeof v);
  }
  template <class... T>
  void operator()(const T&... v) {
    (save(*this, v), ...);
  }
  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  // `what` names the data in errors (for example the checkpoint file).
  Reader(std::string_view data, std::string what) : data_(data), what_(std::move(what)) {}
  void bytes(void* out, std::size_t size) {
    if (size == 0) return;  // `out` may be null (an empty vector's data)
    if (size > data_.size() - at_)
      throw InputError(what_ + ": truncated (needs " + std::to_string(size) + " more bytes at offset " +
                       std::to_string(at_) + ")");
    std::memcpy(out, data_.data() + at_, size);
    at_ += size;
  }
  template <class T>
  T value() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    bytes(&v, sizeof v);
    return v;
  }
  // A count of elements that follow, checked against the bytes left (a damaged count never
  // makes a huge allocation).
  std::size_t count(std::size_t min_element_bytes) {
    const auto n = value<std::uint64_t>();
    if (min_element_bytes > 0 && n > (data_.size() - at_) / min_element_bytes)
      throw InputError(what_ + ": damaged (a count of " + std::to_string(n) + " at offset " + std::to_string(at_) +
                       " exceeds the data)");
    return static_cast<std::size_t>(n);
  }
  template <class... T>
  void operator()(T&... v) {
    (load(*this, v), ...);
  }
  bool done() const { return at_ == data_.size(); }
  std::size_t offset() const { return at_; }
  const std::string& what() const { return what_; }

 private:
  std::string_view data_;
  std::size_t at_ = 0;
  std::string what_;
};

namespace detail {
template <class T>
concept HasPersist = requires(T& t, Writer& w, Reader& r) {
  t.persist(w);
  t.persist(r);
};
template <class T>
concept Associative = requires {
  typename T::key_type;
}
&&requires(const T& c) {
  c.begin();
  c.size();
};
template <class T>
concept Sequence = !Associative<T> && requires(T & c, std::size_t n) {
  typename T::value_type;
  c.begin();
  c.size();
  c.resize(n);
};
template <class T>
struct IsPair : std::false_type {};
template <class A, class B>
struct IsPair<std::pair<A, B>> : std::true_type {};
template <class T>
struct IsTuple : std::false_type {};
template <class... E>
struct IsTuple<std::tuple<E...>> : std::true_type {};
template <class T>
struct IsArray : std::false_type {};
template <class E, std::size_t N>
struct IsArray<std::array<E, N>> : std::true_type {};
template <class T>
struct IsOptional : std::false_type {};
template <class E>
struct IsOptional<std::optional<E>> : std::true_type {};
template <class T>
struct IsVariant : std::false_type {};
template <class... E>
struct IsVariant<std::variant<E...>> : std::true_type {};

// Loads alternative `index` of a variant: into the one it holds if that is the same (so that
// what its constructor set stays), else into a default-constructed one.
template <class V, std::size_t I = 0>
void load_alternative(Reader& r, V& v, std::size_t index) {
  if constexpr (I < std::variant_size_v<V>) {
    if (index != I) return load_alternative<V, I + 1>(r, v, index);
    using A = std::variant_alternative_t<I, V>;
    if (v.index() == I) return load(r, std::get<I>(v));
    if constexpr (std::is_default_constructible_v<A>) return load(r, v.template emplace<I>());
    throw InputError(r.what() + ": holds another alternative than the object restored into");
  } else {
    throw InputError(r.what() + ": damaged (variant alternative " + std::to_string(index) + ")");
  }
}
}  // namespace detail

template <class T>
void save(Writer& w, const T& v) {
  if constexpr (detail::HasPersist<T>) {
    const_cast<T&>(v).persist(w);  // persist() only reads when given a Writer
  } else if constexpr (std::is_same_v<T, std::string>) {
    w.value<std::uint64_t>(v.size());
    w.bytes(v.data(), v.size());
  } else if constexpr (detail::IsPair<T>::value) {
    save(w, v.first);
    save(w, v.second);
  } else if constexpr (detail::IsTuple<T>::value || detail::IsArray<T>::value) {
    std::apply([&](const auto&... e) { (save(w, e), ...); }, v);
  } else if constexpr (detail::IsOptional<T>::value) {
    w.value<std::uint8_t>(v.has_value());
    if (v) save(w, *v);
  } else if constexpr (detail::IsVariant<T>::value) {
    w.value<std::uint64_t>(v.index());
    std::visit([&](const auto& e) { save(w, e); }, v);
  } else if constexpr (detail::Associative<T> || detail::Sequence<T>) {
    using E = typename T::value_type;
    w.value<std::uint64_t>(v.size());
    if constexpr (detail::Sequence<T> && std::is_trivially_copyable_v<E> && requires { v.data(); })
      w.bytes(v.data(), v.size() * sizeof(E));
    else
      for (const auto& e : v) save(w, e);
  } else {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>,
                  "give this type a persist member (TRACEWARP_PERSIST) to save it");
    w.value(v);
  }
}

template <class T>
void load(Reader& r, T& v) {
  if constexpr (detail::HasPersist<T>) {
    v.persist(r);
  } else if constexpr (std::is_same_v<T, std::string>) {
    v.resize(r.count(1));
    r.bytes(v.data(), v.size());
  } else if constexpr (detail::IsPair<T>::value) {
    load(r, v.first);
    load(r, v.second);
  } else if constexpr (detail::IsTuple<T>::value || detail::IsArray<T>::value) {
    std::apply([&](auto&... e) { (load(r, e), ...); }, v);
  } else if constexpr (detail::IsOptional<T>::value) {
    if (r.value<std::uint8_t>() == 0) {
      v.reset();
    } else {
      if (!v) v.emplace();
      load(r, *v);
    }
  } else if constexpr (detail::IsVariant<T>::value) {
    detail::load_alternative(r, v, static_cast<std::size_t>(r.value<std::uint64_t>()));
  } else if constexpr (detail::Associative<T>) {
    // Keys of maps are read as non-const copies, then inserted at the end (they arrive sorted).
    // Key and value are built apart: clang cannot default-construct a std::pair whose value is a
    // nested class with default member initialisers of the class that persists it.
    const std::size_t n = r.count(1);
    v.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (requires { typename T::mapped_type; }) {
        typename T::key_type key{};
        typename T::mapped_type value{};
        load(r, key);
        load(r, value);
        v.emplace_hint(v.end(), std::move(key), std::move(value));
      } else {
        typename T::value_type e{};
        load(r, e);
        v.insert(v.end(), std::move(e));
      }
    }
  } else if constexpr (detail::Sequence<T>) {
    using E = typename T::value_type;
    const std::size_t n = r.count(1);
    v.clear();
    v.resize(n);
    if constexpr (std::is_trivially_copyable_v<E> && requires { v.data(); })
      r.bytes(v.data(), n * sizeof(E));
    else
      for (auto& e : v) load(r, e);
  } else {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>,
                  "give this type a persist member (TRACEWARP_PERSIST) to load it");
    v = r.value<T>();
  }
}

// Whether objects of T can be saved and loaded.
template <class T>
concept Persistable = detail::HasPersist<T>;

}  // namespace tracewarp::persist
