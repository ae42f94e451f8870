// Per-LP counter-based random streams (Random123 Philox4x32-10).
//
// A stream is keyed by (seed, LP id) and advanced by a counter. Because the whole generator is a
// few integers that live in the LP's state, rolling the LP's state back rolls the stream back
// exactly, and the numbers an LP draws do not depend on where or when it runs.
#pragma once

#include <Random123/philox.h>

#include <cmath>
#include <cstdint>
#include <numbers>

namespace tracewarp {

class RandomStream {
 public:
  RandomStream() = default;
  RandomStream(std::uint64_t seed, std::uint64_t lp_id) : seed_(seed), stream_(lp_id) {}

  // 64 uniformly distributed bits.
  std::uint64_t next_u64() {
    if (used_ >= 2) refill();
    return block_[used_++];
  }
  // Uniform in [0, 1) with 53 bits of resolution.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias below 2^-64 * n).
  std::uint64_t below(std::uint64_t n) {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<u128>(next_u64()) * n) >> 64);
  }
  // Exponentially distributed with the given mean.
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  // Standard normal (Box-Muller, one value per call, so the draw order is fixed).
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

  std::uint64_t draws() const { return counter_ * 2 - (2 - used_); }
  // Back (or on) to the state after `n` draws, exactly as drawing them from the start would leave
  // it: reverse computation undoes a handler's draws with it (its draws() kept before).
  void rewind_to(std::uint64_t n) {
    if (n == draws()) return;
    if (n == 0) {
      counter_ = 0;
      block_[0] = block_[1] = 0;
      used_ = 2;
      return;
    }
    counter_ = (n - 1) / 2;  // the block draw n came from, generated again
    refill();
    used_ = static_cast<std::uint32_t>(2 - (2 * counter_ - n));
  }
  friend bool operator==(const RandomStream&, const RandomStream&) = default;

 private:
  void refill() {
    using Philox = r123::Philox4x32;
    Philox::ctr_type ctr = {{static_cast<std::uint32_t>(counter_), static_cast<std::uint32_t>(counter_ >> 32),
                             static_cast<std::uint32_t>(stream_), static_cast<std::uint32_t>(stream_ >> 32)}};
    Philox::key_type key = {{static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32)}};
    const Philox::ctr_type out = Philox()(ctr, key);
    block_[0] = (std::uint64_t{out[0]} << 32) | out[1];
    block_[1] = (std::uint64_t{out[2]} << 32) | out[3];
    ++counter_;
    used_ = 0;
  }

  std::uint64_t seed_ = 0;
  std::uint64_t stream_ = 0;
  std::uint64_t counter_ = 0;
  std::uint64_t block_[2] = {0, 0};
  std::uint32_t used_ = 2;
};

// Log-normal with the given mean and coefficient of variation: exp(mu + sigma z), z standard normal.
struct LogNormal {
  double mu, sigma;
  LogNormal(double mean, double cv) : sigma(std::sqrt(std::log1p(cv * cv))) { mu = std::log(mean) - sigma * sigma / 2; }
  double at(double z) const { return std::exp(mu + sigma * z); }
};

}  // namespace tracewarp
