// How a rank waits when it has nothing to run until other ranks answer (a GVT round, messages).
//
// It spins first: a peer with a core of its own answers within microseconds. Then it yields, then
// sleeps in steps growing to 1 ms, so that ranks sharing cores with each other or with other
// programs (an oversubscribed test, a busy node) hand them the CPU instead of spinning against
// them, and a rank left waiting on a stopped peer costs next to nothing. After `silence_s` of
// waiting with nothing heard (EngineConfig::silence_timeout_s; 0 = never), silent() says so, and
// the kernel stops the run naming the rank it waited for.
#pragma once

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

#include "kernel.hpp"

namespace tracewarp::detail {

class IdleWait {
 public:
  explicit IdleWait(double silence_s) : silence_s_(silence_s) {}

  // Work or a message came: the next wait starts by spinning again.
  void heard() { idle_ = 0; }

  // One turn of waiting.
  void wait() {
    ++idle_;
    if (idle_ < kSpins) return;
    if (idle_ == kSpins) {
      since_ = steady_seconds();
      pause_ = std::chrono::microseconds(20);
    }
    if (idle_ < kSpins + kYields) {
      sched_yield();
      return;
    }
    std::this_thread::sleep_for(pause_);
    pause_ = std::min<std::chrono::microseconds>(2 * pause_, std::chrono::milliseconds(1));
    silent_ = silence_s_ > 0 && steady_seconds() - since_ > silence_s_;
  }

  // Whether this wait has lasted longer than the silence timeout.
  bool silent() const { return idle_ >= kSpins + kYields && silent_; }
  double waited_s() const { return steady_seconds() - since_; }

 private:
  static constexpr std::uint32_t kSpins = 256;
  static constexpr std::uint32_t kYields = 256;
  double silence_s_;
  std::uint32_t idle_ = 0;
  double since_ = 0;
  bool silent_ = false;
  std::chrono::microseconds pause_{20};
};

}  // namespace tracewarp::detail
