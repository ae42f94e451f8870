#include "tracewarp/workload/transforms.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "tracewarp/core/error.hpp"

namespace tracewarp::workload {
namespace {
std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}
}  // namespace

KeepJobs parse_keep_jobs(const std::string& name) {
  if (name == "all") return KeepJobs::all;
  if (name == "completed") return KeepJobs::completed;
  if (name == "completed-within-request") return KeepJobs::completed_within_request;
  throw ConfigError("workload.keep: unknown '" + name + "' (all, completed, completed-within-request)");
}

void keep_jobs(Workload& w, KeepJobs keep) {
  if (keep == KeepJobs::all) return;
  constexpr std::int32_t kSwfCompleted = 1;
  const bool within = keep == KeepJobs::completed_within_request;
  std::uint64_t failed = 0, unknown_request = 0, overran = 0;
  std::erase_if(w.jobs, [&](const Job& j) {
    if (j.status != kSwfCompleted) return ++failed, true;
    if (within && (j.requested_from_run || j.requested < 0)) return ++unknown_request, true;
    if (within && j.run > j.requested) return ++overran, true;
    return false;
  });
  std::string text = std::string("keep_jobs(") + (within ? "completed-within-request" : "completed") +
                     ", dropped_not_completed=" + std::to_string(failed);
  if (within)
    text += ", dropped_no_request=" + std::to_string(unknown_request) + ", dropped_overran=" + std::to_string(overran);
  w.transforms.push_back(text + ")");
}

void drop_short_jobs(Workload& w, double min_run_s) {
  if (min_run_s < 0) throw ConfigError("workload.min_run_s must be >= 0");
  const Time limit = from_seconds(min_run_s);
  const auto before = w.jobs.size();
  std::erase_if(w.jobs, [&](const Job& j) { return j.run < limit; });
  w.transforms.push_back("drop_short_jobs(min_run_s=" + number(min_run_s) +
                         ", dropped=" + std::to_string(before - w.jobs.size()) + ")");
}

void take_window(Workload& w, std::uint64_t start, std::uint64_t count) {
  if (start > w.jobs.size())
    throw ConfigError("workload.window_start " + std::to_string(start) + " is beyond the workload's " +
                      std::to_string(w.jobs.size()) + " jobs");
  const std::uint64_t end = count == 0 ? w.jobs.size() : std::min<std::uint64_t>(w.jobs.size(), start + count);
  w.jobs.erase(w.jobs.begin() + static_cast<std::ptrdiff_t>(end), w.jobs.end());
  w.jobs.erase(w.jobs.begin(), w.jobs.begin() + static_cast<std::ptrdiff_t>(start));
  // The window starts at time 0, as a trace of its own.
  const Time origin = w.jobs.empty() ? 0 : w.jobs.front().submit;
  for (Job& j : w.jobs) j.submit -= origin;
  if (w.unix_start_time >= 0) w.unix_start_time += origin / kTicksPerSecond;  // whole seconds in SWF
  w.transforms.push_back("window(start=" + std::to_string(start) + ", count=" + std::to_string(end - start) +
                         ", shifted_by_s=" + number(to_seconds(origin)) + ")");
}

void set_request_accuracy(Workload& w, double wra) {
  if (!(wra > 0 && wra <= 1)) throw ConfigError("workload.wra must lie in (0, 1], got " + number(wra));
  for (Job& j : w.jobs) {
    j.requested = static_cast<Time>(std::ceil(static_cast<double>(j.run) / wra));
    j.requested_from_run = false;
  }
  w.transforms.push_back("request_accuracy(wra=" + number(wra) + ")");
}

void scale_interarrival(Workload& w, double factor) {
  if (!(factor > 0)) throw ConfigError("workload.iat_scale must be > 0, got " + number(factor));
  Time previous_old = w.jobs.empty() ? 0 : w.jobs.front().submit;
  Time previous_new = previous_old;
  for (Job& j : w.jobs) {
    const Time gap = j.submit - previous_old;
    previous_old = j.submit;
    j.submit = previous_new + static_cast<Time>(std::llround(static_cast<double>(gap) * factor));
    previous_new = j.submit;
  }
  w.transforms.push_back("interarrival_scale(factor=" + number(factor) + ")");
}

void scale_nodes(Workload& w, std::uint32_t from_nodes, std::uint32_t to_nodes) {
  if (from_nodes == 0 || to_nodes == 0) throw ConfigError("node scaling needs both machine sizes (> 0)");
  for (Job& j : w.jobs) j.nodes = workload::scaled_nodes(j.nodes, from_nodes, to_nodes);
  w.transforms.push_back("scale_nodes(from=" + std::to_string(from_nodes) + ", to=" + std::to_string(to_nodes) + ")");
  w.max_nodes = to_nodes;
}

void apply_transforms(Workload& w, const Transforms& t) {
  keep_jobs(w, parse_keep_jobs(t.keep));
  if (t.min_run_s > 0) drop_short_jobs(w, t.min_run_s);
  if (t.window_start > 0 || t.window_jobs > 0) take_window(w, t.window_start, t.window_jobs);
  if (t.wra > 0) set_request_accuracy(w, t.wra);
  if (t.iat_scale != 1) scale_interarrival(w, t.iat_scale);
  if (t.scale_nodes_to > 0) {
    const std::uint32_t from =
        t.machine_nodes > 0 ? t.machine_nodes : static_cast<std::uint32_t>(std::max<std::int64_t>(0, w.max_nodes));
    if (from == 0)
      throw ConfigError("workload.scale_nodes_to needs workload.machine_nodes (the trace has no MaxNodes)");
    scale_nodes(w, from, t.scale_nodes_to);
  }
}

const ParamTable<Transforms>& transform_params() {
  using P = Transforms;
  static const ParamTable<P> table =
      ParamTable<P>("workload")
          .choice("keep", &P::keep, {"all", "completed", "completed-within-request"},
                  "jobs kept by how they ended (applied first): all; completed (SWF status 1; with min_run_s = 90 the "
                  "WRSA study's Original, its Table 1 on RICC); completed-within-request (status 1 and run <= a "
                  "requested time the trace gives: an earlier reading, a variant) (workload/transforms.hpp)")
          .number("min_run_s", &P::min_run_s, "drop jobs that ran less than this, seconds (after keep)",
                  {.min = 0, .max = 1e9})
          .integer("window_start", &P::window_start, "skip this many jobs (after min_run_s)")
          .integer("window_jobs", &P::window_jobs, "then keep this many jobs (0 = all)")
          .number("wra", &P::wra, "walltime request accuracy transform: requested := run / wra (0 = original requests)",
                  {.min = 0, .max = 1})
          .number("iat_scale", &P::iat_scale, "multiply the gaps between submissions (0.5 = twice the load)",
                  {.min = 1e-9, .max = 1e6})
          .integer("scale_nodes_to", &P::scale_nodes_to,
                   "scale node counts to a machine of this many nodes (ceil, at least 1; 0 = keep)")
          .integer("machine_nodes", &P::machine_nodes,
                   "node count of the traced machine for node scaling (0 = MaxNodes of the header)");
  return table;
}

}  // namespace tracewarp::workload
