#include "tracewarp/workload/kcomputer_mix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/random.hpp"

namespace tracewarp::workload {
namespace {

constexpr std::uint32_t kCoresPerNode = 8;
constexpr double kShortestRequestS = 300;
constexpr std::size_t kPilotJobs = 100'000;

struct Drawn {
  std::uint32_t nodes;
  Time requested;
  Time run;
};

// log-uniform integer in [lo, hi]
std::uint32_t log_uniform(RandomStream& rng, std::uint32_t lo, std::uint32_t hi) {
  const double x = std::exp(std::log(lo) + rng.uniform() * (std::log(hi + 1.0) - std::log(lo)));
  return std::clamp(static_cast<std::uint32_t>(x), lo, hi);
}

template <class Classes>
std::size_t pick_class(RandomStream& rng, const Classes& classes) {
  double u = rng.uniform();
  for (std::size_t i = 0; i + 1 < classes.size(); ++i) {
    if (u < classes[i].share) return i;
    u -= classes[i].share;
  }
  return classes.size() - 1;
}

// A job of the given node and walltime classes.
Drawn draw_in_class(RandomStream& rng, const SizeClass& size, std::size_t w, const KComputerMix& mix) {
  const auto& walltimes = kcomputer_walltime_classes();
  const double lo = w == 0 ? kShortestRequestS : to_seconds(walltimes[w - 1].up_to);
  const double hi = to_seconds(walltimes[w].up_to);
  const double requested_s =
      std::min(hi, std::ceil(std::exp(std::log(lo) + rng.uniform() * std::log(hi / lo)) / 60) * 60);
  const double ratio = rng.uniform() < mix.full_share ? 1.0 : mix.min_ratio + rng.uniform() * (1 - mix.min_ratio);
  const double run_s = std::max(1.0, std::floor(requested_s * ratio));
  std::uint32_t nodes = log_uniform(rng, size.min_nodes, size.max_nodes);
  if (mix.scale_to > 0) nodes = scaled_nodes(nodes, mix.scale_from, mix.scale_to);
  return {nodes, from_seconds(requested_s), from_seconds(run_s)};
}

// Mean node-seconds of executed work per job of the group, from a pilot sample.
double mean_work(const GroupMix& group, const KComputerMix& mix, std::size_t g) {
  RandomStream pilot(mix.seed, 1000 + g);
  double node_seconds = 0;
  for (std::size_t i = 0; i < kPilotJobs; ++i) {
    const std::size_t size = pick_class(pilot, group.sizes);
    const std::size_t w = pick_class(pilot, kcomputer_walltime_classes());
    const Drawn d = draw_in_class(pilot, group.sizes[size], w, mix);
    node_seconds += d.nodes * to_seconds(d.run);
  }
  return node_seconds / kPilotJobs;
}

void check(const KComputerMix& mix) {
  const auto fail = [](const std::string& what) { throw ConfigError("K computer mix: " + what); };
  if (!(mix.days > 0 && mix.days <= 3650)) fail("days must lie in (0, 3650]");
  if (!(mix.full_share >= 0 && mix.full_share <= 1))
    fail("the share of jobs running to their walltime must lie in [0, 1]");
  if (!(mix.min_ratio > 0 && mix.min_ratio <= 1)) fail("the smallest run/request ratio must lie in (0, 1]");
  if (mix.users == 0) fail("needs at least one user");
  if (!(mix.daily_cv >= 0 && mix.daily_cv <= 10)) fail("the daily coefficient of variation must lie in [0, 10]");
  if (mix.scale_to > 0 && mix.scale_from == 0) fail("node scaling needs the machine size to scale from");
  if (mix.groups.empty()) fail("no resource groups");
  for (const GroupMix& g : mix.groups) {
    if (!(g.load > 0 && g.load <= 10)) fail("group " + g.name + ": offered load must lie in (0, 10]");
    double shares = 0;
    for (const SizeClass& s : g.sizes) {
      if (s.min_nodes == 0 || s.min_nodes > s.max_nodes) fail("group " + g.name + ": bad node class");
      shares += s.share;
    }
    if (std::abs(shares - 1) > 1e-9) fail("group " + g.name + ": node class shares do not sum to 1");
  }
}

// Zipf(1) user choice by inverse CDF.
class Users {
 public:
  explicit Users(std::uint32_t n) : cdf_(n) {
    double sum = 0;
    for (std::uint32_t i = 0; i < n; ++i) cdf_[i] = sum += 1.0 / (i + 1);
    for (double& c : cdf_) c /= sum;
  }
  std::int32_t pick(RandomStream& rng) const {
    const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), rng.uniform());
    return static_cast<std::int32_t>(std::min<std::size_t>(it - cdf_.begin(), cdf_.size() - 1));
  }

