// The batch model's headline metrics, pass costs and per-user aggregates, from its tables.
#include <algorithm>
#include <cmath>
#include <map>

#include "tracewarp/model/batch/batch_model.hpp"

namespace tracewarp::batch {

namespace {

// A job's size in the scheduler's units: nodes, or processors (BatchParams::counts_processors).
double units(const JobRow& j, const BatchParams& params) { return params.counts_processors() ? j.procs : j.nodes; }

bool ran(const JobRow& j) { return j.status != static_cast<std::int16_t>(JobStatus::rejected); }

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

// Ranks 1..n, ties given their average rank (as Spearman's coefficient needs).
std::vector<double> ranks_of(const std::vector<double>& v) {
  std::vector<std::pair<double, std::size_t>> sorted(v.size());  // values beside their places: one pass
  for (std::size_t i = 0; i < v.size(); ++i) sorted[i] = {v[i], i};
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> rank(v.size());
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t k = i;
    while (k < sorted.size() && sorted[k].first == sorted[i].first) ++k;
    const double average = (static_cast<double>(i) + static_cast<double>(k - 1)) / 2 + 1;
    for (std::size_t m = i; m < k; ++m) rank[sorted[m].second] = average;
    i = k;
  }
  return rank;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= n, my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

}  // namespace

// The simulated schedule against the one the trace logged, over the jobs that ran and have a
// logged wait: how a replay of the machine as it was compares with what the machine did, before
// any "what if" run can mean something (docs/studies.md#replaying-a-log). Beside it, what two
// baselines score on the same jobs: the null model (every job starts at submission: its close
// share is the share of logged waits within kCloseWaitS; a constant ranks nothing, so its rank
// correlation is 0) and the rank correlation of the requested times alone with the logged waits.
Attributes logged_comparison(const std::vector<JobRow>& jobs, double submitted_from_s) {
  std::vector<double> logged, simulated, difference, requested;
  std::int64_t close = 0, null_close = 0;
  for (const JobRow& j : jobs) {
    if (!ran(j) || j.logged_wait_s < 0 || j.submit_s < submitted_from_s) continue;
    logged.push_back(j.logged_wait_s);
    simulated.push_back(j.wait_s);
    requested.push_back(j.requested_s);
    const double d = std::abs(j.wait_s - j.logged_wait_s);
    difference.push_back(d);
    close += d <= std::max(kCloseWaitS, kCloseWaitShare * j.logged_wait_s);
    null_close += j.logged_wait_s <= std::max(kCloseWaitS, kCloseWaitShare * j.logged_wait_s);
  }
  if (logged.empty()) return {};
  const double n = static_cast<double>(logged.size());
  double logged_sum = 0, simulated_sum = 0;
  for (std::size_t i = 0; i < logged.size(); ++i) logged_sum += logged[i], simulated_sum += simulated[i];
  const std::vector<double> logged_ranks = ranks_of(logged);
  return {{"logged_jobs", static_cast<std::int64_t>(logged.size())},
          {"logged_mean_wait_s", logged_sum / n},
          {"logged_median_wait_s", median_of(logged)},
          {"compared_mean_wait_s", simulated_sum / n},
          {"compared_median_wait_s", median_of(simulated)},
          {"wait_median_abs_difference_s", median_of(difference)},
          {"wait_rank_correlation", pearson(logged_ranks, ranks_of(simulated))},
          {"wait_close_share", static_cast<double>(close) / n},
          {"null_close_share", static_cast<double>(null_close) / n},
          {"null_median_abs_difference_s", median_of(logged)},
          {"requested_wait_rank_correlation", pearson(logged_ranks, ranks_of(requested))}};
}

Attributes batch_summary(const BatchResult& r, const BatchParams& params) {
  const std::vector<ResourceGroup> groups =
      resolve_groups(static_cast<std::uint32_t>(params.machine_units()), params.groups);
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
    node_wait += j.wait_s * units(j, params);
    ran_nodes += units(j, params);
    slowdown += j.bounded_slowdown;
    delay += j.delay_s;
    node_seconds += units(j, params) * j.run_s;
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
        units(j, params) * std::max(0.0, std::min(j.end_s, until) - std::max(j.start_s, from));
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
                 {"utilisation", utilisation(all_busy, static_cast<double>(params.machine_units()))},
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
  for (auto& [name, value] : logged_comparison(r.jobs, to_seconds(params.compare_from))) out[name] = value;
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
