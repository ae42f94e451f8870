// The replication model (docs/studies.md#replication): a bag of independent tasks on volatile hosts, scheduled
// by a central server (WQR, adaptive) or by the hosts themselves (distributed replication).
//
// LPs: one server (the central scheduler and the application's result sink; the application's
// request is its start at t = 0) and `hosts` host LPs spread over the ranks. Every message
// between them pays the transit-stub network's delay (model/replication/resources.hpp), which is
// the lookahead between ranks. The server serves `server_rate` events per second: each event
// (one per request/response exchange with a host) occupies it for 1/rate s, first come first
// served; its response leaves when its service ends. Hosts spend no event on the availability
// walk: their speed is computed when they handle an event.
//
// What costs a server event, per method (policy/replication/scheduling.hpp says how each decides):
//   wqr       — a host's request (1), a result (1) and the assignment that follows it (1), each
//               cancellation sent to a host running a losing copy (1);
//   adaptive  — every round (the first at t = 0 is the static assignment, then every
//               reschedule period after the previous round ended, until all tasks are done):
//               one per host to collect its state, one per host to send its new assignment.
//               With monitoring (monitor_interval_s > 0, the third reading), rounds after the
//               first collect nothing: every host sends a measurement of its speed and queue
//               each interval (monitor_cost_events of server time each, monitor_bytes on the
//               wire, monitor_lag_s late), and a round rebalances on the latest measurement of
//               each host, however old (`view_age_*` in the summary); the server updates its
//               view with the transfers it orders. Monitoring stops when the last task is done;
////   proposed  — the static assignment round only. Hosts count (not queue) the events they
//               handle: a poll, a replica assignment, a replica's result.
// Results of adaptive and proposed tasks go to the sink without a scheduler event.
//
// Our readings, each a key: a host's input transfer (input_bytes) delays its first task only;
// the inputs of queued tasks stream behind it. A task ends when its winning copy finishes; the
// winner is the first result to reach the arbiter (the server for wqr, the task's original host
// for proposed). All rows come from commit handlers; interval series are exact integrals.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tracewarp/core/params.hpp"
#include "tracewarp/core/stats.hpp"
#include "tracewarp/core/tables.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/config.hpp"
#include "tracewarp/model/replication/resources.hpp"
#include "tracewarp/model/run_context.hpp"

namespace tracewarp::model {
struct ModelInfo;
}

namespace tracewarp::replication {

struct ReplicationParams {
  std::string method = "proposed";
  std::uint32_t hosts = 1600;
  std::uint64_t tasks = 10000;
  double grain = 1e10;  // flop per task
  std::uint32_t wqr_max_replicas = 4;
  std::uint32_t max_replicas = 1;  // proposed
  std::uint32_t polling_list = 10;
  bool est_includes_transfer = false;
  double server_rate = 50;  // events per second
  // Optimistic mode undoes host events by on_reverse (host_lp.hpp keeps what they change), not by
  // copies of the host: scale.toml 10% faster on one rank, 5% on two (docs/performance-history.md).
  bool reverse = true;
  Time reschedule_period = 100 * kTicksPerSecond;
  // Adaptive's monitoring (0 = none: each round collects every host's state on demand).
  Time monitor_interval = 0;
  Time monitor_lag = 0;
  double monitor_cost_events = 1;
  double monitor_bytes = 16;
  Time walk_step = 10 * kTicksPerSecond;
  double walk_start = 50;
  double omega_variance = 1;
  double input_bytes = 100e3;
  double message_bytes = 16;
  std::uint32_t domain_size = 50;
  std::uint32_t server_domain = 0;
  double stub_mbps = 100;
  double transit_mbps = 1000;
  Time hop_latency = kTicksPerSecond / 1000;
  Time inter_domain_rtt = kTicksPerSecond / 100;
  model::RunContext context;  // the seed and series interval of the run
};
const ParamTable<ReplicationParams>& replication_param_table();

// The five peak-speed classes (flop/s) and the six walk variances a host draws from.
inline constexpr double kPeakMflops[] = {100, 200, 400, 800, 1600};

struct TaskRow {
  std::uint64_t id;
  double grain;  // flop
  std::uint32_t original_host;
  std::uint32_t winner_host;
  double start_s;                   // first copy's start
  double end_s;                     // winning copy's finish
  std::uint32_t replicas;           // copies started besides the original
  std::uint32_t cancelled;          // other copies running when the task was won
  std::uint32_t winner_is_replica;  // 1 if a replica won
  std::uint32_t padding;
};

struct CopyRow {
  std::uint64_t task;
  std::uint32_t host;
  std::uint32_t replica;  // 1 if not the task's first copy
  double start_s;
  double end_s;
  std::uint32_t finished;  // 1: computed to the end; 0: stopped by a cancellation
  std::uint32_t padding;
};

struct SeriesRow {
  double time_s;
  double busy_hosts;       // time average
  double queued_requests;  // at the server, time average
};

const TableSchema& task_table_schema();
const TableSchema& copy_table_schema();
const TableSchema& series_table_schema();

struct ReplicationResult {
  RunStats stats;
  std::vector<TaskRow> tasks;     // on rank 0, by id
  std::vector<CopyRow> copies;    // on rank 0, by (task, start, host)
  std::vector<SeriesRow> series;  // on rank 0, by time
  std::uint64_t server_events = 0;
  double queue_delay_mean_s = 0;
  double queue_delay_max_s = 0;
  std::uint64_t host_events_max = 0;
  double host_events_mean = 0;
  std::uint64_t hosts_stopped = 0;  // pollers that exhausted their list (proposed)
  std::uint64_t replicas_accepted_not_started = 0;
  std::uint64_t measurements = 0;  // adaptive's monitoring: measurements the server served
  double view_age_mean_s = 0;      // age of the host states a split or rebalancing used
  double view_age_max_s = 0;
  double total_peak_flops = 0;
};

ReplicationResult run_replication(const Communicator& comm, const ReplicationParams& params, EngineConfig engine);
Attributes replication_summary(const ReplicationResult& result, const ReplicationParams& params);

const model::ModelInfo& replication_model();

}  // namespace tracewarp::replication
