#include "tracewarp/traces/inspect.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <vector>

namespace tracewarp::traces {
namespace {

Distribution distribution(std::vector<float>& v) {
  Distribution d;
  if (v.empty()) return d;
  double sum = 0;
  for (const float x : v) sum += x;
  d.mean = sum / static_cast<double>(v.size());
  const auto at = [&](double q) {
    const std::size_t k = std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return static_cast<double>(v[k]);
  };
  d.median = at(0.5);
  d.p90 = at(0.9);
  d.max = *std::max_element(v.begin(), v.end());
  return d;
}

}  // namespace

OfferedLoad offered_load(const TraceSummary& s) {
  if (s.machine_nodes <= 0 || s.span_s <= 0) return {};
  const double nodes = static_cast<double>(s.machine_nodes);
  return {s.processor_seconds / (nodes * s.cores_per_node * s.span_s), s.node_seconds / (nodes * s.span_s)};
}

TraceSummary summarize_trace(const std::string& path, const TraceOptions& options, double walltime_grace_s) {
  const auto start = std::chrono::steady_clock::now();
  TraceFormat format = TraceFormat::automatic;
  const std::unique_ptr<TraceReader> reader = open_trace(path, options, &format);
  TraceSummary s;
  s.path = path;
  s.format = to_string(format);
  s.walltime_grace_s = walltime_grace_s;
  const Time grace = from_seconds(walltime_grace_s);
  std::vector<float> run, requested, nodes;
  std::set<std::int32_t> users, groups;
  Time first = kTimeInfinity, last = std::numeric_limits<Time>::min(), latest = last;
  workload::Job job;
  while (reader->next(job)) {
    ++s.jobs;
    first = std::min(first, job.submit);
    last = std::max(last, job.submit);
    if (job.submit < latest) ++s.out_of_order;
    latest = std::max(latest, job.submit);
    s.max_nodes = std::max<std::uint64_t>(s.max_nodes, job.nodes);
    s.max_procs = std::max<std::uint64_t>(s.max_procs, job.procs);
    const bool has_requested = job.requested > 0 && !job.requested_from_run;
    if (has_requested) ++s.with_requested_time;
    if (has_requested && job.run > job.requested) ++s.ran_longer_than_requested;
    if (has_requested && job.run > job.requested + grace) ++s.cut_at_walltime;
    s.processor_seconds += static_cast<double>(job.procs) * to_seconds(job.run);
    s.node_seconds += static_cast<double>(job.nodes) * to_seconds(job.run);
    if (job.user >= 0) users.insert(job.user);
    if (job.group >= 0) groups.insert(job.group);
    run.push_back(static_cast<float>(to_seconds(job.run)));
    if (has_requested) requested.push_back(static_cast<float>(to_seconds(job.requested)));
    nodes.push_back(static_cast<float>(job.nodes));
  }
  s.tally = reader->tally();
  s.header = reader->header();
  s.cores_per_node = reader->cores_per_node();
  s.machine_nodes = reader->machine_nodes();
  s.machine_note = reader->machine_note();
  s.header_max_nodes = workload::header_int(s.header, "MaxNodes");
  s.header_max_procs = workload::header_int(s.header, "MaxProcs");
  if (s.jobs > 0) {
    s.first_submit_s = to_seconds(first);
    s.last_submit_s = to_seconds(last);
    s.span_s = to_seconds(last - first);
  }
  s.users = users.size();
  s.groups = groups.size();
  s.run_s = distribution(run);
  s.requested_s = distribution(requested);
  s.nodes = distribution(nodes);
  s.bytes = reader->bytes_read();
  s.read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

}  // namespace tracewarp::traces
