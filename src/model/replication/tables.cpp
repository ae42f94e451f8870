// The replication model's keys, output tables and summary.
#include <algorithm>
#include <map>

#include "internal.hpp"
#include "tracewarp/core/error.hpp"

namespace tracewarp::replication {

const ParamTable<ReplicationParams>& replication_param_table() {
  using P = ReplicationParams;
  static const ParamTable<P> table =
      ParamTable<P>("replication")
          .choice("method", &P::method, method_names(), "scheduling method (policy/replication/scheduling.hpp)")
          .integer("hosts", &P::hosts, "resources, one LP each", {.min = 2})
          .integer("tasks", &P::tasks, "independent tasks of the application", {.min = 1})
          .number("grain", &P::grain, "work per task, floating-point operations", {.min = 1})
          .integer("wqr_max_replicas", &P::wqr_max_replicas, "wqr: replicas besides the original (4 = 5 copies)")
          .integer("max_replicas", &P::max_replicas, "proposed: replicas a task may have (condition 2)", {.min = 1})
          .integer("polling_list", &P::polling_list, "proposed: hosts in each polling list", {.min = 1})
          .flag("est_includes_transfer", &P::est_includes_transfer,
                "proposed: EST adds the input transfer time from the polled host")
          .number("server_rate", &P::server_rate, "events the central server serves per second", {.min = 1e-6})
          .flag("reverse", &P::reverse,
                "optimistic mode undoes host events by reverse computation (on_reverse) instead of state copies")
          .seconds("reschedule_period_s", &P::reschedule_period, "adaptive: seconds from one round's start to the next",
                   {.min = 1e-3})
          .seconds("monitor_interval_s", &P::monitor_interval,
                   "adaptive: seconds between a host's measurements sent to the server (0 = no monitoring: every "
                   "round collects each host's state, 1 event each); other methods ignore it",
                   {.min = 0})
          .seconds("monitor_lag_s", &P::monitor_lag,
                   "adaptive monitoring: seconds a measurement takes to reach the server beyond the network",
                   {.min = 0})
          .number("monitor_cost_events", &P::monitor_cost_events,
                  "adaptive monitoring: server time per measurement, in events (1 = 1 / server_rate)", {.min = 0})
          .number("monitor_bytes", &P::monitor_bytes, "adaptive monitoring: bytes per measurement", {.min = 0})
          .seconds("walk_step_s", &P::walk_step, "availability walk: seconds between updates", {.min = 1e-3})
          .number("walk_start", &P::walk_start, "availability walk: x0, percent (y0 = clamp(x0 + w0))",
                  {.min = 0, .max = 100})
          .number("omega_variance", &P::omega_variance, "availability walk: variance of w (omega_m)", {.min = 0})
          .number("input_bytes", &P::input_bytes, "task input sent with an assignment, bytes", {.min = 0})
          .number("message_bytes", &P::message_bytes, "poll, request, result and control messages, bytes", {.min = 0})
          .integer("domain_size", &P::domain_size, "stub nodes (hosts) per transit domain", {.min = 1})
          .integer("server_domain", &P::server_domain, "transit domain of the central server's stub")
          .number("stub_mbps", &P::stub_mbps, "stub-transit link bandwidth, Mbit/s", {.min = 1e-6})
          .number("transit_mbps", &P::transit_mbps, "transit-transit link bandwidth, Mbit/s", {.min = 1e-6})
          .seconds("hop_latency_s", &P::hop_latency, "latency of one link, seconds", {.min = 1e-9})
          .seconds("inter_domain_rtt_s", &P::inter_domain_rtt, "extra round trip between domains, seconds", {.min = 0});
  return table;
}

const TableSchema& task_table_schema() {
  static const TableSchema schema{
      "tasks",
      sizeof(TaskRow),
      {TRACEWARP_COLUMN(TaskRow, id, "", "task id"), TRACEWARP_COLUMN(TaskRow, grain, "flop", "work of the task"),
       TRACEWARP_COLUMN(TaskRow, original_host, "", "host that ran its first (original) copy"),
       TRACEWARP_COLUMN(TaskRow, winner_host, "", "host whose copy won"),
       TRACEWARP_COLUMN(TaskRow, start_s, "s", "start of the first copy"),
       TRACEWARP_COLUMN(TaskRow, end_s, "s", "finish of the winning copy"),
       TRACEWARP_COLUMN(TaskRow, replicas, "", "copies started besides the original"),
       TRACEWARP_COLUMN(TaskRow, cancelled, "", "other copies told to stop when it was won"),
       TRACEWARP_COLUMN(TaskRow, winner_is_replica, "", "1 if a replica won")},
      "replication: one row per task, by id"};
  return schema;
}

const TableSchema& copy_table_schema() {
  static const TableSchema schema{
      "copies",
      sizeof(CopyRow),
      {TRACEWARP_COLUMN(CopyRow, task, "", "task id"), TRACEWARP_COLUMN(CopyRow, host, "", "host that ran the copy"),
       TRACEWARP_COLUMN(CopyRow, replica, "", "1 if not the task's first copy"),
       TRACEWARP_COLUMN(CopyRow, start_s, "s", "start"), TRACEWARP_COLUMN(CopyRow, end_s, "s", "finish or stop"),
       TRACEWARP_COLUMN(CopyRow, finished, "", "1: computed to the end; 0: stopped by a cancellation")},
      "replication: one row per copy (original or replica) of every task, by (task, start, host)"};
  return schema;
}

const TableSchema& series_table_schema() {
  static const TableSchema schema{
      "series",
      sizeof(SeriesRow),
      {TRACEWARP_COLUMN(SeriesRow, time_s, "s", "start of the interval"),
       TRACEWARP_COLUMN(SeriesRow, busy_hosts, "hosts", "hosts running a copy, time average"),
       TRACEWARP_COLUMN(SeriesRow, queued_requests, "events", "events waiting at the server, time average")},
      "replication: time averages over each output.series_interval_s"};
  return schema;
}

Attributes replication_summary(const ReplicationResult& r, const ReplicationParams& p) {
  double completion = 0;
  std::uint64_t replicas = 0, won = 0, cancelled = 0;
  for (const TaskRow& t : r.tasks) {
    completion = std::max(completion, t.end_s);
    replicas += t.replicas;
    won += t.winner_is_replica;
    cancelled += t.cancelled;
  }
  const double ideal = static_cast<double>(p.tasks) * p.grain / r.total_peak_flops;
  return {{"tasks", static_cast<std::int64_t>(r.tasks.size())},
          {"completion_s", completion},
          {"ideal_bound_s", ideal},
          {"server_events", static_cast<std::int64_t>(r.server_events)},
          // Each server event takes 1 / server_rate (the study's 50 events/s): the share of the run
          // the server spent serving, 1 when it is saturated.
          // Monitoring measurements take monitor_cost_events each.
          {"server_busy_fraction", completion > 0 ? (static_cast<double>(r.server_events) +
                                                     p.monitor_cost_events * static_cast<double>(r.measurements)) /
                                                        p.server_rate / completion
                                                  : 0.0},
          {"queue_delay_mean_s", r.queue_delay_mean_s},
          {"queue_delay_max_s", r.queue_delay_max_s},
          {"host_events_max", static_cast<std::int64_t>(r.host_events_max)},
          {"host_events_mean", r.host_events_mean},
          {"replicas_started", static_cast<std::int64_t>(replicas)},
          {"replicas_won", static_cast<std::int64_t>(won)},
          {"copies_cancelled", static_cast<std::int64_t>(cancelled)},
          {"replication_success", replicas > 0 ? static_cast<double>(won) / static_cast<double>(replicas) : 0.0},
          {"hosts_stopped", static_cast<std::int64_t>(r.hosts_stopped)},
          {"measurements", static_cast<std::int64_t>(r.measurements)},
          {"view_age_mean_s", r.view_age_mean_s},
          {"view_age_max_s", r.view_age_max_s}};
}

}  // namespace tracewarp::replication
