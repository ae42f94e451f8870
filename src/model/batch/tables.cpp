// The batch model's output tables: columns, units and meanings.
#include "tracewarp/model/batch/batch_model.hpp"

namespace tracewarp::batch {

const TableSchema& job_table_schema() {
  static const TableSchema schema{
      "jobs",
      sizeof(JobRow),
      {TRACEWARP_COLUMN(JobRow, id, "", "job number in the trace"),
       TRACEWARP_COLUMN(JobRow, index, "", "position in the (transformed) workload; unique"),
       TRACEWARP_COLUMN(JobRow, user, "", "user id (-1 unknown)"),
       TRACEWARP_COLUMN(JobRow, status, "",
                        "0 completed, 1 killed at walltime, 2 rejected (no group takes its size, or longer than the "
                        "policy can plan)"),
       TRACEWARP_COLUMN(JobRow, group, "",
                        "resource group (index in the machine's groups: the K computer's 0 small, 1 large; 0 with one "
                        "group)"),
       TRACEWARP_COLUMN(JobRow, nodes, "nodes",
                        "nodes it ran on, whole (exclusive-nodes) or shared (shared-nodes); 0 with batch.resources "
                        "= processors, whose machine is a pool without nodes"),
       TRACEWARP_COLUMN(JobRow, first_node, "",
                        "first node of the allocation (its first processor with batch.resources = processors)"),
       TRACEWARP_COLUMN(JobRow, procs, "processors", "processors it asked for"),
       TRACEWARP_COLUMN(JobRow, account, "", "the trace's group of users (SWF field 13); -1 unknown"),
       TRACEWARP_COLUMN(JobRow, queue, "", "the trace's queue (SWF field 15); -1 unknown"),
       TRACEWARP_COLUMN(JobRow, partition, "", "the trace's partition (SWF field 16); -1 unknown"),
       TRACEWARP_COLUMN(JobRow, submit_s, "s", "submission"),
       TRACEWARP_COLUMN(JobRow, t0_s, "s", "first reservation (planned start, T0); -1 if never planned"),
       TRACEWARP_COLUMN(JobRow, start_s, "s", "start (T1); -1 if rejected"),
       TRACEWARP_COLUMN(JobRow, end_s, "s", "end; -1 if rejected"),
       TRACEWARP_COLUMN(JobRow, requested_s, "s", "requested walltime; -1 unknown"),
       TRACEWARP_COLUMN(JobRow, run_s, "s", "executed run time (min(actual, requested) when killed at walltime)"),
       TRACEWARP_COLUMN(JobRow, wait_s, "s", "start - submit"),
       TRACEWARP_COLUMN(JobRow, bounded_slowdown, "", "max(1, (wait + run) / max(run, 10 s))"),
       TRACEWARP_COLUMN(JobRow, delay_s, "s", "max(0, T1 - T0)"),
       TRACEWARP_COLUMN(JobRow, wrsa_at_submit, "", "the user's WRSA score when the job was submitted"),
       TRACEWARP_COLUMN(JobRow, logged_wait_s, "s",
                        "the wait the trace logged (SWF field 3, ALCF wait_time); -1 unknown"),
       TRACEWARP_COLUMN(JobRow, logged_start_s, "s", "submit + logged wait; -1 unknown")},
      "batch: one row per job, sorted by index"};
  return schema;
}

const TableSchema& allocation_table_schema() {
  static const TableSchema schema{
      "allocations",
      sizeof(AllocationRow),
      {TRACEWARP_COLUMN(AllocationRow, index, "", "the job's index (its row in the jobs table)"),
       TRACEWARP_COLUMN(AllocationRow, first, "units",
                        "first node of the range (first processor when the scheduler counts processors: the run "
                        "attribute machine.unit), on the whole machine's line"),
       TRACEWARP_COLUMN(AllocationRow, count, "units", "nodes (or processors) in the range")},
      "batch: where each job that ran ran, one row per contiguous range of its allocation, by index then first"};
  return schema;
}

const TableSchema& series_table_schema() {
  static const TableSchema schema{"series",
                                  sizeof(SeriesRow),
                                  {TRACEWARP_COLUMN(SeriesRow, time_s, "s", "sample time"),
                                   TRACEWARP_COLUMN(SeriesRow, used_nodes, "units",
                                                    "nodes running jobs (processors, when batch.resources counts "
                                                    "processors: the run attribute machine.unit)"),
                                   TRACEWARP_COLUMN(SeriesRow, running, "jobs", "jobs running"),
                                   TRACEWARP_COLUMN(SeriesRow, queued, "jobs", "jobs queued"),
                                   TRACEWARP_COLUMN(SeriesRow, group, "", "resource group (0 = the whole machine)")},
                                  "batch: the machine every sample interval, after the instant's scheduling pass"};
  return schema;
}

const TableSchema& pass_table_schema() {
  static const TableSchema schema{
      "passes",
      sizeof(PassCostRow),
      {TRACEWARP_COLUMN(PassCostRow, time_s, "s", "pass time"),
       TRACEWARP_COLUMN(PassCostRow, queued, "jobs", "jobs queued when the pass began"),
       TRACEWARP_COLUMN(PassCostRow, started, "jobs", "jobs the pass started"),
       TRACEWARP_COLUMN(PassCostRow, running, "jobs", "jobs running when the pass began"),
       TRACEWARP_COLUMN(PassCostRow, group, "", "resource group (as in the series table)"),
       TRACEWARP_COLUMN(PassCostRow, wall_us, "us",
                        "wall-clock time of the pass (policy and job starts); not deterministic"),
       TRACEWARP_COLUMN(PassCostRow, plan_cells, "cells",
                        "interval scheduling: node x interval cells a per-node, per-interval plan table would read "
                        "(the study's cost measure); 0 for other policies")},
      "batch: one row per committed scheduling pass, by time and group"};
  return schema;
}

const TableSchema& user_table_schema() {
  static const TableSchema schema{
      "users",
      sizeof(UserRow),
      {TRACEWARP_COLUMN(UserRow, user, "", "user id"),
       TRACEWARP_COLUMN(UserRow, jobs, "jobs", "jobs of the user that ran"),
       TRACEWARP_COLUMN(UserRow, mean_wait_s, "s", "mean wait"),
       TRACEWARP_COLUMN(UserRow, mean_delay_s, "s", "mean delay max(0, T1 - T0)"),
       TRACEWARP_COLUMN(UserRow, mean_bounded_slowdown, "", "mean bounded slowdown"),
       TRACEWARP_COLUMN(UserRow, mean_wrsa_at_submit, "", "mean WRSA score at the user's submissions")},
      "batch: per-user aggregates of users with at least 10 jobs that ran, by user"};
  return schema;
}

}  // namespace tracewarp::batch
