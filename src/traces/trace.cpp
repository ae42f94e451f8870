#include "tracewarp/traces/trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <vector>

#include "cores_per_node.hpp"
#include "name_table.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/traces/input_limits.hpp"
#include "tracewarp/traces/sacct.hpp"

namespace tracewarp::traces {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// One CSV row split on commas (these traces quote nothing), with typed, located access.
class CsvRow {
 public:
  CsvRow(const std::string& file, long line, std::string_view text, const std::vector<std::string>& names)
      : file_(file), line_(line), names_(names) {
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = text.find(',', start);
      fields_.push_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (fields_.size() != names_.size())
      throw InputError(file_, line_, "field count",
                       "expected " + std::to_string(names_.size()) + " comma-separated fields, found " +
                           std::to_string(fields_.size()));
  }
  std::string_view text(std::size_t i) const { return fields_[i]; }
  bool empty(std::size_t i) const { return trimmed(i).empty(); }
  double number(std::size_t i) const {
    const std::string_view s = trimmed(i);
    double v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v))
      throw InputError(file_, line_, names_[i], quoted_input(s) + " is not a number");
    return v;
  }
  // A time or duration in seconds (negative allowed: readers give negative times their meaning).
  double seconds(std::size_t i) const { return bounded(i, -kMaxSeconds, kMaxSeconds, "time beyond a century"); }
  // A resource demand (cores, memory).
  double demand(std::size_t i) const { return bounded(i, 0, kMaxDemand, "demand negative or absurd"); }
  // An identifier or a count (ids, instances, nodes, processors).
  double count(std::size_t i) const { return bounded(i, -1, kMaxCount, "count or id out of range"); }

 private:
  double bounded(std::size_t i, double low, double high, const char* problem) const {
    const double v = number(i);
    if (v < low || v > high) throw InputError(file_, line_, names_[i], quoted_input(trimmed(i)) + ": " + problem);
    return v;
  }
  std::string_view trimmed(std::size_t i) const {
    std::string_view s = fields_[i];
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  }
  const std::string& file_;
  long line_;
  const std::vector<std::string>& names_;
  std::vector<std::string_view> fields_;
};

using detail::NameTable;

Time seconds_to_time(double s) { return static_cast<Time>(std::llround(s * kTicksPerSecond)); }

class SwfTraceReader final : public TraceReader {
 public:
  SwfTraceReader(const std::string& path, const SwfOptions& options) : reader_(path, options) {}
  bool next(workload::Job& job) override { return reader_.next(job); }
  const workload::ReadTally& tally() const override { return reader_.tally(); }
  std::map<std::string, std::string> header() const override { return reader_.header(); }
  std::uint32_t cores_per_node() const override { return reader_.cores_per_node(); }
  std::int64_t machine_nodes() const override { return reader_.machine().nodes; }
  std::string machine_note() const override { return reader_.machine().note; }
  std::uint64_t bytes_read() const override { return reader_.bytes_read(); }

 private:
  SwfReader reader_;
};

// Shared machinery of the CSV readers: lines, column names, the tally. Subclasses convert rows.
class CsvTraceReader : public TraceReader {
 public:
  CsvTraceReader(const std::string& path, std::vector<std::string> columns, bool has_header_line)
      : lines_(path), columns_(std::move(columns)) {
    if (has_header_line) {
      std::string_view first;
      if (!lines_.next(first)) throw InputError(path + ": empty file");
    }
  }
  bool next(workload::Job& job) override {
    std::string_view text;
    while (lines_.next(text)) {
      if (text.find_first_not_of(" \t") == std::string_view::npos) continue;
      const CsvRow row(lines_.path(), lines_.line_number(), text, columns_);
      ++tally_.records;
      job = workload::Job{};
      if (!convert(row, job)) continue;
      // A positive run shorter than the clock's nanosecond rounds to 0 (libFuzzer finding).
      if (job.run <= 0) {
        tally_.drop("run time <= 0");
        continue;
      }
      return true;
    }
    return finish(job);
  }
  const workload::ReadTally& tally() const override { return tally_; }
  std::uint64_t bytes_read() const override { return lines_.bytes_read(); }

