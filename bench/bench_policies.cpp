// Micro-benchmarks of the batch policies: the cost of one scheduling pass as the queue grows
// (the term that dominates EASY on an overloaded machine; see docs/performance.md).
//   build/bench/tracewarp_bench_policies --benchmark_filter=Easy
#include <benchmark/benchmark.h>

#include <vector>

#include "tracewarp/core/random.hpp"
#include "tracewarp/policy/batch/backfill.hpp"
#include "tracewarp/policy/batch/profile.hpp"
#include "tracewarp/policy/batch/queue_index.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {

// A machine of 1024 nodes, 1000 running jobs, 3 nodes free, and a queue of jobs that mostly
// need more than that: the situation of an overloaded trace.
struct Situation {
  std::vector<QueuedJob> queue;
  std::vector<RunningJob> running;
  // with_small: every 100th queued job needs 1 node but runs long, so a pass cannot stop early
  // (it must look at the whole queue): the case of an overloaded trace with many small jobs.
  Situation(std::size_t queued, bool with_small) : smallest(with_small ? 1 : 4) {
    RandomStream rng(3, 3);
    for (std::uint64_t i = 0; i < 1000; ++i)
      running.push_back({i, 1, 0, from_seconds(static_cast<std::int64_t>(1 + rng.below(86400)))});
    std::sort(running.begin(), running.end(),
              [](const auto& a, const auto& b) { return a.requested_end < b.requested_end; });
    for (std::uint64_t i = 0; i < queued; ++i)
      queue.push_back({1000 + i, with_small && i % 100 == 99 ? 1 : 4 + static_cast<std::uint32_t>(rng.below(64)),
                       from_seconds(static_cast<std::int64_t>(with_small ? 200000 : 600 + rng.below(86400))), 0, 0,
                       1.0});
    for (const QueuedJob& q : queue) index.insert(q.id, q.nodes, q.requested);
  }
  std::uint32_t smallest;
  QueueIndex index;  // what the model hands over (SchedulingInput::index)
  SchedulingInput input(bool indexed) const {
    return {0, queue, running, 1024, 3, 0, smallest, 0, indexed ? &index : nullptr};
  }
};

// indexed: with the queue index the model passes (the pass skips blocks with no candidate);
// without it, the plain scan of the queue.
void EasyPass(benchmark::State& state, bool with_small, bool indexed) {
  const Situation s(static_cast<std::size_t>(state.range(0)), with_small);
  EasyBackfillPolicy easy;
  for (auto _ : state) benchmark::DoNotOptimize(easy.pass(s.input(indexed)));
  state.SetComplexityN(state.range(0));
}
BENCHMARK_CAPTURE(EasyPass, stops_early, false, false)->RangeMultiplier(4)->Range(64, 65536)->Complexity();
BENCHMARK_CAPTURE(EasyPass, scans_queue, true, false)->RangeMultiplier(4)->Range(64, 65536)->Complexity();
BENCHMARK_CAPTURE(EasyPass, scans_queue_indexed, true, true)->RangeMultiplier(4)->Range(64, 65536)->Complexity();

void ProfileFromRunning(benchmark::State& state) {
  const Situation s(1, false);
  for (auto _ : state) benchmark::DoNotOptimize(AvailabilityProfile(0, 3, s.running));
}
BENCHMARK(ProfileFromRunning);

void ShadowFromRunning(benchmark::State& state) {  // what EASY computes instead of the profile
  const Situation s(1, false);
  for (auto _ : state) benchmark::DoNotOptimize(shadow_of(0, 3, s.running, {}, 40));
}
BENCHMARK(ShadowFromRunning);

}  // namespace

BENCHMARK_MAIN();
