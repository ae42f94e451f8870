// The batch scheduling model (docs/studies.md#batch): rigid jobs of n nodes on a space-shared machine.
//
// LPs: one workload source and one scheduler per resource group (machines.hpp), and node-block
// LPs (each `block_nodes` nodes of the whole machine) spread over the ranks. The source submits jobs at their submit
// times; the scheduler queues them, runs a scheduling pass (policy/batch/) after everything that happens at one instant
// (or at multiples of `tick`), allocates nodes (node_pool.hpp), starts jobs and ends each at start + executed run time
// (min(actual, requested) when jobs are killed at their walltime). Node blocks receive each job's share of their nodes
// and account busy node-seconds. The scheduler samples used nodes, running and queued jobs every
// `context.series_interval`. All rows come from commit handlers. Each pass's wall-clock cost is measured by the engine
// (the scheduler is a timed LP type: CommitContext::handler_wall_us) and reported when it commits, in its own table
// outside the deterministic data.
//
// Refinement of docs/studies.md#batch's decomposition, and why: there, node blocks end jobs and report the
// ends back. Under Time Warp that makes the scheduler — the one heavy LP — depend on remote
// input, and every end report arriving late rolls it back together with everything it sent
// (measured: 7-9 rolled-back events per committed one on 2 ranks). Here the scheduler depends
// only on its source, on the same terms on every rank count; traffic to the blocks is one-way.
// When node failures arrive, blocks will report them (a rare event) rather than every end.
//
// Event kinds, in the order they are handled within one instant:
//   job end (scheduler) < source tick < arrival (source -> scheduler) < pass (scheduler)
//   < start (scheduler -> blocks) < sample (scheduler).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tracewarp/core/params.hpp"
#include "tracewarp/core/stats.hpp"
#include "tracewarp/core/tables.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/config.hpp"
#include "tracewarp/jobs/job.hpp"
#include "tracewarp/model/batch/machines.hpp"
#include "tracewarp/model/run_context.hpp"
#include "tracewarp/policy/batch/limits.hpp"
#include "tracewarp/policy/batch/node_pool.hpp"
#include "tracewarp/policy/batch/priority.hpp"
#include "tracewarp/policy/batch/registry.hpp"
#include "tracewarp/policy/batch/wrsa.hpp"

namespace tracewarp::model {
struct ModelInfo;
}

namespace tracewarp::batch {

// The largest machine the batch model takes: 2^24 nodes, two hundred times the K computer (its
// per-node structures for more would need tens of gigabytes). A trace header beyond it is refused
// rather than read as garbage.
inline constexpr std::uint32_t kMaxBatchNodes = 1u << 24;

// The machine a run asks for: a preset (model/batch/machines.hpp), an allocation rule and what a
// job is given, each empty for "the preset's, else the default".
struct MachineChoice {
  std::string preset;
  std::string allocation;
  std::string resources;
};

// What the machine hands a job (batch.resources; docs/studies.md#batch "Resources"):
//   processors       the machine is a pool of nodes x cores_per_node processors and a job takes
//                    its processors, wherever they are (the Parallel Workloads Archive's reading
//                    of its logs, and pyss's and CQSim's);
//   exclusive-nodes  a job takes ceil(processors / cores_per_node) whole nodes, shared with no
//                    other job (the K computer and WRSA studies);
//   shared-nodes     a job's processors are cores packed onto nodes that other jobs may share,
//                    by the rule of node_pool.hpp (Allocation::packed), as Slurm's consumable
//                    cores place them.
// In the first and the last the scheduler counts processors, in the middle one nodes: "units".
enum class Resources { processors, exclusive_nodes, shared_nodes };
Resources parse_resources(const std::string& name);  // ConfigError
std::string to_string(Resources resources);

struct BatchParams {
  MachineChoice machine;              // as asked; the members below are what it resolved to
  std::uint32_t nodes = 0;            // machine size
  std::vector<ResourceGroup> groups;  // empty: one group of the whole machine
  std::string partitions;             // batch.partitions as given (parsed into groups)
  Allocation allocation = Allocation::any;
  Resources resources = Resources::exclusive_nodes;
  std::uint32_t cores_per_node = 1;        // of the machine's nodes
  std::string policy = "easy";             // a name of policy/batch/registry.hpp
  PolicySettings policy_settings;          // the policies' keys (each policy reads its own)
  double wrsa_beta = WrsaSettings{}.beta;  // the WRSA scores kept for the policies that read them
  PrioritySettings priority;               // the queue's order, under every policy
  LimitSettings limits;                    // what one user may run at once, under every policy
  std::size_t queue_depth = 0;             // 0 = unlimited
  Time tick = 0;                           // > 0: passes only at multiples of this
  bool kill_at_walltime = true;
  Time walltime_grace = 0;  // a job is killed this long after its walltime (Slurm's OverTimeLimit)
  std::uint32_t block_nodes = 96;
  model::RunContext context;  // the series interval of the run (no randomness)
  // Summary window (utilisation, jobs started): [from, until); until 0 = the last job end.
  Time window_from = 0;
  Time window_until = 0;
  // The logged comparison covers the jobs submitted from here on (a configuration fitted on the
  // jobs before is judged on the ones after).
  Time compare_from = 0;

