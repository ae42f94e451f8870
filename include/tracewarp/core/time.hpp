// Simulated time: integer ticks. Models choose the unit; nanoseconds are recommended and are what
// every tracewarp model uses (a year is 3.2e16 ns, far below the int64 limit of 9.2e18).
// No floating point ever takes part in event ordering.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace tracewarp {

using Time = std::int64_t;

inline constexpr Time kTimeInfinity = std::numeric_limits<Time>::max();
inline constexpr Time kTicksPerSecond = 1'000'000'000;  // nanoseconds

// The longest duration or time of day any key or input may give, in seconds: about 31.7 years, a
// ninth of the clock's range, so that a time plus a few such durations never overflows it.
inline constexpr double kMaxDurationSeconds = 1e9;

constexpr Time from_seconds(std::int64_t s) { return s * kTicksPerSecond; }
inline Time from_seconds(double s) { return static_cast<Time>(std::llround(s * kTicksPerSecond)); }
constexpr double to_seconds(Time t) { return static_cast<double>(t) / kTicksPerSecond; }

// A sum of many times, exact and without overflow: whole seconds and the nanoseconds beyond them
// (10^7 waits of 10^4 s are 10^20 ns, past the int64 range: the replication study's queue delay
// summed in one Time went negative at 10^6 hosts). Trivially copyable, so it persists as bytes.
struct TimeSum {
  std::int64_t seconds = 0;
  std::int64_t nanoseconds = 0;  // in [0, kTicksPerSecond) after add()

  void add(Time t) {
    seconds += t / kTicksPerSecond;
    nanoseconds += t % kTicksPerSecond;
    if (nanoseconds >= kTicksPerSecond) nanoseconds -= kTicksPerSecond, ++seconds;
    if (nanoseconds < 0) nanoseconds += kTicksPerSecond, --seconds;
  }
  void add(const TimeSum& other) {
    seconds += other.seconds;
    add(Time{other.nanoseconds});
  }
  double in_seconds() const { return static_cast<double>(seconds) + static_cast<double>(nanoseconds) * 1e-9; }
  bool operator==(const TimeSum&) const = default;
};

}  // namespace tracewarp
