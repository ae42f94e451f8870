// Random multi-resource task workloads for the LAS tests: heavy-tailed run times (most short, a
// few long), CPU and memory demands up to half a node, arrivals at random gaps.
#pragma once

#include <cmath>
#include <vector>

#include "tracewarp/core/random.hpp"
#include "tracewarp/jobs/job.hpp"

namespace tracewarp::testing {

inline workload::Workload random_tasks(std::uint64_t seed, std::size_t n, double mean_gap_s) {
  RandomStream rng(seed, 7);
  workload::Workload w;
  Time t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += from_seconds(std::floor(rng.exponential(mean_gap_s)));
    workload::Job j;
    j.id = 1000 + i;
    j.submit = t;
    // Pareto-like: 1 s .. about 3 hours, most under a minute.
    j.run = from_seconds(std::ceil(std::min(10'000.0, 2.0 / std::pow(1.0 - rng.uniform(), 1.2))));
    j.cpus = static_cast<float>(0.05 + 0.45 * rng.uniform());
    j.memory = static_cast<float>(0.05 + 0.45 * rng.uniform());
    w.jobs.push_back(j);
  }
  return w;
}

}  // namespace tracewarp::testing
