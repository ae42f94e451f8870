// What the replication model's LPs share (internal to src/model/replication/): event kinds,
// messages, the per-run read-only data and each rank's collector of committed rows.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <numbers>
#include <tuple>

#include "../common/tick_buckets.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/engine/simulation.hpp"
#include "tracewarp/model/replication/replication_model.hpp"
#include "tracewarp/policy/replication/scheduling.hpp"

namespace tracewarp::replication::detail {

// Event kinds: their numbers order what happens within one instant.
enum Kind : EventKind {
  kCopyEnd = 1,        // host, to itself: a copy finished computing
  kCancel = 2,         // server or original host -> host running a losing copy
  kReplicaResult = 3,  // replica host -> original host
  kAssign = 4,         // server -> host (wqr): a task or a replica
  kNoWork = 5,         // server -> host (wqr)
  kQueueTasks = 6,     // server or donor host -> host: a range of original tasks to queue
  kGive = 7,           // server -> donor host (adaptive): send tasks to another host
  kProbe = 8,          // server -> host: report your state
  kPoll = 9,           // poller -> polled host
  kPollReply = 10,     // polled host -> poller
  kRequest = 11,       // host -> server (wqr): give me work
  kResult = 12,        // host -> server (wqr): a copy's result
  kReport = 13,        // host -> server: state for a collection round
  kDone = 14,          // host -> server: a task is done (result sink; no scheduler event)
  kRound = 15,         // server, to itself: the next collection round
  kMeasure = 16,       // host, to itself (adaptive monitoring): measure and report
  kMeasurement = 17,   // host -> server (adaptive monitoring): a measurement
  kEnd = 18,           // server -> host (adaptive monitoring): the last task is done, stop measuring
};
enum Record : RecordTag { kTaskRecord = 1, kCopyRecord = 2, kWaitRecord = 3 };

constexpr std::uint32_t kNoHost = ~std::uint32_t{0};
constexpr std::uint64_t kNoTask = ~std::uint64_t{0};

struct TaskMsg {
  std::uint64_t task;
  std::uint64_t token;  // kCopyEnd: the copy it ends; kAssign: 1 = replica
};
struct ResultMsg {
  std::uint64_t task;
  std::uint64_t host;
  Time finish;
};
struct RangeMsg {
  std::uint64_t first;
  std::uint64_t count;
  bool operator==(const RangeMsg&) const = default;
};
struct GiveMsg {
  std::uint64_t to;
  std::uint64_t count;
};
struct ReportMsg {  // a host's state, answering a probe or measured by its monitor
  std::uint64_t host;
  double speed;
  std::uint64_t queued;
  Time measured_at;
};
struct PollMsg {
  std::uint64_t poller;
  double speed;
};
struct PollReplyMsg {
  std::uint64_t task;  // kNoTask: refused
  std::uint64_t owner;
};
struct Interval {  // [begin, end) in ticks, for the series
  Time begin;
  Time end;
};

struct Shared {
  ReplicationParams params;
  const Method* method;
  WalkParams walk;
  Network network;
  LpId server = 0;
  LpId first_host = 0;
  Time service = 0;              // server time per event
  Time measurement_service = 0;  // server time per monitoring measurement
  bool monitoring = false;       // adaptive with monitor_interval > 0
};

// Each rank's committed output.
struct Collector {
  std::vector<TaskRow> tasks;
  std::vector<CopyRow> copies;
  model::TickBuckets<2> buckets;  // busy host-ticks, queued request-ticks
  std::vector<std::uint64_t> host_events;
  std::uint64_t hosts_stopped = 0;
  std::uint64_t replicas_not_started = 0;
  std::uint64_t server_events = 0;
  TimeSum wait_sum;
  std::int64_t wait_max = 0;
  std::uint64_t waits = 0;
  std::uint64_t measurements = 0;
  TimeSum view_age_sum;
  std::uint64_t view_ages = 0;
  std::int64_t view_age_max = 0;
  void add(const Interval& iv, std::size_t series) { buckets.add(iv.begin, iv.end, series); }
  TRACEWARP_PERSIST(tasks, copies, buckets, host_events, hosts_stopped, replicas_not_started, server_events, wait_sum,
                    wait_max, waits, measurements, view_age_sum, view_ages, view_age_max)
};

struct HostTraits {
  double peak_flops;
  double upsilon_var;
};
// A host's peak class (uniform over the five) and walk variance (uniform over pi^2/1..6): the
// first draws of its stream (RandomStream(seed, host)); its polling list follows.
inline HostTraits draw_host_traits(RandomStream& rng) {
  const double peak = kPeakMflops[rng.below(5)] * 1e6;
  return {peak, std::numbers::pi * std::numbers::pi / static_cast<double>(1 + rng.below(6))};
}

}  // namespace tracewarp::replication::detail
