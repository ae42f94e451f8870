#include "tracewarp/traces/sacct.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <vector>

#include "cores_per_node.hpp"
#include "name_table.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/traces/line_reader.hpp"
#include "tracewarp/traces/trace.hpp"

namespace tracewarp::traces {
namespace {

std::vector<std::string_view> split_bars(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t bar = line.find('|', start);
    out.push_back(line.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    if (bar == std::string_view::npos) return out;
    start = bar + 1;
  }
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool parse_uint(std::string_view s, unsigned& v) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// "2026-11-28T16:27:13" as seconds since 1970 (no time zone); nullopt for Unknown, None, "".
std::optional<std::int64_t> timestamp(std::string_view s, bool& malformed) {
  malformed = false;
  if (s.empty() || s == "Unknown" || s == "None") return std::nullopt;
  unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (s.size() != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
      !parse_uint(s.substr(0, 4), y) || !parse_uint(s.substr(5, 2), mo) || !parse_uint(s.substr(8, 2), d) ||
      !parse_uint(s.substr(11, 2), h) || !parse_uint(s.substr(14, 2), mi) || !parse_uint(s.substr(17, 2), se) ||
      mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) {
    malformed = true;
    return std::nullopt;
  }
  return days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
}

// "[days-]hours:minutes:seconds", "minutes:seconds" or "minutes" as seconds; nullopt for
// UNLIMITED, Partition_Limit, "" (unknown); malformed for anything else.
std::optional<std::int64_t> time_limit(std::string_view s, bool& malformed) {
  malformed = false;
  if (s.empty() || s == "UNLIMITED" || s == "Partition_Limit" || s == "INVALID") return std::nullopt;
  std::int64_t days = 0;
  if (const std::size_t dash = s.find('-'); dash != std::string_view::npos) {
    unsigned d = 0;
    if (!parse_uint(s.substr(0, dash), d)) return malformed = true, std::nullopt;
    days = d;
    s.remove_prefix(dash + 1);
  }
  std::vector<unsigned> parts;
  for (std::size_t start = 0;;) {
    const std::size_t colon = s.find(':', start);
    unsigned v = 0;
    if (!parse_uint(s.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start), v))
      return malformed = true, std::nullopt;
    parts.push_back(v);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  std::int64_t seconds = 0;
  if (parts.size() == 3)
    seconds = parts[0] * 3600LL + parts[1] * 60LL + parts[2];
  else if (parts.size() == 2)
    seconds = days > 0 ? parts[0] * 3600LL + parts[1] * 60LL : parts[0] * 60LL + parts[1];  // D-HH:MM or MM:SS
  else if (parts.size() == 1)
    seconds = days > 0 ? parts[0] * 3600LL : parts[0] * 60LL;  // D-HH or minutes
  else
    return malformed = true, std::nullopt;
  return days * 86400 + seconds;
}

// SWF status of a finished job's State (its first word); nullopt: not finished.
std::optional<std::int32_t> swf_status(std::string_view state) {
  state = state.substr(0, state.find(' '));
  if (state == "COMPLETED") return 1;
  if (state == "CANCELLED") return 5;
  for (const char* failed : {"FAILED", "TIMEOUT", "NODE_FAIL", "BOOT_FAIL", "OUT_OF_MEMORY", "DEADLINE", "PREEMPTED"})
    if (state == failed) return 0;
  return std::nullopt;
}

// The reason counted for a job that has not ended: its state's first word.
std::string unfinished(std::string_view state) {
  std::string reason = "not finished (State ";
  reason.append(state.substr(0, state.find(' ')));
  reason.push_back(')');
  return reason;
}

// A name's number, or -1 for an empty field (sacct leaves steps' and some jobs' names empty).
std::int32_t id_of(detail::NameTable& names, std::string_view name) { return name.empty() ? -1 : names.id(name); }

class SacctReader final : public TraceReader {
 public:
  explicit SacctReader(const std::string& path) : lines_(path) {
    std::string_view first;
    if (!lines_.next(first) || !is_sacct_header(first))
      throw InputError(path, 1, "header", "not a sacct --parsable2 header (JobID|...)");
    const std::vector<std::string_view> names = split_bars(first);
    for (std::size_t i = 0; i < names.size(); ++i) columns_.emplace_back(names[i]);
    id_ = column("JobIDRaw");
    job_id_ = column("JobID");
    if (!id_ && !job_id_) throw InputError(path, 1, "JobID", "column missing from the header");
    submit_ = required("Submit");
    start_ = required("Start");
    end_ = required("End");
    state_ = required("State");
    nodes_ = column("NNodes");
    cpus_ = column("NCPUS");
    if (!cpus_) cpus_ = column("AllocCPUS");
    if (!nodes_ && !cpus_) throw InputError(path, 1, "NNodes", "column missing from the header (NNodes or NCPUS)");
    user_ = column("User");
    group_ = column("Group");
    partition_ = column("Partition");
    qos_ = column("QOS");
    limit_ = column("Timelimit");
  }

  bool next(workload::Job& job) override {
    std::string_view text;
    while (lines_.next(text)) {
      if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      const std::vector<std::string_view> f = split_bars(text);
      if (f.size() != columns_.size())
        throw InputError(
            lines_.path(), lines_.line_number(), "field count",
            "expected " + std::to_string(columns_.size()) + " '|'-separated fields, found " + std::to_string(f.size()));
      ++tally_.records;
      job = workload::Job{};
      if (convert(f, job)) return true;
    }
    return false;
  }
  const workload::ReadTally& tally() const override { return tally_; }
  std::map<std::string, std::string> header() const override {
    return {{"Users", users_.listed()},
            {"Groups", groups_.listed()},
            {"Partitions", partitions_.listed()},
            {"Queues", queues_.listed()},
            {"Note", "sacct: Slurm accounting records; QOS read as the queue"}};
  }
  std::uint32_t cores_per_node() const override { return cores_per_node_.value(); }
  std::uint64_t bytes_read() const override { return lines_.bytes_read(); }

 private:
  std::optional<std::size_t> column(const char* name) const {
    const auto it = std::find(columns_.begin(), columns_.end(), name);
    return it == columns_.end() ? std::nullopt : std::optional<std::size_t>(it - columns_.begin());
  }
  std::size_t required(const char* name) const {
    const auto at = column(name);
    if (!at) throw InputError(lines_.path(), 1, name, "column missing from the header");
    return *at;
  }
  [[noreturn]] void bad(const std::size_t at, std::string_view value, const std::string& problem) const {
    throw InputError(lines_.path(), lines_.line_number(), columns_[at], quoted_input(value) + ": " + problem);
  }
  std::int64_t number(std::size_t at, std::string_view s) const {
    std::int64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 0 || v > 100'000'000)
      bad(at, s, "not a count");
    return v;
  }
  std::optional<std::int64_t> time_at(const std::vector<std::string_view>& f, std::size_t at) const {
    bool malformed = false;
    const auto t = timestamp(f[at], malformed);
    if (malformed) bad(at, f[at], "not a time (YYYY-MM-DDTHH:MM:SS)");
    return t;
  }

  bool convert(const std::vector<std::string_view>& f, workload::Job& job) {
    const std::string_view shown = job_id_ ? f[*job_id_] : f[*id_];
    if (shown.find('.') != std::string_view::npos) return tally_.drop("job step (JobID with '.')"), false;
    const std::optional<std::int32_t> status = swf_status(f[state_]);
    const auto submit = time_at(f, submit_), start = time_at(f, start_), end = time_at(f, end_);
    if (!submit) bad(submit_, f[submit_], "no submit time");
    if (!start) return tally_.drop("never started"), false;
    if (!status || !end) return tally_.drop(unfinished(f[state_])), false;
    if (*start < *submit) return tally_.drop("start before submit"), false;
    if (*end <= *start) return tally_.drop("run time <= 0"), false;

    const std::string_view raw = id_ ? f[*id_] : shown.substr(0, shown.find_first_of("_+"));
    job.id = static_cast<std::uint64_t>(number(id_ ? *id_ : *job_id_, raw));
    job.submit = *submit * kTicksPerSecond;
    job.trace_wait = (*start - *submit) * kTicksPerSecond;
    job.run = (*end - *start) * kTicksPerSecond;
    job.status = *status;
    bool malformed = false;
    const auto limit = limit_ ? time_limit(f[*limit_], malformed) : std::nullopt;
    if (malformed) bad(*limit_, f[*limit_], "not a time limit ([days-]hours:minutes:seconds)");
    if (limit && *limit > 0) {
      job.requested = *limit * kTicksPerSecond;
    } else {
      tally_.repair(workload::kRequestedFromRunTime);
      job.requested = job.run;
      job.requested_from_run = true;
    }
    const std::int64_t nodes = nodes_ ? number(*nodes_, f[*nodes_]) : 0;
    const std::int64_t cpus = cpus_ ? number(*cpus_, f[*cpus_]) : 0;
    if (nodes <= 0 && cpus <= 0) return tally_.drop("no nodes or CPUs"), false;
    job.nodes = static_cast<std::uint32_t>(nodes > 0 ? nodes : cpus);
    job.procs = static_cast<std::uint32_t>(cpus > 0 ? cpus : nodes);
    if (nodes > 0 && cpus > 0) cores_per_node_.note(static_cast<double>(cpus), static_cast<double>(nodes));
    if (user_) job.user = id_of(users_, f[*user_]);
    if (group_) job.group = id_of(groups_, f[*group_]);
    if (partition_) job.partition = id_of(partitions_, f[*partition_]);
    if (qos_) job.queue = id_of(queues_, f[*qos_]);
    return true;
  }

  LineReader lines_;
  std::vector<std::string> columns_;
  std::optional<std::size_t> id_, job_id_, nodes_, cpus_, user_, group_, partition_, qos_, limit_;
  std::size_t submit_ = 0, start_ = 0, end_ = 0, state_ = 0;
  workload::ReadTally tally_;
  detail::NameTable users_, groups_, partitions_, queues_;
  detail::CoresPerNode cores_per_node_;
};

}  // namespace

bool is_sacct_header(std::string_view first) {
  const std::vector<std::string_view> names = split_bars(first);
  const auto has = [&](std::string_view n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  return names.size() > 1 && (has("JobID") || has("JobIDRaw")) && has("State");
}

std::unique_ptr<TraceReader> open_sacct(const std::string& path) { return std::make_unique<SacctReader>(path); }

}  // namespace tracewarp::traces