 protected:
  virtual bool convert(const CsvRow& row, workload::Job& job) = 0;
  virtual bool finish(workload::Job&) { return false; }  // jobs held back until the end of the file

  LineReader lines_;
  std::vector<std::string> columns_;
  workload::ReadTally tally_;
  NameTable names_;
};

// cluster-trace-v2017 batch_task: create and end time (s), job and task id, instances, status,
// CPUs per instance (1/100 core), normalised memory per instance.
class Alibaba2017Reader final : public CsvTraceReader {
 public:
  explicit Alibaba2017Reader(const std::string& path)
      : CsvTraceReader(path,
                       {"task_create_time", "task_end_time", "job_id", "task_id", "number_of_instances", "status",
                        "number_of_cpus_requested_per_instance_in_the_task",
                        "normalized_memory_requested_per_instance_in_the_task"},
                       true) {}

 private:
  bool convert(const CsvRow& r, workload::Job& job) override {
    if (r.text(5) != "Terminated") return tally_.drop("status not Terminated"), false;
    if (r.empty(6) || r.empty(7)) return tally_.drop("resource demand missing"), false;
    const double create = r.seconds(0), end = r.seconds(1);
    // Times count from the start of the trace window; tasks created earlier have negative times.
    if (create < 0) return tally_.drop("created before the trace window (negative time)"), false;
    if (end <= create) return tally_.drop("run time <= 0"), false;
    job.id = static_cast<std::uint64_t>(std::max(0.0, r.count(3)));
    job.group = static_cast<std::int32_t>(r.count(2));
    job.submit = seconds_to_time(create);
    job.run = seconds_to_time(end - create);
    job.procs = static_cast<std::uint32_t>(std::max(1.0, r.count(4)));
    job.nodes = job.procs;
    job.cpus = static_cast<float>(r.demand(6) / 100.0);
    job.memory = static_cast<float>(r.demand(7));
    return true;
  }
};

// cluster-trace-v2018 batch_task and batch_instance share a layout: name, ..., job name, type,
// status, start and end time (s); they differ in where the demand comes from. batch_task: the
// plan (CPU in 1/100 core, memory 0-100) and an instance count; batch_instance: one instance,
// demand = its maximum usage.
struct Alibaba2018Layout {
  std::vector<std::string> columns;
  std::size_t cpu, memory;
  std::optional<std::size_t> instances;
  const char* missing_demand;
};
const Alibaba2018Layout kAlibaba2018Task{
    {"task_name", "instance_num", "job_name", "task_type", "status", "start_time", "end_time", "plan_cpu", "plan_mem"},
    7,
    8,
    1,
    "resource demand missing"};
const Alibaba2018Layout kAlibaba2018Instance{
    {"instance_name", "task_name", "job_name", "task_type", "status", "start_time", "end_time", "machine_id", "seq_no",
     "total_seq_no", "cpu_avg", "cpu_max", "mem_avg", "mem_max"},
    11,
    13,
    std::nullopt,
    "resource usage missing"};

class Alibaba2018Reader final : public CsvTraceReader {
 public:
  Alibaba2018Reader(const std::string& path, const Alibaba2018Layout& layout)
      : CsvTraceReader(path, layout.columns, false), layout_(layout) {}

 private:
  bool convert(const CsvRow& r, workload::Job& job) override {
    if (r.text(4) != "Terminated") return tally_.drop("status not Terminated"), false;
    if (r.empty(layout_.cpu) || r.empty(layout_.memory)) return tally_.drop(layout_.missing_demand), false;
    const double start = r.seconds(5), end = r.seconds(6);
    if (start < 0) throw InputError(lines_.path(), lines_.line_number(), columns_[5], "negative time");
    if (end <= start) return tally_.drop("run time <= 0"), false;
    job.id = ++count_;
    job.group = names_.id(r.text(2));
    job.submit = seconds_to_time(start);
    job.run = seconds_to_time(end - start);
    job.procs = layout_.instances ? static_cast<std::uint32_t>(std::max(1.0, r.count(*layout_.instances))) : 1;
    job.nodes = job.procs;
    job.cpus = static_cast<float>(r.demand(layout_.cpu) / 100.0);
    job.memory = static_cast<float>(r.demand(layout_.memory) / 100.0);
    return true;
  }
  const Alibaba2018Layout& layout_;
  std::uint64_t count_ = 0;
};

