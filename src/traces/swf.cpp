#include "tracewarp/traces/swf.hpp"

#include <zlib.h>
#include <array>

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "tracewarp/core/error.hpp"
#include "tracewarp/traces/input_limits.hpp"

namespace tracewarp::traces {
namespace {

constexpr int kFields = 18;
constexpr std::array<const char*, kFields> kFieldNames = {"1 (job number)",
                                                          "2 (submit time)",
                                                          "3 (wait time)",
                                                          "4 (run time)",
                                                          "5 (allocated processors)",
                                                          "6 (average CPU time)",
                                                          "7 (used memory)",
                                                          "8 (requested processors)",
                                                          "9 (requested time)",
                                                          "10 (requested memory)",
                                                          "11 (status)",
                                                          "12 (user)",
                                                          "13 (group)",
                                                          "14 (executable)",
                                                          "15 (queue)",
                                                          "16 (partition)",
                                                          "17 (preceding job)",
                                                          "18 (think time)"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

}  // namespace

SwfMachine swf_machine(std::int64_t max_nodes, std::int64_t max_procs, std::uint32_t asked) {
  const bool nodes_known = max_nodes > 0, procs_known = max_procs > 0;
  if (asked > 0) return {asked, procs_known ? max_procs / asked : nodes_known ? max_nodes : -1, {}};
  if (nodes_known && procs_known && max_procs % max_nodes == 0)
    return {static_cast<std::uint32_t>(max_procs / max_nodes), max_nodes, {}};
  if (nodes_known && procs_known)
    return {1, max_procs,
            "MaxProcs " + std::to_string(max_procs) + " is not a whole number of cores per node over MaxNodes " +
                std::to_string(max_nodes) + ": jobs and machine are sized in processors (" + std::to_string(max_procs) +
                " one-processor nodes); set workload.cores_per_node (and batch.nodes) to choose otherwise"};
  return {1, procs_known ? max_procs : nodes_known ? max_nodes : -1, {}};
}

SwfReader::SwfReader(const std::string& path, SwfOptions options) : lines_(path), options_(options) {
  read_header();
  max_procs_ = header_int("MaxProcs");
  machine_ = swf_machine(header_int("MaxNodes"), max_procs_, options_.cores_per_node);
}

void SwfReader::read_header() {
  std::string_view line;
  while (lines_.next(line)) {
    std::size_t i = 0;
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) continue;
    if (line[i] != ';') {
      pending_ = line;  // valid until the next read: consumed by the first next()
      has_pending_ = true;
      return;
    }
    parse_header_line(line.substr(i + 1));
  }
}

void SwfReader::parse_header_line(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;  // free text
  auto trim = [](std::string_view s) {
    while (!s.empty() && (is_space(s.front()) || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (is_space(s.back()) || s.back() == '\r')) s.remove_suffix(1);
    return s;
  };
  const std::string key(trim(line.substr(0, colon)));
  if (key.empty() || key.find(' ') != std::string::npos) return;  // continuation text, not "Key:"
  std::string value(trim(line.substr(colon + 1)));
  auto [it, inserted] = header_.emplace(key, value);
  if (!inserted) it->second += "; " + value;  // repeated keys (Queue:, Note:) accumulate
}

std::int64_t SwfReader::header_int(const std::string& key) const { return workload::header_int(header_, key); }

MissingRequested parse_missing_requested(const std::string& text) {
  if (text == "run-time") return MissingRequested::use_run_time;
  if (text == "drop") return MissingRequested::drop;
  throw ConfigError("jobs without requested time: expected run-time or drop, not '" + text + "'");
}

bool SwfReader::next(workload::Job& job) {
  std::string_view line;
  for (;;) {
    if (has_pending_) {
      line = pending_;
      has_pending_ = false;
    } else if (!lines_.next(line)) {
      return false;
    }
    std::size_t i = 0;
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size() || line[i] == ';') continue;  // blank, or a comment after the header
    if (convert(line.substr(i), job)) return true;
  }
}

bool SwfReader::convert(std::string_view line, workload::Job& job) {
  const long at = lines_.line_number();
  const std::string& file = lines_.path();
  std::array<double, kFields> f{};
  int n = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    if (n == kFields) {
      int count = n;
      for (std::size_t k = i; k < line.size();) {  // count the rest for the message
        while (k < line.size() && is_space(line[k])) ++k;
        if (k == line.size()) break;
        ++count;
        while (k < line.size() && !is_space(line[k])) ++k;
      }
      throw InputError(file, at, "field count", "expected 18 fields, found " + std::to_string(count));
    }
    const char* first = line.data() + i;
    const char* last = line.data() + j;
    double value = 0;
    std::int64_t integer = 0;
    const auto r = std::from_chars(first, last, integer);
    if (r.ec == std::errc() && r.ptr == last) {
      value = static_cast<double>(integer);
    } else {
      const auto d = std::from_chars(first, last, value);
      if (d.ec != std::errc() || d.ptr != last || !std::isfinite(value))
        throw InputError(
            file, at, kFieldNames[static_cast<std::size_t>(n)],
            quoted_input(std::string_view(first, static_cast<std::size_t>(last - first))) + " is not a number");
    }
    f[static_cast<std::size_t>(n++)] = value;
    i = j;
  }
  if (n != kFields) throw InputError(file, at, "field count", "expected 18 fields, found " + std::to_string(n));
  ++tally_.records;

