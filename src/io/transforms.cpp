#include "tracewarp/io/transforms.hpp"

#include "tracewarp/io/settings.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

#include "tracewarp/core/error.hpp"
#include "tracewarp/io/config.hpp"
#include "tracewarp/io/trace.hpp"

namespace tracewarp::io {
namespace {
std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}
}  // namespace

void keep_successful_jobs(workload::Workload& w) {
  constexpr std::int32_t kSwfCompleted = 1;
  std::uint64_t failed = 0, unknown_request = 0, overran = 0;
  std::erase_if(w.jobs, [&](const workload::Job& j) {
    if (j.status != kSwfCompleted) return ++failed, true;
    if (j.requested_from_run || j.requested < 0) return ++unknown_request, true;
    if (j.run > j.requested) return ++overran, true;
    return false;
  });
  w.transforms.push_back("keep_successful_jobs(dropped_not_completed=" + std::to_string(failed) +
                         ", dropped_no_request=" + std::to_string(unknown_request) +
                         ", dropped_overran=" + std::to_string(overran) + ")");
}

void drop_short_jobs(workload::Workload& w, double min_run_s) {
  if (min_run_s < 0) throw ConfigError("workload.min_run_s must be >= 0");
  const Time limit = from_seconds(min_run_s);
  const auto before = w.jobs.size();
  std::erase_if(w.jobs, [&](const workload::Job& j) { return j.run < limit; });
  w.transforms.push_back("drop_short_jobs(min_run_s=" + number(min_run_s) +
                         ", dropped=" + std::to_string(before - w.jobs.size()) + ")");
}

void take_window(workload::Workload& w, std::uint64_t start, std::uint64_t count) {
  if (start > w.jobs.size())
    throw ConfigError("workload.window_start " + std::to_string(start) + " is beyond the workload's " +
                      std::to_string(w.jobs.size()) + " jobs");
  const std::uint64_t end = count == 0 ? w.jobs.size() : std::min<std::uint64_t>(w.jobs.size(), start + count);
  w.jobs.erase(w.jobs.begin() + static_cast<std::ptrdiff_t>(end), w.jobs.end());
  w.jobs.erase(w.jobs.begin(), w.jobs.begin() + static_cast<std::ptrdiff_t>(start));
  // The window starts at time 0, as a trace of its own.
  const Time origin = w.jobs.empty() ? 0 : w.jobs.front().submit;
  for (workload::Job& j : w.jobs) j.submit -= origin;
  if (w.unix_start_time >= 0) w.unix_start_time += origin / kTicksPerSecond;  // whole seconds in SWF
  w.transforms.push_back("window(start=" + std::to_string(start) + ", count=" + std::to_string(end - start) +
                         ", shifted_by_s=" + number(to_seconds(origin)) + ")");
}

void set_request_accuracy(workload::Workload& w, double wra) {
  if (!(wra > 0 && wra <= 1)) throw ConfigError("workload.wra must lie in (0, 1], got " + number(wra));
  for (workload::Job& j : w.jobs) {
    j.requested = static_cast<Time>(std::ceil(static_cast<double>(j.run) / wra));
    j.requested_from_run = false;
  }
  w.transforms.push_back("request_accuracy(wra=" + number(wra) + ")");
}

void scale_interarrival(workload::Workload& w, double factor) {
  if (!(factor > 0)) throw ConfigError("workload.iat_scale must be > 0, got " + number(factor));
  Time previous_old = w.jobs.empty() ? 0 : w.jobs.front().submit;
  Time previous_new = previous_old;
  for (workload::Job& j : w.jobs) {
    const Time gap = j.submit - previous_old;
    previous_old = j.submit;
    j.submit = previous_new + static_cast<Time>(std::llround(static_cast<double>(gap) * factor));
    previous_new = j.submit;
  }
  w.transforms.push_back("interarrival_scale(factor=" + number(factor) + ")");
}

void scale_nodes(workload::Workload& w, std::uint32_t from_nodes, std::uint32_t to_nodes) {
  if (from_nodes == 0 || to_nodes == 0) throw ConfigError("node scaling needs both machine sizes (> 0)");
  for (workload::Job& j : w.jobs) j.nodes = workload::scaled_nodes(j.nodes, from_nodes, to_nodes);
  w.transforms.push_back("scale_nodes(from=" + std::to_string(from_nodes) + ", to=" + std::to_string(to_nodes) + ")");
  w.max_nodes = to_nodes;
}

void apply_transforms(workload::Workload& w, const WorkloadTransforms& t) {
  if (t.successful_only) keep_successful_jobs(w);
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

std::string data_directory() {
  const char* env = std::getenv("TRACEWARP_DATA");
  return env != nullptr && *env != '\0' ? env : "../shared/data";
}

std::string expand_data_path(const std::string& path) {
  static const std::string token = "${TRACEWARP_DATA}";
  std::string out = path;
  for (auto at = out.find(token); at != std::string::npos; at = out.find(token, at))
    out.replace(at, token.size(), data_directory());
  return out;
}

namespace {

std::string counts_text(const std::map<std::string, std::uint64_t>& by_reason) {
  std::string text;
  for (const auto& [reason, n] : by_reason) text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
  return text;
}

// The trace as read, before its transforms: the last one read stays for the next run that reads
// the same file with the same options (a sweep's runs, a run after its check). Its key holds the
// file's size and modification time, so a trace rewritten between runs is read again.
workload::Workload read_trace(const std::string& path, const TraceOptions& options) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const auto modified = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  const std::string key = path + "\n" + std::to_string(static_cast<int>(options.format)) + " " +
                          std::to_string(options.swf.cores_per_node) + " " +
                          std::to_string(static_cast<int>(options.swf.missing_requested)) + " " + std::to_string(size) +
                          " " + std::to_string(modified);
  static std::mutex mutex;
  static std::string kept_key;
  static workload::Workload kept;
  const std::lock_guard<std::mutex> lock(mutex);
  if (kept_key != key || ec) {
    kept_key.clear();
    kept = load_workload(path, options);
    if (kept.jobs.empty())
      throw InputError(path + ": no jobs to run: " + std::to_string(kept.tally.records) + " job record(s) read" +
                       (kept.tally.dropped.empty() ? "" : ", dropped: " + counts_text(kept.tally.dropped)));
    kept_key = key;
  }
  return kept;
}

}  // namespace

workload::Workload load_configured_workload(const Config& c) {
  const WorkloadSource source = workload_source_params().read(c);
  if (source.trace.empty()) throw ConfigError(workload_source_params().key_of(&WorkloadSource::trace) + " is not set");
  TraceOptions options;
  options.format = parse_trace_format(source.format);
  options.swf.cores_per_node = source.cores_per_node;
  options.swf.missing_requested = parse_missing_requested(source.missing_requested);
  workload::Workload w = read_trace(expand_data_path(source.trace), options);
  const std::size_t read = w.jobs.size();
  apply_transforms(w, workload_transform_params().read(c));
  if (w.jobs.empty()) {
    std::string transforms;
    for (const std::string& t : w.transforms) transforms += (transforms.empty() ? "" : ", ") + t;
    throw ConfigError(w.source + ": the workload.* transforms (" + transforms + ") left none of its " +
                      std::to_string(read) + " jobs");
  }
  return w;
}

}  // namespace tracewarp::io
