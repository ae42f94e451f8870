// Random batch workloads for invariant and determinism tests: frequent same-second submissions,
// mostly small jobs with some up to the whole machine, and optionally jobs that overrun their
// request (killed at walltime) and several users.
#pragma once

#include <vector>

#include "tracewarp/core/random.hpp"
#include "tracewarp/jobs/job.hpp"

namespace tracewarp::testing {

struct RandomJobsOptions {
  std::int64_t max_gap_s = 60;  // submissions 0..max_gap_s-1 seconds apart
  double large_fraction = 0.2;  // jobs drawn up to the whole machine (others: a quarter)
  std::uint32_t oversize = 0;   // large jobs may exceed the machine by this many nodes
  std::int64_t max_requested_s = 7200;
  double overrun_fraction = 0.1;  // jobs that run past their request
  std::uint64_t users = 1;
};

inline std::vector<workload::Job> random_jobs(std::uint64_t seed, std::size_t n, std::uint32_t machine,
                                              const RandomJobsOptions& o = {}) {
  RandomStream rng(seed, 0);
  std::vector<workload::Job> jobs;
  Time t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += from_seconds(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(o.max_gap_s))));
    workload::Job j;
    j.id = i + 1;
    j.submit = t;
    const bool large = rng.uniform() < o.large_fraction;
    j.nodes = 1 + static_cast<std::uint32_t>(rng.below(large ? machine + o.oversize : std::max(1u, machine / 4)));
    j.requested =
        from_seconds(static_cast<std::int64_t>(60 + rng.below(static_cast<std::uint64_t>(o.max_requested_s))));
    j.run = rng.uniform() < o.overrun_fraction
                ? j.requested + from_seconds(std::int64_t{100})
                : 1 + static_cast<Time>(rng.below(static_cast<std::uint64_t>(j.requested)));
    j.user = static_cast<std::int32_t>(rng.below(o.users));
    jobs.push_back(j);
  }
  return jobs;
}

}  // namespace tracewarp::testing
