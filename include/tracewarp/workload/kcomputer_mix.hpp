// The K computer job-mix generator (docs/studies.md#batch). The interval-scheduling study built its mixes
// statistically from six months of the machine's large-group log and published only class
// shares; those are matched exactly in expectation:
//   requested walltime   <= 1 h : 4 h : 12 h : 24 h   = 38% : 34% : 20% : 8%
//   nodes (large group)  385-1,080 : -4,320 : -10,800 : -36,864 = 75% : 20% : 3% : 2%
// Everything else is an assumption of ours, each a setting with the default below and why:
//   * walltime and node classes are drawn independently (the study gives only marginals);
//   * inside a class, nodes and requested walltime are log-uniform (both span decades, and
//     small values are the more common), walltimes rounded up to whole minutes; the shortest
//     request is 5 min;
//   * the last 5% of node counts split 3% / 2% (larger jobs are rarer);
//   * executed run time = requested x r: r = 1 for `full_share` of jobs (they run into their
//     walltime; 15%), otherwise r is uniform in [min_ratio, 1) (0.1) — a mean of about 0.6,
//     the usual order of run/request ratios on production machines;
//   * arrivals per group come at the rate that offers `load` x the group's nodes in node-seconds
//     (0.9: a busy capability machine), on the machine the jobs run on: with `scale_to` set, node
//     counts are scaled from `scale_from` nodes (rounded up, workload::scaled_nodes) before the
//     offered load is computed, so rounding small jobs up does not load the machine beyond the
//     target. The mean job size for that rate comes from a 100,000-job pilot sample of the same
//     (scaled) distribution, on its own random stream;
//   * submissions are bursty, as the study's per-class job counts had variances: the rate of
//     each class (node class x walltime class) is multiplied, each day, by a log-normal factor
//     of mean 1 and coefficient of variation `daily_cv` (0.5), drawn on its own stream; within
//     a day a class's submissions are Poisson. daily_cv = 0 gives a plain Poisson stream;
//   * the small group (9,216 nodes, jobs of 1-384 nodes) has one log-uniform node class and the
//     same walltime classes;
//   * users: `users` (100), chosen with Zipf(1) weights, so a few users submit most jobs.
// With the defaults a 30-day month has about 13,000 large-group and 40,000 small-group jobs,
// inside the study's 20,000-60,000 per month for the whole machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tracewarp/core/time.hpp"
#include "tracewarp/jobs/job.hpp"

namespace tracewarp::workload {

struct SizeClass {
  std::uint32_t min_nodes, max_nodes;
  double share;
};

struct GroupMix {
  std::string name;
  std::uint32_t group_nodes;  // the nodes the offered load refers to (after scaling, if any)
  std::vector<SizeClass> sizes;
  double load = 0.9;
};

struct KComputerMix {
  double days = 21;
  std::vector<GroupMix> groups;  // default: small and large
  double full_share = 0.15;
  double min_ratio = 0.1;
  double daily_cv = 0.5;              // day-to-day variation of each class's rate; 0 = plain Poisson
  std::uint32_t scale_to = 0;         // > 0: job node counts scaled to a machine of this many nodes ...
  std::uint32_t scale_from = 82'944;  // ... from one of this many
  std::uint32_t users = 100;
  std::uint64_t seed = 1;
};

// The study's groups with the default loads: {"small", "large"} or just {"large"}.
std::vector<GroupMix> kcomputer_groups(bool with_small, double load_small, double load_large);
// The large-group mix alone on a scaled machine of `nodes` nodes (the study's 768-node setup):
// node counts scaled from the full machine, the load offered on `nodes`.
KComputerMix scaled_large_group_mix(KComputerMix mix, std::uint32_t nodes, double load);

// The requested-walltime classes: upper bounds and shares (published).
struct WalltimeClass {
  Time up_to;
  double share;
};
const std::vector<WalltimeClass>& kcomputer_walltime_classes();

// A mix, sorted by submit time; job ids 1.. in that order; procs = 8 per node (SPARC64 VIIIfx).
// Settings out of range -> ConfigError.
workload::Workload generate_kcomputer_mix(const KComputerMix& mix);

}  // namespace tracewarp::workload
