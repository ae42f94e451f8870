// Workload transformations the studies use. Each one changes a Workload in place and appends a
// description of itself to Workload::transforms, which goes into the results file, so a run's
// workload can be rebuilt from its output alone. apply_transforms runs them in this fixed order:
// keep jobs by how they ended, drop short jobs, take a window, set requested-time accuracy, scale inter-arrival times,
// scale node counts.
#pragma once

#include <cstdint>

#include <string>

#include "tracewarp/core/params.hpp"
#include "tracewarp/jobs/job.hpp"

namespace tracewarp::workload {

// Which jobs a study keeps by how they ended (workload.keep):
//   all                       every job read
//   completed                 SWF status 1 (completed). With min_run_s = 90 this is the WRSA
//                             study's Original workload: on RICC it matches the study's Table 1
//                             exactly (337,272 jobs, mean WRA 0.143), so it is the study's reading
//   completed-within-request  status 1, a requested time the trace gives, and run <= requested:
//                             an earlier reading of "a valid request that ran successfully",
//                             kept as a variant (426,142 RICC jobs; it does not match Table 1)
enum class KeepJobs { all, completed, completed_within_request };

struct Transforms {
  std::string keep = "all";          // KeepJobs by name (the key's choices)
  double min_run_s = 0;              // drop jobs that ran less than this
  std::uint64_t window_start = 0;    // skip this many jobs
  std::uint64_t window_jobs = 0;     // then keep this many (0 = all)
  double wra = 0;                    // > 0: requested := run / wra (wra in (0, 1])
  double iat_scale = 1;              // multiply the gaps between submissions
  std::uint32_t scale_nodes_to = 0;  // > 0: nodes := max(1, ceil(nodes * to / machine_nodes))
  std::uint32_t machine_nodes = 0;   // 0: the workload's MaxNodes
};

// Keeps the jobs `keep` names (KeepJobs), counting what it drops and why.
void keep_jobs(Workload& w, KeepJobs keep);
KeepJobs parse_keep_jobs(const std::string& name);  // ConfigError
void drop_short_jobs(Workload& w, double min_run_s);
void take_window(Workload& w, std::uint64_t start, std::uint64_t count);
void set_request_accuracy(Workload& w, double wra);
void scale_interarrival(Workload& w, double factor);
void scale_nodes(Workload& w, std::uint32_t from_nodes, std::uint32_t to_nodes);
void apply_transforms(Workload& w, const Transforms& t);
// The workload.* keys of the transforms.
const ParamTable<Transforms>& transform_params();

}  // namespace tracewarp::workload