 private:
  std::vector<double> cdf_;
};

}  // namespace

const std::vector<WalltimeClass>& kcomputer_walltime_classes() {
  static const std::vector<WalltimeClass> classes{{from_seconds(std::int64_t{3600}), 0.38},
                                                  {from_seconds(std::int64_t{4 * 3600}), 0.34},
                                                  {from_seconds(std::int64_t{12 * 3600}), 0.20},
                                                  {from_seconds(std::int64_t{24 * 3600}), 0.08}};
  return classes;
}

std::vector<GroupMix> kcomputer_groups(bool with_small, double load_small, double load_large) {
  std::vector<GroupMix> groups;
  if (with_small) groups.push_back({"small", 9'216, {{1, 384, 1.0}}, load_small});
  groups.push_back({"large",
                    73'728,
                    {{385, 1'080, 0.75}, {1'081, 4'320, 0.20}, {4'321, 10'800, 0.03}, {10'801, 36'864, 0.02}},
                    load_large});
  return groups;
}

KComputerMix scaled_large_group_mix(KComputerMix mix, std::uint32_t nodes, double load) {
  mix.groups = kcomputer_groups(false, load, load);
  mix.groups.front().group_nodes = nodes;
  mix.scale_to = nodes;
  mix.scale_from = 82'944;
  return mix;
}

workload::Workload generate_kcomputer_mix(const KComputerMix& mix) {
  check(mix);
  workload::Workload w;
  const Users users(mix.users);
  const double span_s = mix.days * 86'400;
  const auto& walltimes = kcomputer_walltime_classes();
  for (std::size_t g = 0; g < mix.groups.size(); ++g) {
    const GroupMix& group = mix.groups[g];
    const double jobs_per_s = group.load * group.group_nodes / mean_work(group, mix, g);
    RandomStream rng(mix.seed, g), daily(mix.seed, 2000 + g);
    const LogNormal factor(1.0, mix.daily_cv);
    for (double day = 0; day < span_s; day += 86'400) {
      const double day_end = std::min(span_s, day + 86'400);
      for (std::size_t size = 0; size < group.sizes.size(); ++size)
        for (std::size_t wt = 0; wt < walltimes.size(); ++wt) {
          const double burst = mix.daily_cv > 0 ? factor.at(daily.normal()) : 1.0;
          const double mean_gap_s = 1 / (jobs_per_s * group.sizes[size].share * walltimes[wt].share * burst);
          for (double t = day + rng.exponential(mean_gap_s); t < day_end; t += rng.exponential(mean_gap_s)) {
            const Drawn d = draw_in_class(rng, group.sizes[size], wt, mix);
            workload::Job job;
            job.submit = from_seconds(std::floor(t));
            job.nodes = d.nodes;
            job.procs = d.nodes * kCoresPerNode;
            job.requested = d.requested;
            job.run = d.run;
            job.user = users.pick(rng);
            job.group = static_cast<std::int32_t>(g);
            job.status = 1;
            w.jobs.push_back(job);
          }
        }
    }
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(),
                   [](const workload::Job& a, const workload::Job& b) { return a.submit < b.submit; });
  for (std::size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].id = i + 1;
  char source[224];
  std::snprintf(source, sizeof source,
                "kcomputer-mix(seed=%llu, days=%g, groups=%zu, full_share=%g, min_ratio=%g, users=%u, daily_cv=%g)",
                static_cast<unsigned long long>(mix.seed), mix.days, mix.groups.size(), mix.full_share, mix.min_ratio,
                mix.users, mix.daily_cv);
  w.source = source;
  if (mix.scale_to > 0)
    w.source += "; nodes scaled from " + std::to_string(mix.scale_from) + " to " + std::to_string(mix.scale_to);
  for (const GroupMix& g : mix.groups)
    w.source += "; " + g.name + " load " + std::to_string(g.load) + " on " + std::to_string(g.group_nodes) + " nodes";
  const std::int64_t machine = mix.scale_to > 0 ? mix.scale_to : 82'944;
  w.max_nodes = machine;
  w.max_procs = machine * kCoresPerNode;
  w.header = {{"Computer", "K computer (generated mix)"},
              {"MaxNodes", std::to_string(machine)},
              {"MaxProcs", std::to_string(w.max_procs)},
              {"CoresPerNode", std::to_string(kCoresPerNode)},
              {"Note", w.source}};
  w.tally.records = w.jobs.size();
  return w;
}

}  // namespace tracewarp::workload
