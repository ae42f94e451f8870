// Micro-benchmarks of the batch policies: the cost of one scheduling pass as the queue grows
// (the term that dominates EASY on an overloaded machine; see docs/performance-history.md).
//   build/bench/tracewarp_bench_policies --benchmark_filter=Easy
//   build/bench/tracewarp_bench_policies --benchmark_filter=Interval
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "policy/batch/free_runs.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/policy/batch/backfill.hpp"
#include "tracewarp/policy/batch/interval.hpp"
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
  QueueIndex index;  // what the model hands over (ArrivalOrderHints::index)
  ArrivalOrderHints hints{.index = &index};
  SchedulingInput input(bool indexed) const {
    return {0, queue, running, 1024, 3, 0, smallest, indexed ? &hints : nullptr};
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

// Interval scheduling on the K computer's small group: 9,216 nodes full of running jobs of 1-384
// contiguous nodes, pattern A, a queue of jobs of 1-384 nodes and up to 24 h.
struct IntervalSituation {
  static constexpr std::uint32_t kNodes = 9216;
  std::vector<RunningJob> running;
  std::vector<QueuedJob> queue;
  explicit IntervalSituation(std::size_t queued) {
    RandomStream rng(5, 5);
    const auto nodes = [&] { return 1 + static_cast<std::uint32_t>(rng.below(rng.uniform() < 0.8 ? 32 : 384)); };
    for (std::uint32_t first = 0, id = 0; first < kNodes; ++id) {
      const std::uint32_t n = std::min(nodes(), kNodes - first);
      running.push_back({id, n, 0, from_seconds(static_cast<std::int64_t>(60 + rng.below(86400))), first});
      first += n;
    }
    for (std::uint64_t i = 0; i < queued; ++i)
      queue.push_back({100000 + i, nodes(), from_seconds(static_cast<std::int64_t>(600 + rng.below(86400))), 0});
  }
  SchedulingInput input(Time now, std::size_t skip_running = 0) const {
    return {now, queue, std::span(running).subspan(skip_running), kNodes, 0, 0};
  }
};

// from_scratch: every pass searches every job. time_moves: passes alternate between two times a
// minute apart (running jobs' tails leave intervals), the places of the last pass are kept where
// they provably did not change. job_ends: passes alternate between the machine full and its
// first running job gone (freed space: placements cascade).
enum class IntervalCase { from_scratch, time_moves, job_ends };
void IntervalPass(benchmark::State& state, IntervalCase c) {
  const IntervalSituation s(static_cast<std::size_t>(state.range(0)));
  IntervalPolicy policy(parse_interval_pattern("A"), c == IntervalCase::from_scratch
                                                         ? IntervalPolicy::Passes::from_scratch
                                                         : IntervalPolicy::Passes::keep_places);
  bool odd = false;
  for (auto _ : state) {
    odd = !odd;
    const Time now = c == IntervalCase::time_moves && odd ? from_seconds(std::int64_t{60}) : 0;
    benchmark::DoNotOptimize(policy.pass(s.input(now, c == IntervalCase::job_ends && odd ? 1 : 0)));
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK_CAPTURE(IntervalPass, from_scratch, IntervalCase::from_scratch)->RangeMultiplier(4)->Range(64, 1024);
BENCHMARK_CAPTURE(IntervalPass, time_moves, IntervalCase::time_moves)->RangeMultiplier(4)->Range(64, 1024);
BENCHMARK_CAPTURE(IntervalPass, job_ends, IntervalCase::job_ends)->RangeMultiplier(4)->Range(64, 1024);

// One search along a plan's line that finds nothing (so every segment is read), as most searches
// of the K computer runs do: lines of N segments, each used in about a third of the 40 intervals
// at random, searched in windows of 6 intervals (about one segment in 16 free). 16 lines and 34
// windows, taken in a scrambled order so that the branch predictor cannot learn them. One
// benchmark per kernel this CPU runs; items are segments.
void FreeRunSearch(benchmark::State& state, detail::FreeRunSearch search) {
  RandomStream rng(7, 7);
  const auto third = [&] {
    return (rng.next_u64() & rng.next_u64()) | (rng.next_u64() & rng.next_u64() & rng.next_u64());
  };
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::vector<std::uint32_t>> firsts(16);
  std::vector<std::vector<std::uint64_t>> used(16);
  std::vector<detail::FreeRunLine> lines;
  for (std::size_t l = 0; l < firsts.size(); ++l) {
    std::uint32_t node = 0;
    for (std::size_t i = 0; i < n; ++i) {
      firsts[l].push_back(node);
      used[l].push_back(third() & ((std::uint64_t{1} << 40) - 1));
      node += static_cast<std::uint32_t>(1 + rng.below(30));
    }
    lines.push_back({firsts[l].data(), used[l].data(), n, node});
  }
  std::vector<std::pair<std::size_t, std::uint64_t>> queries;  // line, window
  for (std::size_t l = 0; l < lines.size(); ++l)
    for (std::size_t w = 0; w + 6 <= 40; ++w) queries.emplace_back(l, std::uint64_t{0x3f} << w);
  for (std::size_t i = queries.size(); i > 1; --i) std::swap(queries[i - 1], queries[rng.below(i)]);
  std::size_t i = 0;
  for (auto _ : state) {
    const auto [l, window] = queries[i];
    benchmark::DoNotOptimize(search(lines[l], 0, {window, lines[l].nodes, 0}));
    i = (i + 1) % queries.size();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
const bool kFreeRunSearchRegistered = [] {
  for (const detail::FreeRunKernel& k : detail::free_run_kernels())
    benchmark::RegisterBenchmark((std::string("FreeRunSearch/") + k.name).c_str(), FreeRunSearch, k.search)
        ->RangeMultiplier(8)
        ->Range(64, 4096);
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
