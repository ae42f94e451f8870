// The batch model's run: jobs routed to resource groups, the LPs registered, results gathered
// in rank-independent order.
#include "tracewarp/model/batch/batch_model.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <variant>

#include "../common/gather_rows.hpp"
#include "../common/submission_source.hpp"
#include "node_block_lp.hpp"
#include "scheduler_lp.hpp"
#include "tracewarp/engine/simulation.hpp"

namespace tracewarp::batch {

using namespace detail;
using model::gather_rows;

namespace {

// The group of a partition: the one that lists it, else the one that takes every other, else
// the first (which rejects it on arrival).
std::size_t partition_group(const std::vector<GroupPart>& parts, std::int32_t partition) {
  std::size_t other = 0;
  for (std::size_t g = 0; g < parts.size(); ++g) {
    const ResourceGroup& group = parts[g].group;
    if (std::find(group.partitions.begin(), group.partitions.end(), partition) != group.partitions.end()) return g;
    if (group.other_partitions) other = g;
  }
  return other;
}

// Partition groups (batch.partitions) take the jobs of their partitions. Otherwise: routes every job to the first group
// whose job-size range holds it; a job no group takes goes to the last group whose range starts at or below it, which
// rejects it on arrival.
std::vector<GroupPart> route_jobs(const workload::Workload& workload, const BatchParams& params) {
  std::vector<GroupPart> parts;
  std::uint32_t first = 0;
  const std::vector<ResourceGroup> groups =
      resolve_groups(static_cast<std::uint32_t>(params.machine_units()), params.groups);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    parts.push_back({groups[g], first, {}, 0, groups.size() > 1 ? static_cast<std::int32_t>(g + 1) : 0});
    first += groups[g].nodes;
  }
  const bool by_partition = groups.front().by_partition();
  for (std::uint64_t i = 0; i < workload.jobs.size(); ++i) {
    if (by_partition) {
      parts[partition_group(parts, workload.jobs[i].partition)].jobs.push_back(i);
      continue;
    }
    const std::uint32_t nodes = params.units_of(workload.jobs[i]);
    std::size_t chosen = 0;
    for (std::size_t g = 0; g < parts.size(); ++g) {
      if (nodes >= parts[g].group.min_job_nodes) chosen = g;
      if (nodes >= parts[g].group.min_job_nodes && nodes <= parts[g].group.max_job_nodes) break;
    }
    parts[chosen].jobs.push_back(i);
  }
  return parts;
}

// The accounts that share the machine in equal shares (fair share): the workload's distinct
// users, or groups.
std::uint64_t count_accounts(const workload::Workload& workload, const PrioritySettings& priority) {
  std::set<std::int32_t> accounts;
  for (const workload::Job& j : workload.jobs) accounts.insert(priority.account_of(j.user, j.group));
  return std::max<std::uint64_t>(accounts.size(), 1);
}

// With several groups, the whole machine's rows (group 0) are the sums of the groups' rows at
// each sample time; a group that has finished contributes nothing.
void add_machine_totals(std::vector<SeriesRow>& series) {
  std::map<double, SeriesRow> totals;
  for (const SeriesRow& r : series) {
    SeriesRow& t = totals.try_emplace(r.time_s, SeriesRow{r.time_s, 0, 0, 0, 0}).first->second;
    t.used_nodes += r.used_nodes;
    t.running += r.running;
    t.queued += r.queued;
  }
  for (const auto& [time, row] : totals) series.push_back(row);
}

}  // namespace

