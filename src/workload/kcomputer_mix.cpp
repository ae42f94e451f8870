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

Drawn draw_job(RandomStream& rng, const GroupMix& group, const KComputerMix& mix) {
  const SizeClass& size = group.sizes[pick_class(rng, group.sizes)];
  const auto& walltimes = kcomputer_walltime_classes();
  const std::size_t w = pick_class(rng, walltimes);
  const double lo = w == 0 ? kShortestRequestS : to_seconds(walltimes[w - 1].up_to);
  const double hi = to_seconds(walltimes[w].up_to);
  const double requested_s =
      std::min(hi, std::ceil(std::exp(std::log(lo) + rng.uniform() * std::log(hi / lo)) / 60) * 60);
  const double ratio = rng.uniform() < mix.full_share ? 1.0 : mix.min_ratio + rng.uniform() * (1 - mix.min_ratio);
  const double run_s = std::max(1.0, std::floor(requested_s * ratio));
  return {log_uniform(rng, size.min_nodes, size.max_nodes), from_seconds(requested_s), from_seconds(run_s)};
}

void check(const KComputerMix& mix) {
  const auto fail = [](const std::string& what) { throw ConfigError("K computer mix: " + what); };
  if (!(mix.days > 0 && mix.days <= 3650)) fail("days must lie in (0, 3650]");
  if (!(mix.full_share >= 0 && mix.full_share <= 1))
    fail("the share of jobs running to their walltime must lie in [0, 1]");
  if (!(mix.min_ratio > 0 && mix.min_ratio <= 1)) fail("the smallest run/request ratio must lie in (0, 1]");
  if (mix.users == 0) fail("needs at least one user");
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

workload::Workload generate_kcomputer_mix(const KComputerMix& mix) {
  check(mix);
  workload::Workload w;
  const Users users(mix.users);
  const double span_s = mix.days * 86'400;
  for (std::size_t g = 0; g < mix.groups.size(); ++g) {
    const GroupMix& group = mix.groups[g];
    RandomStream pilot(mix.seed, 1000 + g);
    double node_seconds = 0;
    for (std::size_t i = 0; i < kPilotJobs; ++i) {
      const Drawn d = draw_job(pilot, group, mix);
      node_seconds += d.nodes * to_seconds(d.run);
    }
    const double mean_gap_s = node_seconds / kPilotJobs / (group.load * group.group_nodes);
    RandomStream rng(mix.seed, g);
    for (double t = rng.exponential(mean_gap_s); t < span_s; t += rng.exponential(mean_gap_s)) {
      const Drawn d = draw_job(rng, group, mix);
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
  std::stable_sort(w.jobs.begin(), w.jobs.end(),
                   [](const workload::Job& a, const workload::Job& b) { return a.submit < b.submit; });
  for (std::size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].id = i + 1;
  char source[160];
  std::snprintf(
      source, sizeof source, "kcomputer-mix(seed=%llu, days=%g, groups=%zu, full_share=%g, min_ratio=%g, users=%u)",
      static_cast<unsigned long long>(mix.seed), mix.days, mix.groups.size(), mix.full_share, mix.min_ratio, mix.users);
  w.source = source;
  for (const GroupMix& g : mix.groups) w.source += "; " + g.name + " load " + std::to_string(g.load);
  w.max_nodes = 82'944;
  w.max_procs = 82'944LL * kCoresPerNode;
  w.header = {{"Computer", "K computer (generated mix)"},
              {"MaxNodes", "82944"},
              {"MaxProcs", std::to_string(w.max_procs)},
              {"CoresPerNode", std::to_string(kCoresPerNode)},
              {"Note", w.source}};
  w.tally.records = w.jobs.size();
  return w;
}

}  // namespace tracewarp::workload
