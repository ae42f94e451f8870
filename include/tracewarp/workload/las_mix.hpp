// Task-workload generators for the multi-resource LAS study (docs/studies.md#las), calibrated to the
// published statistics of the two traces it used:
//
//   trace          run-time CV   CPU-request CV   memory-request CV   CPU-memory correlation
//   google (2011)  2.97          0.81             0.91                0.33
//   alibaba (2018) 6.60          0.38             0.34                0.28
//
// Our choices where the study gives no number, each a setting with its default and reason:
//   * run times are log-normal with the CV above (heavy-tailed: most tasks take seconds to
//     hundreds of seconds, a few hours); mean 300 s (Google) / 100 s (Alibaba), so that medians
//     fall at about 96 s and 15 s; whole seconds, at least 1 s;
//   * CPU and memory requests are log-normal with the CVs above, joined by a Gaussian copula whose
//     correlation is solved so the requests' own (Pearson) correlation is the table's; means
//     are `mean_demand` (0.05) of a node — a node holds about 20 average tasks — and requests
//     are capped at one node (the cap is counted in the workload's repairs);
//   * submit times are Poisson at the rate that offers `load` per resource on `nodes` nodes of
//     capacity 1: with both resources at 1.0, the cluster load sqrt(sum_r load_r^2) is sqrt 2.
//     The LAS model's default closed loop ignores them and releases tasks in this order while
//     the cluster load is below sqrt 2 (model/las/las_model.hpp); they pace the open loop.
//     The mean work per task for that rate comes from a 100,000-task pilot sample.
#pragma once

#include <cstdint>
#include <string>

#include "tracewarp/jobs/job.hpp"

namespace tracewarp::workload {

struct LasMix {
  std::string trace = "google";  // google or alibaba: the row of the table
  std::uint64_t tasks = 69'524;
  std::uint32_t nodes = 256;
  double load = 1.0;          // offered load per resource (sqrt 2 for the pair)
  double mean_demand = 0.05;  // mean CPU and memory request, in nodes
  double mean_run_s = 0;      // 0: the trace's default (300 s Google, 100 s Alibaba)
  std::uint64_t seed = 1;
};

struct LasTraceStats {
  double run_cv, cpu_cv, memory_cv, correlation, mean_run_s;
};
LasTraceStats las_trace_stats(const std::string& trace);  // ConfigError for other names

// Sorted by submit time; ids 0.. in that order; cpus and memory are fractions of a node.
workload::Workload generate_las_mix(const LasMix& mix);

}  // namespace tracewarp::workload