// Each key's own range and choices are checked where it is declared (param_table); this checks
// what they cannot say alone: a machine resolved to some nodes, and a policy that takes it.
void validate(const workload::Workload& workload, const BatchParams& params) {
  if (params.nodes == 0) throw ConfigError("batch: the machine has no nodes (set batch.nodes)");
  if (params.counts_processors() && !params.groups.empty() && !params.groups.front().by_partition())
    throw ConfigError("batch.resources = \"" + to_string(params.resources) +
                      "\": the machine's resource groups are sized in whole nodes; set batch.resources = "
                      "\"exclusive-nodes\"");
  if (params.machine_units() > kMaxBatchNodes)
    throw ConfigError("batch: a machine of " + std::to_string(params.machine_units()) +
                      " processors is more than the batch model takes (" + std::to_string(kMaxBatchNodes) +
                      "); set batch.resources = \"exclusive-nodes\" to count whole nodes");
  for (std::size_t i = 1; i < workload.jobs.size(); ++i)
    if (workload.jobs[i].submit < workload.jobs[i - 1].submit) throw InvariantError("batch: workload not sorted");
  make_policy(params);  // a bad name or pattern fails before anything runs
}

BatchResult run_batch(const Communicator& comm, const workload::Workload& workload, const BatchParams& params,
                      EngineConfig engine) {
  validate(workload, params);

  Shared shared{&workload, params, route_jobs(workload, params), 0,
                static_cast<std::uint32_t>((params.machine_units() + params.block_nodes - 1) / params.block_nodes)};
  shared.accounts = count_accounts(workload, params.priority);
  const auto groups = static_cast<LpId>(shared.groups.size());
  Collector out;
  Simulation sim(comm, engine);
  // LP ids: group 0's source and scheduler, the node blocks, then the other groups' sources and
  // schedulers — so block placement (contiguous id ranges) puts the first and the last group's
  // schedulers on different ranks. Factories run when the simulation starts.
  const auto add_group = [&](std::size_t g) {
    GroupPart& part = shared.groups[g];
    sim.add_lps<model::SubmissionSource>({.name = "batch-source"}, 1, [&workload, &part](LpId) {
      return model::SubmissionSource(&workload, &part.jobs, &part.scheduler, kSourceTick, kArrival);
    });
    // The scheduler's state (queue, running jobs, policy plans) is large and it depends on no
    // remote input, so it is rarely if ever rolled back: copy it seldom.
    part.scheduler = sim.add_lps<SchedulerLp>({.name = "batch-scheduler", .checkpoint_interval = 4096, .timed = true},
                                              1, [&shared, &out, g](LpId) { return SchedulerLp(&shared, &out, g); })
                         .first;
  };
  add_group(0);
  shared.first_block = sim.add_lps<NodeBlockLp>({.name = "batch-node-block"}, shared.blocks,
                                                [&](LpId) { return NodeBlockLp(&shared, &out); })
                           .first;
  for (std::size_t g = 1; g < shared.groups.size(); ++g) add_group(g);
  sim.checkpoint_also(out);

  BatchResult result;
  result.stats = sim.run();
  result.jobs = model::gather_sorted(comm, std::move(out.jobs),
                                     [](const JobRow& a, const JobRow& b) { return a.index < b.index; });
  result.allocations =
      model::gather_sorted(comm, std::move(out.allocations), [](const AllocationRow& a, const AllocationRow& b) {
        return a.index < b.index || (a.index == b.index && a.first < b.first);
      });
  result.series = gather_rows(comm, std::move(out.series));
  result.pass_costs = gather_rows(comm, std::move(out.pass_costs));
  if (groups > 1) add_machine_totals(result.series);
  std::sort(result.pass_costs.begin(), result.pass_costs.end(), [](const PassCostRow& a, const PassCostRow& b) {
    return a.time_s < b.time_s || (a.time_s == b.time_s && a.group < b.group);
  });
  std::sort(result.series.begin(), result.series.end(), [](const SeriesRow& a, const SeriesRow& b) {
    return a.time_s < b.time_s || (a.time_s == b.time_s && a.group < b.group);
  });
  std::uint64_t counts[2] = {out.passes, out.broken_reservations};
  comm.sum(counts);
  result.passes = counts[0];
  result.broken_reservations = counts[1];
  std::vector<BlockBusy> busy = gather_rows(comm, std::move(out.busy));
  std::sort(busy.begin(), busy.end(), [](const BlockBusy& x, const BlockBusy& y) { return x.block < y.block; });
  for (const BlockBusy& b : busy) result.busy_node_seconds += b.node_seconds;
  return result;
}

}  // namespace tracewarp::batch
