#include "tracewarp/workload/las_mix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/random.hpp"

namespace tracewarp::workload {
namespace {

constexpr std::size_t kPilotTasks = 100'000;

struct Draw {
  double run_s, cpu, memory;
  bool capped;
};

class TaskSampler {
 public:
  TaskSampler(const LasMix& mix, const LasTraceStats& s)
      : run_(s.mean_run_s, s.run_cv), cpu_(mix.mean_demand, s.cpu_cv), memory_(mix.mean_demand, s.memory_cv) {
    // Gaussian correlation giving the log-normals the wanted Pearson correlation.
    const double scale = std::sqrt(std::expm1(cpu_.sigma * cpu_.sigma) * std::expm1(memory_.sigma * memory_.sigma));
    rho_ = std::clamp(std::log1p(s.correlation * scale) / (cpu_.sigma * memory_.sigma), -1.0, 1.0);
  }
  Draw draw(RandomStream& rng) const {
    const double z_run = rng.normal(), z1 = rng.normal(), z2 = rho_ * z1 + std::sqrt(1 - rho_ * rho_) * rng.normal();
    Draw d{std::max(1.0, std::round(std::min(run_.at(z_run), 7 * 86'400.0))), cpu_.at(z1), memory_.at(z2), false};
    if (d.cpu > 1 || d.memory > 1) d.capped = true;
    d.cpu = std::min(1.0, d.cpu);
    d.memory = std::min(1.0, d.memory);
    return d;
  }

 private:
  LogNormal run_, cpu_, memory_;
  double rho_ = 0;
};

}  // namespace

LasTraceStats las_trace_stats(const std::string& trace) {
  if (trace == "google") return {2.97, 0.81, 0.91, 0.33, 300};
  if (trace == "alibaba") return {6.60, 0.38, 0.34, 0.28, 100};
  throw ConfigError("unknown LAS workload '" + trace + "' (google or alibaba)");
}

workload::Workload generate_las_mix(const LasMix& mix) {
  LasTraceStats stats = las_trace_stats(mix.trace);
  if (mix.mean_run_s > 0) stats.mean_run_s = mix.mean_run_s;
  if (mix.tasks == 0 || mix.nodes == 0) throw ConfigError("LAS mix: needs tasks and nodes");
  if (!(mix.load > 0 && mix.load <= 10)) throw ConfigError("LAS mix: load must lie in (0, 10]");
  if (!(mix.mean_demand > 0 && mix.mean_demand <= 0.5)) throw ConfigError("LAS mix: mean_demand must lie in (0, 0.5]");
  const TaskSampler sampler(mix, stats);
  // The pacing: per-resource work per task from a pilot sample (its own stream).
  RandomStream pilot(mix.seed, 1000);
  double cpu_work = 0, memory_work = 0;
  for (std::size_t i = 0; i < kPilotTasks; ++i) {
    const Draw d = sampler.draw(pilot);
    cpu_work += d.cpu * d.run_s;
    memory_work += d.memory * d.run_s;
  }
  const double work = std::max(cpu_work, memory_work) / kPilotTasks;  // the busier resource sets the pace
  const double mean_gap_s = work / (mix.load * mix.nodes);
  RandomStream rng(mix.seed, 0);
  workload::Workload w;
  double t = 0;
  for (std::uint64_t i = 0; i < mix.tasks; ++i) {
    t += rng.exponential(mean_gap_s);
    const Draw d = sampler.draw(rng);
    workload::Job j;
    j.id = i;
    j.submit = from_seconds(std::floor(t));
    j.run = from_seconds(d.run_s);
    j.requested = j.run;
    j.cpus = static_cast<float>(d.cpu);
    j.memory = static_cast<float>(d.memory);
    if (d.capped) w.tally.repair("request above one node: capped at one node");
    w.jobs.push_back(j);
  }
  char source[200];
  std::snprintf(source, sizeof source,
                "las-mix(%s, tasks=%llu, nodes=%u, load=%g per resource, mean_demand=%g, mean_run=%g s, seed=%llu)",
                mix.trace.c_str(), static_cast<unsigned long long>(mix.tasks), mix.nodes, mix.load, mix.mean_demand,
                stats.mean_run_s, static_cast<unsigned long long>(mix.seed));
  w.source = source;
  w.tally.records = w.jobs.size();
  return w;
}

}  // namespace tracewarp::workload
