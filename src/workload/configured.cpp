#include "tracewarp/workload/configured.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "tracewarp/core/error.hpp"
#include "tracewarp/traces/trace.hpp"
#include "tracewarp/workload/transforms.hpp"

namespace tracewarp::workload {

const ParamTable<Source>& source_params() {
  using P = Source;
  static const ParamTable<P> table =
      ParamTable<P>("workload")
          .text("trace", &P::trace, "trace file; ${TRACEWARP_DATA} expands to the data folder (default ../shared/data)")
          .naming_input_file()
          .choice("format", &P::format, traces::trace_format_names(), "trace format (see tracewarp inspect --help)")
          .integer("cores_per_node", &P::cores_per_node,
                   "SWF processors per node (0 = from the header: MaxProcs/MaxNodes when whole, else 1 with the "
                   "machine in processors; traces/swf.hpp)")
          .choice("missing_requested", &P::missing_requested, {"run-time", "drop"},
                  "SWF jobs without requested time: use their run time, or drop them");
  return table;
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
Workload read_trace(const std::string& path, const traces::TraceOptions& options) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const auto modified = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  const std::string key = path + "\n" + std::to_string(static_cast<int>(options.format)) + " " +
                          std::to_string(options.swf.cores_per_node) + " " +
                          std::to_string(static_cast<int>(options.swf.missing_requested)) + " " + std::to_string(size) +
                          " " + std::to_string(modified);
  static std::mutex mutex;
  static std::string kept_key;
  static Workload kept;
  const std::lock_guard<std::mutex> lock(mutex);
  if (kept_key != key || ec) {
    kept_key.clear();
    kept = traces::load_workload(path, options);
    if (kept.jobs.empty())
      throw InputError(path + ": no jobs to run: " + std::to_string(kept.tally.records) + " job record(s) read" +
                       (kept.tally.dropped.empty() ? "" : ", dropped: " + counts_text(kept.tally.dropped)));
    kept_key = key;
  }
  return kept;
}

}  // namespace

namespace {

// A trace that is not there: said with where the name pointed, so that a data folder set wrong
// (or not set, from another working directory) is seen at once.
void require_trace_file(const std::string& given, const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::is_regular_file(status)) return;
  // A trace is read more than once (checked, then run; a sweep's runs), so it must be a file: a
  // FIFO or a device would be read once and then wait forever.
  if (std::filesystem::exists(status))
    throw InputError("cannot read '" + path + "' as a trace: it is " +
                     (std::filesystem::is_directory(status) ? "a folder" : "not a regular file (a FIFO or a device)") +
                     "; give a trace file");
  if (ec && ec != std::errc::no_such_file_or_directory)  // a loop of symbolic links, a folder we may not enter
    throw InputError("cannot open '" + path + "': " + ec.message());
  const char* env = std::getenv("TRACEWARP_DATA");
  const std::string folder = std::filesystem::absolute(data_directory(), ec).lexically_normal().string();
  const std::string why =
      given.find("${TRACEWARP_DATA}") == std::string::npos
          ? "(relative names are read from the working directory, " + std::filesystem::current_path(ec).string() + ")"
          : "(${TRACEWARP_DATA} is " +
                (env != nullptr && *env != '\0' ? "TRACEWARP_DATA=" + std::string(env)
                                                : std::string("not set: the default ../shared/data")) +
                ", the folder " + folder + "; set TRACEWARP_DATA to the folder that holds traces/)";
  throw InputError("cannot open '" + path + "': no such file " + why);
}

}  // namespace

Workload load_configured(const Config& c) {
  const Source source = source_params().read(c);
  if (source.trace.empty()) throw ConfigError(source_params().key_of(&Source::trace) + " is not set");
  require_trace_file(source.trace, expand_data_path(source.trace));
  traces::TraceOptions options;
  options.format = traces::parse_trace_format(source.format);
  options.swf.cores_per_node = source.cores_per_node;
  options.swf.missing_requested = traces::parse_missing_requested(source.missing_requested);
  Workload w = read_trace(expand_data_path(source.trace), options);
  const std::size_t read = w.jobs.size();
  apply_transforms(w, transform_params().read(c));
  if (w.jobs.empty()) {
    std::string transforms;
    for (const std::string& t : w.transforms) transforms += (transforms.empty() ? "" : ", ") + t;
    throw ConfigError(w.source + ": the workload.* transforms (" + transforms + ") left none of its " +
                      std::to_string(read) + " jobs");
  }
  return w;
}

}  // namespace tracewarp::workload