  // Unknown is -1 everywhere; any other negative time is corrupt.
  for (const int k : {1, 2, 3, 8}) {
    const double v = f[static_cast<std::size_t>(k)];
    if (v < 0 && v != -1)
      throw InputError(file, at, kFieldNames[static_cast<std::size_t>(k)], "negative time " + std::to_string(v));
    if (v > kMaxSeconds)
      throw InputError(file, at, kFieldNames[static_cast<std::size_t>(k)],
                       "absurd time " + std::to_string(v) + " s (more than a century)");
  }
  for (const int k : {0, 4, 7, 10, 11, 12, 14, 15}) {  // counts and ids (stored as 32-bit integers)
    const double v = f[static_cast<std::size_t>(k)];
    if (std::abs(v) > kMaxCount)
      throw InputError(file, at, kFieldNames[static_cast<std::size_t>(k)], "absurd value " + std::to_string(v));
    if (v != std::floor(v))  // (fuzz finding: 0.1 processors became a job of 0 nodes)
      throw InputError(file, at, kFieldNames[static_cast<std::size_t>(k)], "not a whole number: " + std::to_string(v));
  }

  const double submit = f[1], wait = f[2], run = f[3], allocated = f[4], req_procs = f[7], req_time = f[8];
  if (submit < 0) {
    tally_.drop("submit time unknown");
    return false;
  }
  if (from_seconds(run) <= 0) {  // (a positive run shorter than a nanosecond rounds to 0)
    tally_.drop("run time <= 0 or unknown");
    return false;
  }
  const double procs = req_procs > 0 ? req_procs : allocated;
  if (procs <= 0) {
    tally_.drop("processor count unknown");
    return false;
  }
  if (req_procs <= 0) tally_.repair("requested processors unknown: allocated used");
  if (max_procs_ > 0 && procs > static_cast<double>(max_procs_)) {
    tally_.drop("more processors than MaxProcs");
    return false;
  }
  Time requested = -1;
  bool requested_from_run = false;
  if (req_time > 0) {
    requested = from_seconds(req_time);
  } else if (options_.missing_requested == MissingRequested::drop) {
    tally_.drop("requested time unknown");
    return false;
  } else {
    tally_.repair(workload::kRequestedFromRunTime);
    requested = from_seconds(run);
    requested_from_run = true;
  }

  job = workload::Job{};
  job.id = static_cast<std::uint64_t>(f[0] < 0 ? 0 : f[0]);
  job.submit = from_seconds(submit);
  job.run = from_seconds(run);
  job.requested = requested;
  job.requested_from_run = requested_from_run;
  job.trace_wait = wait >= 0 ? from_seconds(wait) : -1;
  job.procs = static_cast<std::uint32_t>(procs);
  job.nodes = static_cast<std::uint32_t>((job.procs + machine_.cores_per_node - 1) / machine_.cores_per_node);
  job.status = static_cast<std::int32_t>(f[10]);
  job.user = static_cast<std::int32_t>(f[11]);
  job.group = static_cast<std::int32_t>(f[12]);
  job.queue = static_cast<std::int32_t>(f[14]);
  job.partition = static_cast<std::int32_t>(f[15]);
  return true;
}

void write_swf(const workload::Workload& w, const std::string& path, std::uint32_t cores_per_node) {
  const bool gzip = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  gzFile f = gzopen(path.c_str(), gzip ? "wb6" : "wbT");  // T: plain, uncompressed output
  if (f == nullptr) throw UsageError("cannot create '" + path + "': " + std::strerror(errno));
  const std::uint32_t cpn = std::max<std::uint32_t>(1, cores_per_node);
  std::uint64_t max_procs = 0;
  for (const workload::Job& j : w.jobs) max_procs = std::max<std::uint64_t>(max_procs, std::uint64_t{j.nodes} * cpn);
  const auto computer = w.header.find("Computer");
  std::string header = "; Version: 2.2\n; Computer: " +
                       (computer == w.header.end() ? std::string("tracewarp generate") : computer->second) +
                       "\n; Conversion: tracewarp from " + w.source + "\n";
  header += "; MaxJobs: " + std::to_string(w.jobs.size()) + "\n; MaxRecords: " + std::to_string(w.jobs.size()) + "\n";
  if (w.unix_start_time >= 0) header += "; UnixStartTime: " + std::to_string(w.unix_start_time) + "\n";
  if (w.max_nodes > 0) {
    header += "; MaxNodes: " + std::to_string(w.max_nodes) + "\n";
    header += "; MaxProcs: " + std::to_string(static_cast<std::uint64_t>(w.max_nodes) * cpn) + "\n";
  }
  for (const std::string& t : w.transforms) header += "; Note: transform " + t + "\n";
  header += ";\n";
  gzputs(f, header.c_str());
  char line[512];
  for (const workload::Job& j : w.jobs) {
    const std::uint64_t as_nodes = (std::uint64_t{j.procs} + cpn - 1) / cpn;
    const std::uint64_t procs = as_nodes == j.nodes ? j.procs : std::uint64_t{j.nodes} * cpn;
    const auto secs = [](Time t) {
      return t < 0 ? std::int64_t{-1} : static_cast<std::int64_t>(std::llround(to_seconds(t)));
    };
    const std::int64_t requested = j.requested_from_run ? -1 : secs(j.requested);
    const int n = std::snprintf(line, sizeof line,
                                "%" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu64 " -1 -1 %" PRIu64 " %" PRId64
                                " -1 %d %d %d -1 %d %d -1 -1\n",
                                j.id, secs(j.submit), secs(j.trace_wait), secs(j.run), procs, procs, requested,
                                j.status, j.user, j.group, j.queue, j.partition);
    if (gzwrite(f, line, static_cast<unsigned>(n)) != n) {
      gzclose(f);
      throw IoError("cannot write '" + path + "'");
    }
  }
  if (gzclose(f) != Z_OK) throw IoError("cannot write '" + path + "'");
}

}  // namespace tracewarp::traces
