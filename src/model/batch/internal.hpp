// What the batch model's LPs share (internal to src/model/batch/): event kinds, messages, the
// per-run read-only data and each rank's collector of committed rows.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <variant>

#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/lp.hpp"
#include "tracewarp/model/batch/batch_model.hpp"

namespace tracewarp::batch::detail {

// Event kinds: their numbers order what happens within one instant (see the header).
enum Kind : EventKind {
  kJobEnd = 1,
  kSourceTick = 2,
  kArrival = 3,
  kPass = 5,
  kStart = 6,
  kSample = 8,
};
enum Record : RecordTag { kJobRecord = 1, kSeriesRecord = 2, kPassRecord = 3, kAllocationRecord = 4 };

struct StartMsg {
  std::uint64_t index;
  Time run;                   // executed run time
  std::uint32_t nodes;        // nodes of the job in this block
  std::uint32_t padding = 0;  // explicit: payloads are compared bytewise (rollback check)
};
struct EndMsg {
  std::uint64_t index;
};
struct PassRow {
  std::uint32_t queued;
  std::uint32_t started;
  std::uint32_t running;
  std::uint32_t padding = 0;  // explicit: rows are compared bytewise (rollback check)
  std::uint64_t broken_reservations;
  std::uint64_t plan_cells;
};

// One resource group's part of the run.
struct GroupPart {
  ResourceGroup group;
  std::uint32_t first_node;         // of the group on the machine's node line
  std::vector<std::uint64_t> jobs;  // workload indices routed here, in submit order
  LpId scheduler = 0;
  std::int32_t series_group = 0;  // group column of its series rows
};

// What the LPs of one run share, read-only during the run.
struct Shared {
  const workload::Workload* workload;
  BatchParams params;
  std::vector<GroupPart> groups;
  LpId first_block;
  std::uint32_t blocks;
  std::uint64_t accounts = 1;  // users (or groups) of the workload: fair share's equal shares
};

struct BlockBusy {
  std::uint64_t block;
  double node_seconds;
};

// Committed output of one rank, written from commit handlers only (outside LP state).
struct Collector {
  std::vector<JobRow> jobs;
  std::vector<AllocationRow> allocations;
  std::vector<SeriesRow> series;
  std::vector<PassCostRow> pass_costs;
  std::uint64_t passes = 0;
  std::uint64_t broken_reservations = 0;
  std::vector<BlockBusy> busy;  // per node block, combined in block order for every rank count
  TRACEWARP_PERSIST(jobs, allocations, series, pass_costs, passes, broken_reservations, busy)
};

inline BatchPolicy make_policy(const BatchParams& params) {
  const BatchPolicyInfo& info = find_batch_policy(params.policy);
  if (info.contiguous_only && params.counts_processors())
    throw ConfigError("batch.policy = \"" + info.name +
                      "\" plans contiguous ranges of whole nodes: set batch.resources = " +
                      "\"exclusive-nodes\" (it is \"" + to_string(params.resources) + "\")");
  if (info.contiguous_only && params.allocation != Allocation::contiguous)
    throw ConfigError("batch.policy = \"" + info.name +
                      "\" plans contiguous ranges: set batch.allocation = \"contiguous\"");
  return info.make(params.policy_settings.values());
}

}  // namespace tracewarp::batch::detail
