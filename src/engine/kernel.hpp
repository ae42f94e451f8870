// What both synchronisation kernels receive from Simulation::run: this rank's LPs and the
// placement of all LPs.
#pragma once

#include <algorithm>
#include <chrono>

#include <memory>
#include <string>
#include <vector>

#include "local_index.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/stats.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/config.hpp"
#include "tracewarp/engine/detail/lp_runtime.hpp"
#include "tracewarp/engine/partition.hpp"
#include "tracewarp/engine/simulation.hpp"

namespace tracewarp::detail {

struct LocalLp {
  LpId id;
  std::unique_ptr<LpRuntime> runtime;
  std::uint32_t checkpoint_interval;
  bool timed = false;  // LpTypeOptions::timed
  // Bytes of one state copy (LpRuntime::state_bytes), kept here so that the optimistic kernel's
  // memory accounting costs no virtual call per copy.
  std::size_t state_bytes = 0;
  // Bytes from the runtime object's address through the end of the model's state: what
  // execute() and commit() read of it (the vtable pointer, then the state), at most
  // kObjectPrefetchBytes. The kernels prefetch all of it, not only its first line.
  std::uint32_t object_bytes = 0;
  bool reverse = false;  // LpTypeOptions::reverse: undone by on_reverse, never copied

  static constexpr std::size_t kObjectPrefetchBytes = 256;
  static std::uint32_t object_bytes_of(const LpRuntime& runtime) {
    const auto* object = reinterpret_cast<const char*>(&runtime);
    const auto* state = static_cast<const char*>(runtime.state());
    const auto bytes = static_cast<std::size_t>(state - object) + runtime.state_bytes();
    return static_cast<std::uint32_t>(std::min(bytes, kObjectPrefetchBytes));
  }
};

struct KernelSetup {
  const Communicator& comm;
  const EngineConfig& config;
  Partition partition;
  LpId lp_count = 0;
  std::vector<LocalLp> lps;               // the LPs this rank owns, by increasing id
  LocalIndex local_index;                 // global id -> index in lps, or kNotLocal
  std::uint64_t memory_budget_bytes = 0;  // resolved (never 0)
  Time lookahead = 0;                     // resolved: engine.lookahead_s or the model's (conservative: > 0)
  // Checkpoints: a fresh LP as the model builds it (to prove each saved state restores), and
  // the model's other objects saved with the LPs.
  std::function<std::unique_ptr<LpRuntime>(LpId)> make_lp;
  const std::vector<PersistentObject>* objects = nullptr;
};

inline constexpr const char* kEmitInInit =
    "an LP emitted output from on_init; output can only come from events (it is released on commit)";

// A monotonic wall clock, in seconds.
inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The wall clock for what asks for it at every GVT round (the optimism tuner, progress reports):
// read only every `stride` calls, the stride doubling while reads come less than 50 us apart and
// halving when they come more than 200 us apart, so the value is at most about 0.4 ms old (the
// tuner's epochs last 50 ms).
// On one rank the tuner can settle on a GVT round per event or two, and reading the clock at each
// (26 ns in a loop, 5% of the run's samples in place on this KVM guest) was a cost of its own.
class SparseClock {
 public:
  double seconds() {
    if (until_read_ > 0) {
      --until_read_;
      return last_;
    }
    const double now = steady_seconds();
    const double gap = now - last_;
    if (gap < 5e-5 && stride_ < kMostStride)
      stride_ *= 2;
    else if (gap > 2e-4 && stride_ > 1)
      stride_ /= 2;
    until_read_ = stride_ - 1;
    return last_ = now;
  }

 private:
  static constexpr std::uint32_t kMostStride = 1024;
  std::uint32_t stride_ = 1;
  std::uint32_t until_read_ = 0;
  double last_ = 0;
};

// Calls config.progress at most twice a second; checks the clock only every so many calls.
class ProgressTicker {
 public:
  explicit ProgressTicker(const EngineConfig& config, bool reporting_rank);
  void tick(Time reached, std::uint64_t committed) {
    if (enabled_) report(reached, committed);
  }

 private:
  void report(Time reached, std::uint64_t committed);
  const EngineConfig& config_;
  bool enabled_;
  double start_;
  double last_ = 0;
  SparseClock clock_;
};

// Runs a handler, measuring its wall-clock time (microseconds) for timed LP types; -1 otherwise.
template <class Run>
double run_handler(bool timed, Run&& run) {
  if (!timed) {
    run();
    return -1;
  }
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

// A send between ranks sooner than the lookahead promised: what the kernels that rely on the
// lookahead (conservative windows, optimistic commits within it) stop with, exit code 2.
inline LookaheadError lookahead_broken(const char* mode, const Event& ev, const std::string& where, Time lookahead,
                                       const char* remedy) {
  return LookaheadError(std::string(mode) + " mode: LP " + std::to_string(ev.key.sender()) + " sent an event to LP " +
                        std::to_string(ev.dest) + " (on another rank) for time " + std::to_string(ev.key.time) + ", " +
                        where + ": the lookahead " + std::to_string(lookahead) +
                        " is longer than this model's shortest delay between ranks (use a smaller "
                        "engine.lookahead_s, or " +
                        remedy + ")");
}

// Commits one event: a fault it recorded stops the run; otherwise the LP's commit handler runs.
inline void commit_event(LpRuntime& lp, LpId id, const Event& ev, CommitContext& ctx) {
  if (const std::string fault = ctx.fault(); !fault.empty())
    throw InvariantError("LP " + std::to_string(id) + ", event kind " + std::to_string(ev.kind()) + " at time " +
                         std::to_string(ev.time()) + ": " + fault);
  lp.commit(ev, ctx);
}

RankStats run_sequential(KernelSetup& setup);
RankStats run_optimistic(KernelSetup& setup);
RankStats run_conservative(KernelSetup& setup);

// Bytes of engine memory a rank holds, for the budget; shared wording of the budget error.
std::string memory_budget_message(int rank, std::uint64_t held, std::uint64_t budget, std::uint64_t pending,
                                  std::uint64_t uncommitted);

}  // namespace tracewarp::detail