// Google 2011 task_events: time (µs), missing info, job id, task index, machine, event type,
// user, scheduling class, priority, CPU, memory and disk request, different-machine flag.
// A task becomes one record when it finishes: submit = its first SUBMIT, run = FINISH − last
// SCHEDULE. Tasks killed, lost or unfinished at the end of the trace are dropped (counted).
class Google2011Reader final : public CsvTraceReader {
 public:
  explicit Google2011Reader(const std::string& path)
      : CsvTraceReader(path,
                       {"timestamp", "missing_info", "job_id", "task_index", "machine_id", "event_type", "user",
                        "scheduling_class", "priority", "cpu_request", "memory_request", "disk_request",
                        "different_machine_restriction"},
                       false) {}

 private:
  enum EventType { kSubmit = 0, kSchedule = 1, kEvict = 2, kFail = 3, kFinish = 4, kKill = 5, kLost = 6 };
  struct Open {
    double submit_us = -1, start_us = -1;
    float cpu = 0, mem = 0;
    std::int32_t user = -1;
    bool resubmitted = false;
  };
  static constexpr double kAfterTraceEnd = 9.0e18;  // the trace writes 2^63-1 for "after the window"

  bool convert(const CsvRow& r, workload::Job& job) override {
    const double t = r.number(0);
    if (t < 0) throw InputError(lines_.path(), lines_.line_number(), columns_[0], "negative time");
    if (t > kMaxSeconds * 1e6 && t < kAfterTraceEnd)
      throw InputError(lines_.path(), lines_.line_number(), columns_[0], "time beyond a century");
    const double event = r.number(5);
    if (event < 0 || event > 8 || event != std::floor(event))
      throw InputError(lines_.path(), lines_.line_number(), columns_[5], "unknown event type");
    const auto job_id = static_cast<std::uint64_t>(std::max(0.0, r.count(2)));
    const std::uint64_t id = (job_id << 20) ^ static_cast<std::uint64_t>(std::max(0.0, r.count(3)));
    // The trace writes 2^63-1 for "after the window": only a finish may carry it (it is then
    // dropped below); a submit or schedule there would put 9e18 us on the nanosecond clock.
    if (t >= kAfterTraceEnd && static_cast<int>(event) != kFinish)
      return tally_.drop("event after the trace window"), false;
    Open& task = open_[id];
    switch (static_cast<int>(event)) {
      case kSubmit:
        if (task.submit_us < 0) {
          task.submit_us = t;
          if (!r.empty(9)) task.cpu = static_cast<float>(r.demand(9));
          if (!r.empty(10)) task.mem = static_cast<float>(r.demand(10));
          task.user = names_.id(r.text(6));
        } else if (!task.resubmitted) {
          task.resubmitted = true;
          tally_.repair("resubmitted after evict or fail: first submit kept");
        }
        return false;
      case kSchedule:
        task.start_us = t;
        return false;
      case kEvict:
      case kFail:
        task.start_us = -1;
        return false;
      case kFinish: {
        const Open done = task;
        open_.erase(id);
        if (done.submit_us < 0) return tally_.drop("finished without a submit in the trace"), false;
        if (done.start_us < 0 || t >= kAfterTraceEnd) return tally_.drop("finish without schedule"), false;
        if (t <= done.start_us) return tally_.drop("run time <= 0"), false;
        job.id = id;
        job.group = static_cast<std::int32_t>(job_id);
        job.user = done.user;
        job.submit = static_cast<Time>(std::llround(done.submit_us * 1000.0));
        job.run = static_cast<Time>(std::llround((t - done.start_us) * 1000.0));
        job.procs = 1;
        job.nodes = 1;
        job.cpus = done.cpu;
        job.memory = done.mem;
        return true;
      }
      case kKill:
      case kLost:
        open_.erase(id);
        tally_.drop(static_cast<int>(event) == kKill ? "killed" : "lost");
        return false;
      default:  // updates
        return false;
    }
  }
  bool finish(workload::Job&) override {
    if (!open_.empty()) {
      tally_.dropped["not finished within the trace"] += open_.size();
      open_.clear();
    }
    return false;
  }
  std::unordered_map<std::uint64_t, Open> open_;
};

