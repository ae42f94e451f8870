// Workload transformations the studies use. Each one changes a Workload in place and appends a
// description of itself to Workload::transforms, which goes into the results file, so a run's
// workload can be rebuilt from its output alone. apply_transforms runs them in this fixed order:
// keep only successful jobs, drop short jobs, take a window, set requested-time accuracy, scale inter-arrival times,
// scale node counts.
#pragma once

#include <cstdint>

#include <string>

#include "tracewarp/core/params.hpp"
#include "tracewarp/workload/workload.hpp"

namespace tracewarp::workload {

struct Transforms {
  bool successful_only = false;      // keep only jobs that completed within their request (below)
  double min_run_s = 0;              // drop jobs that ran less than this
  std::uint64_t window_start = 0;    // skip this many jobs
  std::uint64_t window_jobs = 0;     // then keep this many (0 = all)
  double wra = 0;                    // > 0: requested := run / wra (wra in (0, 1])
  double iat_scale = 1;              // multiply the gaps between submissions
  std::uint32_t scale_nodes_to = 0;  // > 0: nodes := max(1, ceil(nodes * to / machine_nodes))
  std::uint32_t machine_nodes = 0;   // 0: the workload's MaxNodes
};

// The WRSA study's "Original" workload: only jobs whose request was valid and that ran
// successfully — trace status completed (SWF status 1), a requested time given by the trace, and
// run time <= requested (no overrun; nothing cancelled, failed or killed).
void keep_successful_jobs(Workload& w);
void drop_short_jobs(Workload& w, double min_run_s);
void take_window(Workload& w, std::uint64_t start, std::uint64_t count);
void set_request_accuracy(Workload& w, double wra);
void scale_interarrival(Workload& w, double factor);
void scale_nodes(Workload& w, std::uint32_t from_nodes, std::uint32_t to_nodes);
void apply_transforms(Workload& w, const Transforms& t);
// The workload.* keys of the transforms.
const ParamTable<Transforms>& transform_params();

}  // namespace tracewarp::workload
