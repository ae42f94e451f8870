// The multi-resource LAS model (docs/studies.md#las): tasks with CPU and memory demands, a central scheduler
// that places each task on a node, and per-node LAS schedulers that preempt and resume.
//
// LPs: one workload source, one central scheduler, `nodes` node LPs spread over the ranks.
// The central LP keeps a FIFO queue and, for every node, the demands it has assigned there and
// not yet seen finish; it places the head with policy/las/placement.hpp and sends it to the node.
// A node runs policy/las/node_scheduler.hpp, schedules each running task's end, and reports every
// completion (with the task's demands) to the central LP, which may then place more. Central and
// nodes may sit on different ranks. Utilisation, running, suspended and queued are integrated
// over time into `interval` buckets by the LP that owns them (exact time averages; no sampling
// events). All rows come from commit handlers.
//
// Submission (docs/studies.md#las, "at a frequency that keeps the cluster's load at about sqrt 2"):
// by default a closed loop run by the central LP. Cluster load = the mean over nodes of
// load(node) = sqrt(sum_r (assigned unfinished demand_r / capacity_r)^2) (policy/las/placement.hpp).
// Whenever nothing waits at the central scheduler and the cluster load is below
// `closed_loop_load`, the next task of the workload (in its order, with its demands and run time)
// is released and placed at once; its submit time, from which waits and slowdowns are measured,
// is the release time. The loop is checked after every placement pass (so after completions,
// which lower the load), so the cluster stays congested however long the tail of run times is.
// A task that cannot be placed stops the loop until it is. closed_loop_load = 0 gives the open
// loop: tasks arrive at the workload's submit times (e.g. the generator's Poisson stream).
//
// Event kinds, in the order they are handled within one instant:
//   task end (node) = source tick < arrival (source -> central) < completion report
//   (node -> central) < placement pass (central) < dispatch (central -> node).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tracewarp/core/params.hpp"
#include "tracewarp/core/stats.hpp"
#include "tracewarp/core/tables.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/config.hpp"
#include "tracewarp/jobs/job.hpp"
#include "tracewarp/model/run_context.hpp"
#include "tracewarp/policy/las/node_scheduler.hpp"

namespace tracewarp::model {
struct ModelInfo;
}

namespace tracewarp::las {

inline constexpr double kStudyClusterLoad = 1.4142135623730951;  // sqrt 2: both resources full

struct LasParams {
  std::uint32_t nodes = 256;
  double closed_loop_load = kStudyClusterLoad;  // release tasks while the cluster load is below this; 0 = open loop
  Amounts capacity{1.0, 1.0};                   // per node, in the workload's demand units
  std::string scheduler = "proposed";           // proposed (similarity + candidate sets) or kairos
  double load_threshold = 1.5;                  // L
  std::uint32_t kairos_cap = 32;                // Q
  Time min_run = 60 * kTicksPerSecond;          // W
  std::size_t max_candidates = 4;               // N
  Time kairos_quantum =
      kTicksPerSecond;        // Kairos: node re-evaluation period (the original 1 s); 0: arrivals and ends only
  model::RunContext context;  // the series interval of the run (no randomness)
};

struct TaskRow {
  std::uint64_t id;
  std::uint64_t index;  // position in the workload
  double submit_s;
  double first_start_s;
  double end_s;
  double run_s;
  double cpu;
  double memory;
  std::uint32_t node;
  std::uint32_t preemptions;
  double wait_s;    // end - submit - run
  double slowdown;  // 1 + wait / run
};

struct IntervalRow {
  double time_s;           // start of the interval
  double cpu_utilisation;  // allocated / capacity, time average over all nodes
  double memory_utilisation;
  double running;  // time-average number of tasks
  double suspended;
  double queued;  // at the central scheduler
};

// The slowdown CDF, ready to plot: the slowdown at fractions 0, 0.001, ..., 1 of the tasks.
struct CdfRow {
  double fraction;
  double slowdown;
};

const TableSchema& task_table_schema();
const TableSchema& interval_table_schema();
const TableSchema& cdf_table_schema();
std::vector<CdfRow> slowdown_cdf(const std::vector<TaskRow>& tasks);

struct LasResult {
  RunStats stats;
  std::vector<TaskRow> tasks;          // on rank 0, by index
  std::vector<IntervalRow> intervals;  // on rank 0, by time
  std::uint64_t preemptions = 0;
};

// Runs the workload (sorted by submit time; every task's demands must fit one node).
// What run_las refuses, checked without running (ConfigError naming the key or task).
void validate(const workload::Workload& workload, const LasParams& params);
LasResult run_las(const Communicator& comm, const workload::Workload& workload, const LasParams& params,
                  EngineConfig engine);

// The las.* keys that set LasParams directly (las_registration.cpp adds the node capacities).
const ParamTable<LasParams>& param_table();
// The model as `experiment.model = "las"` runs it, with its generator "las".
const model::ModelInfo& las_model();

// Slowdown percentiles 50/90/95/99/99.9, preemptions, mean utilisation per resource over the
// intervals that begin before the last submission (the loaded period, not the tail's drain).
Attributes las_summary(const LasResult& result);

}  // namespace tracewarp::las
