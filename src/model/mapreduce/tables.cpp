// The MapReduce model's keys, output tables and summary.
#include <algorithm>
#include <map>

#include "internal.hpp"
#include "tracewarp/core/error.hpp"

namespace tracewarp::mapreduce {

const ParamTable<MapReduceParams>& param_table() {
  using P = MapReduceParams;
  static const ParamTable<P> table =
      ParamTable<P>("mapreduce")
          .choice("detector", &P::detector, detector_names(), "straggler detector (policy/mapreduce/detectors.hpp)")
          .integer("workers", &P::workers, "worker nodes, one LP each", {.min = 1})
          .number("cores", &P::cores, "usable cores per worker at the start", {.min = 1e-9})
          .number("memory_gb", &P::memory_gb, "container memory per worker, GB", {.min = 0})
          .number("map_memory_gb", &P::map_memory_gb, "memory of a map container, GB", {.min = 1e-9})
          .number("reduce_memory_gb", &P::reduce_memory_gb, "memory of a reduce container, GB", {.min = 1e-9})
          .integer("maps", &P::maps, "map tasks per job (407.9 GB in 256-MB chunks)")
          .integer("reduces", &P::reduces, "reduce tasks per job; they start after the job's last map")
          .number("map_work_s", &P::map_work_s, "mean work of a map task, core-seconds", {.min = 1e-9})
          .number("reduce_work_s", &P::reduce_work_s, "mean work of a reduce task, core-seconds", {.min = 1e-9})
          .number("map_work_cv", &P::map_work_cv,
                  "coefficient of variation of a map's work (log-normal, drawn once per task; 0: all alike)",
                  {.min = 0})
          .number("reduce_work_cv", &P::reduce_work_cv,
                  "coefficient of variation of a reduce's work (log-normal, drawn once per task; 0: all alike)",
                  {.min = 0})
          .integer("jobs", &P::jobs, "jobs, submitted job_interval_s apart", {.min = 1})
          .seconds("job_interval_s", &P::job_interval, "seconds between job submissions", {.min = 0})
          .flag("state_change", &P::state_change, "every worker's usable cores change at state_change_s")
          .seconds("state_change_s", &P::state_change_at, "when the system state changes, seconds", {.min = 0})
          .number("cores_after", &P::cores_after, "usable cores per worker after the change", {.min = 1e-9})
          .number("abnormal_probability", &P::abnormal_probability, "p: each attempt is abnormal with it",
                  {.min = 0, .max = 1})
          .number("split_mb", &P::split_mb, "input split of a task, MiB (records = split / record size)", {.min = 0})
          .number("record_bytes", &P::record_bytes, "size of a key-value record, bytes", {.min = 1e-9})
          .number("delay_per_record_s", &P::delay_per_record_s,
                  "sleep of an abnormal attempt after each record (uses no core), s", {.min = 0})
          .integer("abnormal_batches", &P::abnormal_batches,
                   "an abnormal attempt computes and sleeps in this many equal batches of records", {.min = 1})
          .seconds("heartbeat_s", &P::heartbeat,
                   "the master's heartbeat: its detector and speculation checks (on the last progress reports) "
                   "and placements, seconds",
                   {.min = 1e-6})
          .seconds("progress_report_s", &P::progress_report,
                   "each worker reports its attempts' progress this often, seconds (Hadoop: "
                   "mapreduce.task.progress-report.interval, 3 s)",
                   {.min = 1e-6})
          .seconds("latency_s", &P::latency, "master-worker message delay, seconds", {.min = 1e-9})
          .number("window_s", &P::window_s, "proposed: the detector's time window, seconds", {.min = 0})
          .number("bin_width_s", &P::bin_width_s, "detector: histogram bin width, seconds", {.min = 1e-9})
          .number("lambda", &P::lambda, "detector: the Poisson lambda (fixed in advance)", {.min = 1e-9})
          .flag("lambda_from_sample", &P::lambda_from_sample,
                "detector: estimate lambda at each check from the window's sample (the mean of the bins above "
                "the mode), lambda when the sample has no spread")
          .number("p_threshold", &P::p_threshold, "detector: P', abnormal below it", {.min = 0, .max = 1})
          .integer("consecutive", &P::consecutive,
                   "detector: abnormal estimates in a row before acting (each from a new progress report)", {.min = 1})
          .integer("estimates_needed", &P::estimates_needed,
                   "detector: a running attempt's estimate (the minimum of its last 5) exists once this many reports "
                   "gave one; before, the attempt is neither in the sample nor judged on it (1: from its first report)",
                   {.min = 1, .max = 5})
          .choice("estimate_from", &P::estimate_from, {"launch", "first_progress"},
                  "detector: a running attempt's estimated duration is elapsed / progress since its launch (the "
                  "study's), or elapsed plus the remaining work at the rate measured since its first progress report "
                  "(from its second; our option: a start-up no longer inflates it)")
          .number("zero_progress_s", &P::zero_progress_s, "detector: no progress this long after start is abnormal",
                  {.min = 0})
          .choice("action", &P::action, {"kill", "copy"}, "detector: kill and re-execute, or launch a copy")
          .integer("max_attempts", &P::max_attempts,
                   "attempts per task after which the detector leaves its last one to finish (the study: 9999)",
                   {.min = 1})
          .number("speculation_min_run_s", &P::speculation_min_run_s, "Hadoop speculation: minimum run time, s",
                  {.min = 0})
          .number("speculation_slow_sigma", &P::speculation_slow_sigma,
                  "Hadoop speculation: copy tasks slower than mean - this x standard deviation of the rates",
                  {.min = 0})
          .seconds("startup_s", &P::startup,
                   "every attempt (first run, re-execution, copy) waits this long for its container before "
                   "working, using no core, s",
                   {.min = 0})
          .number("startup_core_s", &P::startup_core_s,
                  "then its start-up's CPU work (JVM start) on the node's shared cores before its first record, "
                  "core-seconds (a calibration: experiments/mapreduce-stragglers)",
                  {.min = 0})
          .number("kill_cleanup_core_s", &P::kill_cleanup_core_s,
                  "a killed attempt's clean-up on its node's shared cores, core-seconds (a calibration: "
                  "experiments/mapreduce-stragglers)",
                  {.min = 0})
          .integer("speculation_minimum_allowed", &P::speculation_minimum_allowed,
                   "Hadoop speculation: speculative attempts a job may always have in flight "
                   "(mapreduce.job.speculative.minimum-allowed-tasks)")
          .number("speculation_cap_total", &P::speculation_cap_total,
                  "Hadoop speculation: or this share of the job's tasks, if more (speculative-cap-total-tasks)",
                  {.min = 0, .max = 1})
          .number("speculation_cap_running", &P::speculation_cap_running,
                  "Hadoop speculation: or this share of its running attempts, if more (speculative-cap-running-tasks)",
                  {.min = 0, .max = 1})
          .seconds("speculation_retry_after_copy_s", &P::speculation_retry_after_copy,
                   "Hadoop speculation: wait after a check that launched a copy, s (retry-after-speculate)", {.min = 0})
          .seconds("speculation_retry_after_none_s", &P::speculation_retry_after_none,
                   "Hadoop speculation: wait after a check that launched none, s (retry-after-no-speculate)",
                   {.min = 0});
  return table;
}

const TableSchema& attempt_table_schema() {
  static const TableSchema schema{
      "attempts",
      sizeof(AttemptRow),
      {TRACEWARP_COLUMN(AttemptRow, job, "", "job"),
       TRACEWARP_COLUMN(AttemptRow, task, "", "task within the job: maps first, then reduces"),
       TRACEWARP_COLUMN(AttemptRow, attempt, "", "attempt number of the task (0 = first)"),
       TRACEWARP_COLUMN(AttemptRow, kind, "", "0 map, 1 reduce"), TRACEWARP_COLUMN(AttemptRow, node, "", "worker"),
       TRACEWARP_COLUMN(AttemptRow, injected_abnormal, "", "1 if slowed on purpose"),
       TRACEWARP_COLUMN(AttemptRow, start_s, "s", "start on the worker"),
       TRACEWARP_COLUMN(AttemptRow, end_s, "s", "finish, or when it was stopped"),
       TRACEWARP_COLUMN(AttemptRow, judged_abnormal_s, "s", "when the detector acted on it; -1 never"),
       TRACEWARP_COLUMN(AttemptRow, outcome, "", "0 completed, 1 killed, 2 lost the race"),
       TRACEWARP_COLUMN(AttemptRow, speculative, "", "1 if a copy launched beside a running attempt")},
      "mapreduce: one row per attempt, by (job, task, attempt)"};
  return schema;
}

const TableSchema& series_table_schema() {
  static const TableSchema schema{
      "series",
      sizeof(SeriesRow),
      {TRACEWARP_COLUMN(SeriesRow, time_s, "s", "start of the interval"),
       TRACEWARP_COLUMN(SeriesRow, running_maps, "attempts", "running map attempts, time average"),
       TRACEWARP_COLUMN(SeriesRow, running_reduces, "attempts", "running reduce attempts, time average"),
       TRACEWARP_COLUMN(SeriesRow, usable_cores, "cores", "usable cores of all workers, time average")},
      "mapreduce: time averages over each output.series_interval_s"};
  return schema;
}

Attributes mapreduce_summary(const MapReduceResult& r) {
  std::int64_t judged[2] = {0, 0}, false_judgements = 0, copies = 0, re_executions = 0;
  double wasted = 0, completion = 0;
  for (const AttemptRow& a : r.attempts) {
    if (a.judged_abnormal_s >= 0) {
      ++judged[a.kind];
      if (!a.injected_abnormal) ++false_judgements;
    }
    copies += a.speculative;
    if (a.attempt > 0 && !a.speculative) ++re_executions;
    if (a.outcome != static_cast<std::uint32_t>(Outcome::completed)) wasted += a.end_s - a.start_s;
  }
  for (const double c : r.job_completion_s) completion += c;
  if (!r.job_completion_s.empty()) completion /= static_cast<double>(r.job_completion_s.size());
  return {{"jobs", static_cast<std::int64_t>(r.job_completion_s.size())},
          {"job_completion_s", completion},
          {"judgements_map", judged[0]},
          {"judgements_reduce", judged[1]},
          {"false_judgements", false_judgements},
          {"speculative_copies", copies},
          {"re_executions", re_executions},
          {"wasted_container_s", wasted},
          {"attempts", static_cast<std::int64_t>(r.attempts.size())},
          {"tasks_at_attempt_cap", r.tasks_at_attempt_cap}};
}

}  // namespace tracewarp::mapreduce
