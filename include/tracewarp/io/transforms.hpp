// workload::Workload transformations the studies use. Each one changes a workload::Workload in place and appends a
// description of itself to Workload::transforms, which goes into the results file, so a run's
// workload can be rebuilt from its output alone. apply_transforms runs them in this fixed order:
// keep only successful jobs, drop short jobs, take a window, set requested-time accuracy, scale inter-arrival times,
// scale node counts.
#pragma once

#include <cstdint>

#include <string>

#include "tracewarp/workload/workload.hpp"

namespace tracewarp::io {

struct WorkloadTransforms {
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
void keep_successful_jobs(workload::Workload& w);
void drop_short_jobs(workload::Workload& w, double min_run_s);
void take_window(workload::Workload& w, std::uint64_t start, std::uint64_t count);
void set_request_accuracy(workload::Workload& w, double wra);
void scale_interarrival(workload::Workload& w, double factor);
void scale_nodes(workload::Workload& w, std::uint32_t from_nodes, std::uint32_t to_nodes);
void apply_transforms(workload::Workload& w, const WorkloadTransforms& t);

class Config;
// The data folder: $TRACEWARP_DATA, else ../shared/data (relative to the working directory).
std::string data_directory();
// "${TRACEWARP_DATA}/traces/x.swf.gz" -> "<data folder>/traces/x.swf.gz".
std::string expand_data_path(const std::string& path);
// The trace the workload.* keys describe (io/settings.hpp): read, sorted, transformed, and
// recorded.
workload::Workload load_configured_workload(const Config& config);

}  // namespace tracewarp::io
