// The batch model's headline metrics, pass costs and per-user aggregates, from its tables.
#include <algorithm>
#include <cmath>
#include <map>

#include "tracewarp/model/batch/batch_model.hpp"

namespace tracewarp::batch {

Attributes batch_summary(const BatchResult& r, const BatchParams& params) {
  const std::vector<ResourceGroup> groups = resolve_groups(params.nodes, params.groups);
  std::uint64_t completed = 0, killed = 0, rejected = 0;
  double first_submit = 0, last_end = 0, wait = 0, node_wait = 0, ran_nodes = 0, slowdown = 0, delay = 0;
  double node_seconds = 0;
  bool any = false;
  std::vector<double> waits;
  for (const JobRow& j : r.jobs) {
    if (j.status == static_cast<std::int16_t>(JobStatus::rejected)) {
      ++rejected;
      continue;
    }
    (j.status == static_cast<std::int16_t>(JobStatus::killed) ? killed : completed) += 1;
    first_submit = any ? std::min(first_submit, j.submit_s) : j.submit_s;
    last_end = any ? std::max(last_end, j.end_s) : j.end_s;
    any = true;
    wait += j.wait_s;
    node_wait += j.wait_s * j.nodes;
    ran_nodes += j.nodes;
    slowdown += j.bounded_slowdown;
    delay += j.delay_s;
    node_seconds += j.nodes * j.run_s;
    waits.push_back(j.wait_s);
  }
  const double ran = static_cast<double>(completed + killed);
  const double makespan = last_end - first_submit;
  std::sort(waits.begin(), waits.end());
  const auto percentile = [&](double q) {
    return waits.empty()
               ? 0.0
               : waits[std::min(waits.size() - 1, static_cast<std::size_t>(q * static_cast<double>(waits.size())))];
  };
  // Utilisation and starts inside the stated window (default: first submit to last end).
  const double from = params.window_from > 0 ? to_seconds(params.window_from) : first_submit;
  const double until = params.window_until > 0 ? to_seconds(params.window_until) : last_end;
  std::vector<double> busy(groups.size(), 0.0);
  std::int64_t started_in_window = 0;
  for (const JobRow& j : r.jobs) {
    if (j.status == static_cast<std::int16_t>(JobStatus::rejected)) continue;
    busy[static_cast<std::size_t>(j.group)] +=
        j.nodes * std::max(0.0, std::min(j.end_s, until) - std::max(j.start_s, from));
    started_in_window += j.start_s >= from && j.start_s < until;
  }
  const double span = std::max(0.0, until - from);
  const auto utilisation = [&](double node_s, double nodes) { return span > 0 ? node_s / (nodes * span) : 0.0; };
  double all_busy = 0;
  for (const double b : busy) all_busy += b;
  Attributes out{{"jobs", static_cast<std::int64_t>(r.jobs.size())},
                 {"completed", static_cast<std::int64_t>(completed)},
                 {"killed", static_cast<std::int64_t>(killed)},
                 {"rejected", static_cast<std::int64_t>(rejected)},
                 {"makespan_s", makespan},
                 {"window_from_s", from},
                 {"window_until_s", until},
                 {"utilisation", utilisation(all_busy, params.nodes)},
                 {"started_in_window", started_in_window},
                 {"mean_wait_s", ran > 0 ? wait / ran : 0.0},
                 {"node_weighted_mean_wait_s", ran_nodes > 0 ? node_wait / ran_nodes : 0.0},
                 {"median_wait_s", percentile(0.5)},
                 {"p95_wait_s", percentile(0.95)},
                 {"mean_bounded_slowdown", ran > 0 ? slowdown / ran : 0.0},
                 {"mean_delay_s", ran > 0 ? delay / ran : 0.0},
                 {"busy_node_seconds", node_seconds},
                 {"passes", static_cast<std::int64_t>(r.passes)},
                 {"broken_reservations", static_cast<std::int64_t>(r.broken_reservations)}};
  if (groups.size() > 1)
    for (std::size_t g = 0; g < groups.size(); ++g)
      out["utilisation_" + groups[g].name] = utilisation(busy[g], groups[g].nodes);
  double cells = 0;
  for (const PassCostRow& p : r.pass_costs) cells += p.plan_cells;
  if (cells > 0) out["mean_plan_cells_per_pass"] = cells / static_cast<double>(r.pass_costs.size());
  return out;
}

Attributes pass_cost_summary(const std::vector<PassCostRow>& passes) {
  std::vector<double> us;
  for (const PassCostRow& p : passes)
    if (p.wall_us >= 0) us.push_back(p.wall_us);
  if (us.empty()) return {};
  std::sort(us.begin(), us.end());
  double sum = 0;
  for (const double u : us) sum += u;
  const auto p99 = us[std::min(us.size() - 1, static_cast<std::size_t>(0.99 * static_cast<double>(us.size())))];
  return {{"pass_mean_us", sum / static_cast<double>(us.size())}, {"pass_p99_us", p99}, {"pass_max_us", us.back()}};
}

std::vector<UserRow> user_aggregates(const std::vector<JobRow>& jobs) {
  struct Sums {
    std::uint32_t jobs = 0;
    double wait = 0, delay = 0, slowdown = 0, wrsa = 0;
  };
  std::map<std::int32_t, Sums> users;
  for (const JobRow& j : jobs) {
    if (j.status == static_cast<std::int16_t>(JobStatus::rejected)) continue;
    Sums& s = users[j.user];
    ++s.jobs;
    s.wait += j.wait_s;
    s.delay += j.delay_s;
    s.slowdown += j.bounded_slowdown;
    s.wrsa += j.wrsa_at_submit;
  }
  std::vector<UserRow> rows;
  for (const auto& [user, s] : users) {
    if (s.jobs < 10) continue;
    const double n = s.jobs;
    rows.push_back({user, s.jobs, s.wait / n, s.delay / n, s.slowdown / n, s.wrsa / n});
  }
  return rows;
}

}  // namespace tracewarp::batch
