// Events are values: a key that orders them, a destination LP and a small payload.
//
// The key (time, kind, sender LP, sender sequence) is a total order that does not depend on the
// partition, rank count or thread count. `kind` doubles as the priority among events at the same
// time: a model numbers its event kinds in the order it wants simultaneous events handled (for
// example job ends before job starts). The sender's sequence number counts the events that LP
// has sent, so it is restored by rollback and identical in every synchronisation mode.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tracewarp/core/time.hpp"

namespace tracewarp {

using LpId = std::uint64_t;
using EventKind = std::uint16_t;

inline constexpr int kSenderBits = 48;
inline constexpr LpId kMaxLps = LpId{1} << kSenderBits;
inline constexpr std::size_t kMaxPayloadBytes = 64;

struct EventKey {
  Time time = 0;
  std::uint64_t kind_sender = 0;  // kind in the top 16 bits, sender LP in the low 48
  std::uint64_t seq = 0;

  static constexpr EventKey make(Time time, EventKind kind, LpId sender, std::uint64_t seq) {
    return {time, (std::uint64_t{kind} << kSenderBits) | sender, seq};
  }
  constexpr EventKind kind() const { return static_cast<EventKind>(kind_sender >> kSenderBits); }
  constexpr LpId sender() const { return kind_sender & (kMaxLps - 1); }

  // Lexicographic on (time, kind, sender, seq), exactly the documented order.
  friend constexpr auto operator<=>(const EventKey&, const EventKey&) = default;
};

// Smaller than every real key; the "nothing processed yet" marker.
inline constexpr EventKey kMinKey{std::numeric_limits<Time>::min(), 0, 0};

class Event {
 public:
  EventKey key;
  LpId dest = 0;
  std::uint32_t payload_size = 0;
  alignas(8) std::byte payload[kMaxPayloadBytes];

  Time time() const { return key.time; }
  EventKind kind() const { return key.kind(); }
  LpId sender() const { return key.sender(); }

  // The payload as a value of T (T must be what the sender sent for this kind).
  template <class T>
  T as() const {
    static_assert(std::is_trivially_copyable_v<T>, "payloads are trivially copyable values");
    static_assert(sizeof(T) <= kMaxPayloadBytes, "payload larger than kMaxPayloadBytes");
    T value;
    std::memcpy(&value, payload, sizeof(T));
    return value;
  }

  // Same destination, key and payload bytes.
  friend bool operator==(const Event& a, const Event& b) {
    return a.key == b.key && a.dest == b.dest && a.payload_size == b.payload_size &&
           std::memcmp(a.payload, b.payload, a.payload_size) == 0;
  }
};

}  // namespace tracewarp