// ALCF job-analysis CSV: columns located by the header's names.
class AlcfReader final : public CsvTraceReader {
 public:
  explicit AlcfReader(const std::string& path) : CsvTraceReader(path, read_columns(path), true) {
    for (const char* name : {"job", "user", "cpu_num", "node_num", "submit_time", "wait_time", "run_time", "wall_time"})
      index_[name] = find(name);
  }
  std::uint32_t cores_per_node() const override { return cores_per_node_.value(); }

 private:
  static std::vector<std::string> read_columns(const std::string& path) {
    LineReader lines(path);
    std::string_view first;
    if (!lines.next(first)) throw InputError(path + ": empty file");
    std::vector<std::string> names;
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = first.find(',', start);
      names.emplace_back(first.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return names;
  }
  std::size_t find(const std::string& name) const {
    const auto it = std::find(columns_.begin(), columns_.end(), name);
    if (it == columns_.end()) throw InputError(lines_.path(), 1, name, "column missing from the header");
    return static_cast<std::size_t>(it - columns_.begin());
  }
  bool convert(const CsvRow& r, workload::Job& job) override {
    const double submit = r.seconds(index_["submit_time"]), run = r.seconds(index_["run_time"]);
    if (submit < 0) throw InputError(lines_.path(), lines_.line_number(), "submit_time", "negative time");
    if (run <= 0) return tally_.drop("run time <= 0"), false;
    const double nodes = r.count(index_["node_num"]);
    if (nodes <= 0) return tally_.drop("node count unknown"), false;
    job.id = static_cast<std::uint64_t>(std::max(0.0, r.count(index_["job"])));
    job.user = names_.id(r.text(index_["user"]));
    job.submit = seconds_to_time(submit);
    job.run = seconds_to_time(run);
    const double wall = r.seconds(index_["wall_time"]);
    if (wall > 0) {
      job.requested = seconds_to_time(wall);
    } else {
      tally_.repair(workload::kRequestedFromRunTime);
      job.requested = job.run;
      job.requested_from_run = true;
    }
    const double wait = r.seconds(index_["wait_time"]);
    job.trace_wait = wait >= 0 ? seconds_to_time(wait) : -1;
    job.nodes = static_cast<std::uint32_t>(nodes);
    const double cpus = r.count(index_["cpu_num"]);
    job.procs = cpus > 0 ? static_cast<std::uint32_t>(cpus) : job.nodes;
    if (cpus > 0) cores_per_node_.note(cpus, nodes);
    return true;
  }
  detail::CoresPerNode cores_per_node_;
  std::map<std::string, std::size_t> index_;
};

// Per-task duration files: "arrival task_count mean d1 d2 ... dn", one job per line, seconds.
// One record per job: run = the longest task (the job's span on unlimited workers), procs = n.
class TaskDurationsReader final : public TraceReader {
 public:
  explicit TaskDurationsReader(const std::string& path) : lines_(path) {}
  bool next(workload::Job& job) override {
    std::string_view line;
    while (lines_.next(line)) {
      std::vector<double> v;
      std::size_t i = 0;
      while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i == line.size()) break;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
        double x = 0;
        const auto r = std::from_chars(line.data() + i, line.data() + j, x);
        if (r.ec != std::errc() || r.ptr != line.data() + j || !std::isfinite(x))
          throw InputError(lines_.path(), lines_.line_number(), "field " + std::to_string(v.size() + 1),
                           quoted_input(line.substr(i, j - i)) + " is not a number");
        if (std::abs(x) > kMaxSeconds)  // times and the task count alike
          throw InputError(lines_.path(), lines_.line_number(), "field " + std::to_string(v.size() + 1),
                           quoted_input(line.substr(i, j - i)) + ": beyond a century of seconds");
        v.push_back(x);
        i = j;
      }
      if (v.empty()) continue;
      ++tally_.records;
      if (v.size() < 3)
        throw InputError(lines_.path(), lines_.line_number(), "field count", "need arrival, task count, mean");
      const double tasks = v[1];
      if (tasks != std::floor(tasks) || tasks < 1 || static_cast<std::size_t>(tasks) != v.size() - 3)
        throw InputError(lines_.path(), lines_.line_number(), "field 2 (task count)",
                         "says " + std::to_string(tasks) + " tasks, the line has " + std::to_string(v.size() - 3));
      if (v[0] < 0) throw InputError(lines_.path(), lines_.line_number(), "field 1 (arrival)", "negative time");
      const double longest = *std::max_element(v.begin() + 3, v.end());
      if (seconds_to_time(longest) <= 0) {  // (shorter than a nanosecond rounds to 0)
        tally_.drop("run time <= 0");
        continue;
      }
      job = workload::Job{};
      job.id = ++count_;
      job.submit = seconds_to_time(v[0]);
      job.run = seconds_to_time(longest);
      job.procs = static_cast<std::uint32_t>(tasks);
      job.nodes = job.procs;
      return true;
    }
    return false;
  }
  const workload::ReadTally& tally() const override { return tally_; }
  std::map<std::string, std::string> header() const override { return {{"Units", "seconds (assumed)"}}; }
  std::uint64_t bytes_read() const override { return lines_.bytes_read(); }

 private:
  LineReader lines_;
  workload::ReadTally tally_;
  std::uint64_t count_ = 0;
};