  // Whether the scheduler counts processors (processors, shared-nodes) rather than nodes.
  bool counts_processors() const { return resources != Resources::exclusive_nodes; }
  // The machine, and a job, in the scheduler's units.
  std::uint64_t machine_units() const {
    return counts_processors() ? std::uint64_t{nodes} * cores_per_node : std::uint64_t{nodes};
  }
  std::uint32_t units_of(const workload::Job& job) const {
    if (!counts_processors()) return job.nodes;
    return job.procs > 0 ? job.procs : job.nodes * cores_per_node;
  }
  // What a job runs for: its run time, cut at walltime + grace when jobs are killed there.
  Time executed(const workload::Job& job) const {
    return kill_at_walltime && job.requested > 0 ? std::min(job.run, job.requested + walltime_grace) : job.run;
  }
};

enum class JobStatus : std::int32_t { completed = 0, killed = 1, rejected = 2 };

struct JobRow {
  std::uint64_t id;     // the trace's job number
  std::uint64_t index;  // position in the workload (unique)
  std::int32_t user;
  std::int16_t status;       // JobStatus
  std::int16_t group;        // resource group (index in BatchParams::groups)
  std::uint32_t nodes;       // nodes it ran on (shared-nodes: shared with others; processors: 0)
  std::uint32_t first_node;  // first node of the allocation (processors: its first processor)
  std::uint32_t procs;       // processors it asked for
  std::int32_t account;      // the trace's group of users (SWF field 13; -1 unknown)
  std::int32_t queue;        // the trace's queue (SWF field 15; -1 unknown)
  std::int32_t partition;    // the trace's partition (SWF field 16; -1 unknown)
  double submit_s;
  double t0_s;  // first reservation (planned start); -1 if never planned
  double start_s;
  double end_s;
  double requested_s;
  double run_s;  // executed
  double wait_s;
  double bounded_slowdown;  // max(1, (wait + run) / max(run, 10 s))
  double delay_s;           // max(0, start - t0)
  double wrsa_at_submit;    // the user's WRSA score at submission (policy/batch/wrsa.hpp)
  double logged_wait_s;     // the wait the trace recorded; -1 unknown
  double logged_start_s;    // submit + logged wait; -1 unknown
};

// One contiguous range of a job's allocation: where it ran, in the scheduler's unit (nodes, or
// processors: the run attribute machine.unit), counted on the whole machine's line.
struct AllocationRow {
  std::uint64_t index;  // the job's workload index (its row in the jobs table)
  std::uint32_t first;
  std::uint32_t count;
};

struct SeriesRow {
  double time_s;
  std::uint32_t used_nodes;  // in the scheduler's units (BatchParams::counts_processors)
  std::uint32_t running;
  std::uint32_t queued;
  std::int32_t group;  // 0 = the whole machine; with several resource groups, 1.. = each group
};

// The cost of one committed scheduling pass. wall_us is wall-clock time of the pass's last
// execution, so this table differs from run to run (compare_results.py skips wall_* columns).
struct PassCostRow {
  double time_s;
  std::uint32_t queued;   // jobs queued when the pass began
  std::uint32_t started;  // jobs it started
  std::uint32_t running;  // jobs running when it began
  std::int32_t group;
  double wall_us;
  double plan_cells;  // interval scheduling: node x interval cells a plan table would read (deterministic)
};

// Per-user aggregates of users with at least 10 jobs that ran.
struct UserRow {
  std::int32_t user;
  std::uint32_t jobs;
  double mean_wait_s;
  double mean_delay_s;
  double mean_bounded_slowdown;
  double mean_wrsa_at_submit;
};

const TableSchema& job_table_schema();
const TableSchema& allocation_table_schema();
const TableSchema& series_table_schema();
const TableSchema& pass_table_schema();
const TableSchema& user_table_schema();

struct BatchResult {
  RunStats stats;
  std::vector<JobRow> jobs;                // on rank 0: every job, by index
  std::vector<AllocationRow> allocations;  // on rank 0: by index, then first
  std::vector<SeriesRow> series;           // on rank 0: by time, then group
  std::vector<PassCostRow> pass_costs;     // on rank 0: by time, then group
  double busy_node_seconds = 0;            // from the node blocks' accounting (all ranks)
  std::uint64_t passes = 0;                // scheduling passes committed
  std::uint64_t broken_reservations = 0;   // over the committed passes (see PassDecision)
};

// Runs the workload (sorted by submit time) on comm.
// What run_batch refuses, checked without running (ConfigError naming the key).
void validate(const workload::Workload& workload, const BatchParams& params);
BatchResult run_batch(const Communicator& comm, const workload::Workload& workload, const BatchParams& params,
                      EngineConfig engine);

// Headline metrics from the job rows.
Attributes batch_summary(const BatchResult& result, const BatchParams& params);
// A simulated wait is "close" to the logged one within 10 minutes or 10% of it, whichever is more.
inline constexpr double kCloseWaitS = 600;
inline constexpr double kCloseWaitShare = 0.1;
// The simulated waits against the logged ones, over the jobs that ran, have a logged wait and
// were submitted at or after `submitted_from_s` (batch.compare_from_s):
// logged_jobs; logged_ and compared_ (simulated) mean and median wait of those jobs;
// wait_median_abs_difference_s; wait_rank_correlation (Spearman); wait_close_share (the share
// within kCloseWaitS or kCloseWaitShare); beside them null_close_share and
// null_median_abs_difference_s (what a null model, every wait 0, scores on the same jobs) and
// requested_wait_rank_correlation (how the requested times alone rank the logged waits). Empty
// when no job has a logged wait.
Attributes logged_comparison(const std::vector<JobRow>& jobs, double submitted_from_s = 0);
// Scheduling pass cost from the pass table: mean, p99 and max wall-clock microseconds.
Attributes pass_cost_summary(const std::vector<PassCostRow>& passes);
// Per-user aggregates (users with >= 10 jobs that ran), by user.
std::vector<UserRow> user_aggregates(const std::vector<JobRow>& jobs);

// The batch.* keys that set BatchParams directly (batch_registration.cpp declares the others:
// the machine preset and the allocation rule, whose defaults depend on the preset).
const ParamTable<BatchParams>& param_table();
// The model as `experiment.model = "batch"` runs it, with its generator "kcomputer".
const model::ModelInfo& batch_model();

}  // namespace tracewarp::batch
