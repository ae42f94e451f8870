// The MapReduce straggler model (docs/studies.md#mapreduce): jobs of map and reduce tasks on
// worker nodes, an application master that places containers, sees progress only through
// heartbeats, and detects abnormal attempts (policy/mapreduce/detectors.hpp).
//
// LPs: one application master and `workers` worker LPs. A worker runs the attempts it was given
// in containers (memory: map containers map_memory_gb, reduce containers reduce_memory_gb, out
// of memory_gb) and shares its usable cores among them: each attempt progresses at
// min(1, cores / attempts) work units per second (work is in core-seconds), integrated exactly
// between the instants that change it (a start, an end, a kill, the cores changing). Our rule
// for containers: memory alone bounds them; cores are shared, not reserved. Every progress
// report a busy worker reports each attempt's progress; an attempt's end is reported at once. The master
// places pending tasks (maps, then a job's reduces once all its maps are done) on the node with
// the most free memory (ties: the lowest), checks for stragglers every heartbeat, and kills or
// copies. Every message pays `latency_s`, the lookahead between ranks.
//
// Tasks vary: each task's work (core-seconds) is drawn once, log-normal with the kind's mean
// (map_work_s, reduce_work_s) and coefficient of variation (map_work_cv, reduce_work_cv), from a
// stream of its own (the seed and the task), so that every attempt of a task does the same work
// whatever the detector, the rank count or the launch order. Log-normal is right-skewed: a large
// CV gives the few long reduces of a skewed key distribution.
//
// Start-up: a launched attempt (a first run, a re-execution or a copy) waits `startup` for its
// container, using no core, then does `startup_core_s` of CPU work on the shared cores (the JVM's
// start) before its first record; a killed attempt's progress is lost, its container's clean-up
// is `kill_cleanup_core_s` of work on its node's shared cores, and its re-execution starts up
// again. Progress: each worker reports its attempts' progress every `progress_report` (Hadoop's
// tasks every 3 s); the master checks every `heartbeat` (1 s) on the last reports.
//
// Disturbances: at state_change_s every worker's usable cores drop to cores_after (keys); each
// attempt is abnormal with probability abnormal_probability (drawn at its launch, so a
// re-execution is abnormal again with that probability). An abnormal attempt sleeps
// delay_per_record_s after each record (the study's 1 ms per key-value pair): time that uses no
// core, so it slows no other attempt of its node. Records per task = split_mb / record_bytes,
// for reduces as for maps (our reading: the study gives neither a reduce's input nor the record
// size). The records are processed in abnormal_batches equal batches, each computed on the shared
// cores and then slept; progress (what heartbeats report) counts records, so it moves through the
// sleeps as through the work.
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
  // Calibrated: Hadoop's job without the state change takes the study's 398 s (Table 1);
  // experiments/mapreduce-stragglers/README.md.
  double map_work_s = 17.7;     // mean core-seconds per map
  double reduce_work_s = 35.4;  // mean core-seconds per reduce
  double map_work_cv = 0.1;     // spread of a map's work (coefficient of variation; 0: all alike): equal splits
  double reduce_work_cv = 0.1;  // reduce times nearly coincide in a normal run (the study's Fig. 1(a))
  std::uint32_t jobs = 1;
  Time job_interval = 600 * kTicksPerSecond;
  bool state_change = true;
  Time state_change_at = 90 * kTicksPerSecond;
  double cores_after = 1;
  double abnormal_probability = 0;
  double split_mb = 256;       // input split (HDFS block), MiB
  double record_bytes = 2684;  // not published: 256 MiB / 2,684 B = 100,013 records, 100 s at 1 ms
  double delay_per_record_s = 0.001;
  std::uint32_t abnormal_batches = 100;
  Time heartbeat = kTicksPerSecond;            // the master's checks (Hadoop's 1-s AM heartbeat)
  Time progress_report = 3 * kTicksPerSecond;  // mapreduce.task.progress-report.interval (3,000 ms)
  Time latency = kTicksPerSecond / 1000;
  double window_s = 30;
  double bin_width_s = 15;
  double lambda = 1;
  bool lambda_from_sample = false;  // estimate lambda from each check's sample (sample_lambda)
  double p_threshold = 0.05;
  std::uint32_t consecutive = 3;
  std::uint32_t estimates_needed = 1;  // reports with an estimate before an attempt has one
  // How a running attempt's duration is estimated: "launch" (the study's: elapsed since launch
  // over progress) or "first_progress" (elapsed, plus what remains at the rate measured since
  // its first report of progress: a start-up no longer inflates a young attempt's estimate).
  std::string estimate_from = "launch";
  double zero_progress_s = 60;
  std::string action = "kill";  // kill (and re-execute) or copy
  // The study's cluster allowed 9,999 attempts per task. A task with this many is no longer
  // judged: its last attempt runs to its end. Without a cap a detector that kills every attempt
  // of a phase before any ends (possible with lambda_from_sample) would never finish the job.
  std::uint32_t max_attempts = 9999;
  double speculation_min_run_s = 10;
  double speculation_slow_sigma = 1;
  Time startup = 2 * kTicksPerSecond;  // container and JVM start of every attempt: the wall-clock part
  double startup_core_s = 0;           // ... and its CPU part, core-seconds on the node's shared cores
  double kill_cleanup_core_s = 0;      // a killed attempt's clean-up, core-seconds on its node's cores
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
  std::vector<AttemptRow> attempts;       // on rank 0, by (job, task, attempt)
  std::vector<SeriesRow> series;          // on rank 0
  std::vector<double> job_completion_s;   // on rank 0: per job, from its submission
  std::int64_t tasks_at_attempt_cap = 0;  // on rank 0: tasks that reached max_attempts
};

// What run_mapreduce refuses, checked without running (ConfigError naming the key).
void validate(const MapReduceParams& params);
// Records of a task and the sleep they add to an abnormal attempt.
double records_per_task(const MapReduceParams& params);
// The work of task `task` (maps first) of job `job`, core-seconds: the same for every attempt.
double task_work(const MapReduceParams& params, std::uint32_t job, std::uint32_t task);
MapReduceResult run_mapreduce(const Communicator& comm, const MapReduceParams& params, EngineConfig engine);
Attributes mapreduce_summary(const MapReduceResult& result);

const model::ModelInfo& mapreduce_model();

}  // namespace tracewarp::mapreduce
