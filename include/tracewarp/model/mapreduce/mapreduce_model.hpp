// The MapReduce straggler model (docs/studies.md#mapreduce): jobs of map and reduce tasks on
// worker nodes, an application master that places containers, sees progress only through
// heartbeats, and detects abnormal attempts (policy/mapreduce/detectors.hpp).
//
// LPs: one application master and `workers` worker LPs. A worker runs the attempts it was given
// in containers (memory: map containers map_memory_gb, reduce containers reduce_memory_gb, out
// of memory_gb) and shares its usable cores among them: each attempt progresses at
// min(1, cores / attempts) work units per second (work is in core-seconds), integrated exactly
// between the instants that change it (a start, an end, a kill, the cores changing). Our rule
// for containers: memory alone bounds them; cores are shared, not reserved. Every heartbeat a
// busy worker reports each attempt's progress; an attempt's end is reported at once. The master
// places pending tasks (maps, then a job's reduces once all its maps are done) on the node with
// the most free memory (ties: the lowest), checks for stragglers every heartbeat, and kills or
// copies. Every message pays `latency_s`, the lookahead between ranks.
//
// Start-up: a launched attempt (a first run, a re-execution or a copy) waits `startup` for its
// container and JVM before it does any work, and uses no core meanwhile; a killed attempt's
// progress is lost and its re-execution waits again.
//
// Disturbances: at state_change_s every worker's usable cores drop to cores_after (keys); each
// attempt is abnormal with probability abnormal_probability (drawn at its launch, so a
// re-execution is abnormal again with that probability) and then has records_per_task x
// delay_per_record_s more work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tracewarp/core/params.hpp"
#include "tracewarp/core/stats.hpp"
#include "tracewarp/core/tables.hpp"
#include "tracewarp/core/time.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/config.hpp"
#include "tracewarp/model/run_context.hpp"

namespace tracewarp::model {
struct ModelInfo;
}

namespace tracewarp::mapreduce {

struct MapReduceParams {
  std::string detector = "proposed";
  std::uint32_t workers = 30;
  double cores = 4;
  double memory_gb = 12;
  double map_memory_gb = 1.5;
  double reduce_memory_gb = 3;
  std::uint32_t maps = 1632;  // 407.9 GB in 256-MB chunks
  std::uint32_t reduces = 370;
  double map_work_s = 10;     // core-seconds per map
  double reduce_work_s = 20;  // core-seconds per reduce
  std::uint32_t jobs = 1;
  Time job_interval = 600 * kTicksPerSecond;
  bool state_change = true;
  Time state_change_at = 90 * kTicksPerSecond;
  double cores_after = 1;
  double abnormal_probability = 0;
  double records_per_task = 100000;  // not published: 100 s of extra work at 1 ms per record
  double delay_per_record_s = 0.001;
  Time heartbeat = kTicksPerSecond;
  Time latency = kTicksPerSecond / 1000;
  double window_s = 30;
  double bin_width_s = 15;
  double lambda = 1;
  bool lambda_from_sample = false;  // estimate lambda from each check's sample (sample_lambda)
  double p_threshold = 0.05;
  std::uint32_t consecutive = 3;
  double zero_progress_s = 60;
  std::string action = "kill";  // kill (and re-execute) or copy
  double speculation_min_run_s = 10;
  double speculation_slow_sigma = 1;
  Time startup = 0;  // container and JVM start of every attempt (0: none, the earlier model)
  // Hadoop 2's DefaultSpeculator limits (mapreduce.job.speculative.*): at most
  // max(minimum_allowed, cap_total x the job's tasks, cap_running x its running attempts)
  // speculative attempts of a job in flight; after a check that launched a copy the next waits
  // retry_after_copy, after one that launched none retry_after_none.
  std::uint32_t speculation_minimum_allowed = 10;            // minimum-allowed-tasks
  double speculation_cap_total = 0.01;                       // speculative-cap-total-tasks
  double speculation_cap_running = 0.1;                      // speculative-cap-running-tasks
  Time speculation_retry_after_copy = 15 * kTicksPerSecond;  // retry-after-speculate (15,000 ms)
  Time speculation_retry_after_none = kTicksPerSecond;       // retry-after-no-speculate (1,000 ms)
  model::RunContext context{1, 10 * kTicksPerSecond};        // the seed and series interval of the run
};
const ParamTable<MapReduceParams>& param_table();

enum class Outcome : std::uint32_t { completed = 0, killed = 1, lost_race = 2 };

struct AttemptRow {
  std::uint32_t job;
  std::uint32_t task;     // within the job: maps first, then reduces
  std::uint32_t attempt;  // 0 = the first
  std::uint32_t kind;     // 0 map, 1 reduce
  std::uint32_t node;
  std::uint32_t injected_abnormal;
  double start_s;
  double end_s;
  double judged_abnormal_s;   // when the detector acted on it; -1 never
  std::uint32_t outcome;      // Outcome
  std::uint32_t speculative;  // a copy launched while another attempt ran
};

struct SeriesRow {
  double time_s;
  double running_maps;  // time averages
  double running_reduces;
  double usable_cores;  // over all workers
};

const TableSchema& attempt_table_schema();
const TableSchema& series_table_schema();

struct MapReduceResult {
  RunStats stats;
  std::vector<AttemptRow> attempts;      // on rank 0, by (job, task, attempt)
  std::vector<SeriesRow> series;         // on rank 0
  std::vector<double> job_completion_s;  // on rank 0: per job, from its submission
};

// What run_mapreduce refuses, checked without running (ConfigError naming the key).
void validate(const MapReduceParams& params);
MapReduceResult run_mapreduce(const Communicator& comm, const MapReduceParams& params, EngineConfig engine);
Attributes mapreduce_summary(const MapReduceResult& result);

const model::ModelInfo& mapreduce_model();

}  // namespace tracewarp::mapreduce