constexpr std::pair<TraceFormat, const char*> kFormatNames[] = {
    {TraceFormat::automatic, "auto"},
    {TraceFormat::swf, "swf"},
    {TraceFormat::alibaba2017, "alibaba2017"},
    {TraceFormat::alibaba2018_task, "alibaba2018-task"},
    {TraceFormat::alibaba2018_instance, "alibaba2018-instance"},
    {TraceFormat::google2011, "google2011"},
    {TraceFormat::alcf, "alcf"},
    {TraceFormat::task_durations, "task-durations"},
    {TraceFormat::sacct, "sacct"},
};

}  // namespace

std::vector<std::string> trace_format_names() {
  std::vector<std::string> names;
  for (const auto& [format, text] : kFormatNames) names.emplace_back(text);
  return names;
}

TraceFormat parse_trace_format(const std::string& name) {
  for (const auto& [format, text] : kFormatNames)
    if (name == text) return format;
  throw UsageError("unknown trace format '" + name +
                   "' (auto, swf, alibaba2017, alibaba2018-task, alibaba2018-instance, google2011, alcf, "
                   "task-durations, sacct)");
}

std::string to_string(TraceFormat format) {
  for (const auto& [f, text] : kFormatNames)
    if (f == format) return text;
  return "?";
}

TraceFormat detect_trace_format(const std::string& path) {
  std::string name = base_name(path);
  if (ends_with(name, ".gz")) name.resize(name.size() - 3);
  if (ends_with(name, ".swf")) return TraceFormat::swf;
  if (ends_with(name, ".tr")) return TraceFormat::task_durations;
  if (name.find("task_events") != std::string::npos) return TraceFormat::google2011;
  {
    LineReader lines(path);
    std::string_view first;
    if (lines.next(first) && is_sacct_header(first)) return TraceFormat::sacct;
  }
  if (ends_with(name, ".csv")) {
    LineReader lines(path);
    std::string_view first;
    if (!lines.next(first)) throw InputError(path + ": empty file");
    if (first.rfind("task_create_time", 0) == 0) return TraceFormat::alibaba2017;
    if (first.find(",submit_time,") != std::string_view::npos && first.find(",node_num,") != std::string_view::npos)
      return TraceFormat::alcf;
    if (name.find("batch_instance") != std::string::npos) return TraceFormat::alibaba2018_instance;
    if (name.find("batch_task") != std::string::npos) return TraceFormat::alibaba2018_task;
  }
  throw InputError(path + ": cannot tell the trace format from its name and first line; give it with --format");
}

