// Micro-benchmarks of the replication model's availability walk: one step's two normals with each
// kernel this CPU runs, against the per-step draw it replaced (one Philox block and the C
// library's log, sin and cos). Figures in docs/performance-history.md ("Replication model").
//   build/bench/tracewarp_bench_walk
#include <Random123/philox.h>
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>
#include <string>

#include "tracewarp/model/replication/walk_draws.hpp"

using namespace tracewarp::replication;

namespace {

// Items processed are steps: the figure is the time per step.
void Kernel(benchmark::State& state, DrawSteps draw) {
  StepNormals out{};
  std::uint64_t step = 0;
  for (auto _ : state) {
    draw({1, 12345}, step, out);
    benchmark::DoNotOptimize(out);
    step += kWalkBatch;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kWalkBatch);
}

void LibmPerStep(benchmark::State& state) {
  using Philox = r123::Philox4x32;
  std::uint64_t step = 0;
  for (auto _ : state) {
    const Philox::ctr_type ctr = {{static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(step >> 32), 12345, 0}};
    const Philox::ctr_type r = Philox()(ctr, {{1, 0x57a1c0deu}});
    const auto top53 = [](std::uint32_t hi, std::uint32_t lo) { return ((std::uint64_t{hi} << 32) | lo) >> 11; };
    const double u1 = (static_cast<double>(top53(r[0], r[1])) + 1) * 0x1.0p-53;
    const double u2 = static_cast<double>(top53(r[2], r[3])) * 0x1.0p-53;
    const double radius = std::sqrt(-2 * std::log(u1));
    benchmark::DoNotOptimize(radius * std::cos(2 * std::numbers::pi * u2));
    benchmark::DoNotOptimize(radius * std::sin(2 * std::numbers::pi * u2));
    ++step;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(LibmPerStep);

const bool registered = [] {
  for (const WalkKernel& k : walk_kernels())
    benchmark::RegisterBenchmark(("WalkKernel/" + std::string(k.name)).c_str(), Kernel, k.draw);
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