std::unique_ptr<TraceReader> open_trace(const std::string& path, const TraceOptions& options,
                                        TraceFormat* format_used) {
  const TraceFormat format = options.format == TraceFormat::automatic ? detect_trace_format(path) : options.format;
  if (format_used != nullptr) *format_used = format;
  switch (format) {
    case TraceFormat::swf:
      return std::make_unique<SwfTraceReader>(path, options.swf);
    case TraceFormat::alibaba2017:
      return std::make_unique<Alibaba2017Reader>(path);
    case TraceFormat::alibaba2018_task:
      return std::make_unique<Alibaba2018Reader>(path, kAlibaba2018Task);
    case TraceFormat::alibaba2018_instance:
      return std::make_unique<Alibaba2018Reader>(path, kAlibaba2018Instance);
    case TraceFormat::google2011:
      return std::make_unique<Google2011Reader>(path);
    case TraceFormat::alcf:
      return std::make_unique<AlcfReader>(path);
    case TraceFormat::task_durations:
      return std::make_unique<TaskDurationsReader>(path);
    case TraceFormat::sacct:
      return open_sacct(path);
    case TraceFormat::automatic:
      break;
  }
  throw UsageError("no reader for format " + to_string(format));
}

namespace {

// Jobs whose id an earlier job of the trace has already.
std::uint64_t repeated_ids(const std::vector<workload::Job>& jobs) {
  std::vector<std::uint64_t> ids;
  ids.reserve(jobs.size());
  for (const workload::Job& j : jobs) ids.push_back(j.id);
  std::sort(ids.begin(), ids.end());
  std::uint64_t repeated = 0;
  for (std::size_t i = 1; i < ids.size(); ++i) repeated += ids[i] == ids[i - 1];
  return repeated;
}

}  // namespace

workload::Workload load_workload(const std::string& path, const TraceOptions& options) {
  TraceFormat format = TraceFormat::automatic;
  const std::unique_ptr<TraceReader> reader = open_trace(path, options, &format);
  workload::Workload w;
  w.source = path;
  // Room for the records the header announces (a hint: traces may say more or less), so that a
  // large trace is not copied again at every doubling.
  const std::int64_t announced = workload::header_int(reader->header(), "MaxRecords");
  if (announced > 0) w.jobs.reserve(static_cast<std::size_t>(std::min<std::int64_t>(announced, 1 << 22)));
  workload::Job job;
  Time latest = std::numeric_limits<Time>::min();
  std::uint64_t out_of_order = 0;
  while (reader->next(job)) {
    if (job.submit < latest) ++out_of_order;
    latest = std::max(latest, job.submit);
    w.jobs.push_back(job);
  }
  w.tally = reader->tally();
  if (out_of_order > 0) {
    w.tally.repaired["submit times out of order: sorted"] += out_of_order;
    std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const workload::Job& a, const workload::Job& b) {
      return a.submit != b.submit ? a.submit < b.submit : a.id < b.id;
    });
  }
  w.header = reader->header();
  w.header["Format"] = to_string(format);
  w.header["CoresPerNode"] = std::to_string(reader->cores_per_node());
  w.unix_start_time = workload::header_int(w.header, "UnixStartTime");
  w.max_nodes = reader->machine_nodes() > 0 ? reader->machine_nodes() : workload::header_int(w.header, "MaxNodes");
  w.max_procs = workload::header_int(w.header, "MaxProcs");
  if (const std::string note = reader->machine_note(); !note.empty()) w.notes.push_back(path + ": " + note);
  if (const std::uint64_t shared = repeated_ids(w.jobs); shared > 0) {  // kept, but said: rows share ids
    w.tally.repaired["job id seen before: kept"] += shared;
    w.notes.push_back(path + ": " + std::to_string(shared) +
                      " job(s) repeat the id of an earlier job; each is kept and run, but their rows in the results "
                      "share an id");
  }
  if ((format == TraceFormat::alcf || format == TraceFormat::sacct) && !w.jobs.empty()) {
    // absolute Unix times: start the trace at 0
    const Time origin = w.jobs.front().submit;
    w.unix_start_time = origin / kTicksPerSecond;
    for (workload::Job& j : w.jobs) j.submit -= origin;
  }
  return w;
}

}  // namespace tracewarp::traces
