// tracewarp inspect TRACE: what a trace holds and what reading it would drop or repair.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>

#include "commands.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/traces/inspect.hpp"

namespace tracewarp::app {
namespace {

struct InspectOptions {
  std::string path;
  std::string format = "auto";
  std::uint32_t cores_per_node = 0;
  std::string missing_requested = "run-time";
  double walltime_grace_s = 0;
  bool json = false;
};

// Offered loads that differ by more than this many points mean that replaying the trace on whole
// nodes or on processors is a choice that changes the result.
constexpr double kLoadGapWarning = 0.05;

// What a batch run of the trace gets with the defaults (batch.resources: processors for SWF,
// whole nodes for logs sized in nodes), and what the machine offered to each reading.
void print_replay(const traces::TraceSummary& s) {
  if (s.machine_nodes <= 0) {
    std::printf("machine for a run        unknown: the trace does not say its size; set batch.nodes\n");
  } else {
    const long long nodes = s.machine_nodes, procs = nodes * s.cores_per_node;
    const bool swf = s.format == "swf";
    std::printf("machine for a run        %lld nodes x %u cores = %lld processors%s%s\n", nodes, s.cores_per_node,
                procs, s.machine_note.empty() ? "" : ": ", s.machine_note.c_str());
    std::printf("replayed by default as   %s (batch.resources)\n",
                swf ? "a pool of processors" : "whole exclusive nodes");
  }
  const traces::OfferedLoad load = traces::offered_load(s);
  if (load.processors >= 0) {
    std::printf(
        "offered load             %.3f as processors, %.3f as exclusive nodes (work / capacity over the "
        "submission span)\n",
        load.processors, load.exclusive_nodes);
    if (load.exclusive_nodes - load.processors > kLoadGapWarning)
      std::printf(
          "  warning: whole nodes offer the machine %.0f points more load than its processors do (jobs "
          "smaller than a node): batch.resources changes the waits a replay gives\n",
          100 * (load.exclusive_nodes - load.processors));
  }
  std::printf(
      "killed at walltime       %llu jobs ran longer than requested + %.0f s (batch.kill_at_walltime cuts "
      "them; batch.walltime_grace_s, --walltime-grace)\n",
      static_cast<unsigned long long>(s.cut_at_walltime), s.walltime_grace_s);
}

nlohmann::json distribution_json(const traces::Distribution& d) {
  return {{"mean", d.mean}, {"median", d.median}, {"p90", d.p90}, {"max", d.max}};
}

std::string utc(double unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

// Where the first submission lies: in the trace's own seconds, with the date where the trace
// gives its origin; for traces in absolute Unix times (ALCF), the date, and that a run counts
// from it.
std::string first_submission(const traces::TraceSummary& s) {
  char text[160];
  if (s.format == "alcf") {
    std::snprintf(text, sizeof text, "%s (Unix time %.0f; a run counts from it: 0 s)", utc(s.first_submit_s).c_str(),
                  s.first_submit_s);
    return text;
  }
  const auto origin = s.header.find("UnixStartTime");
  char* end = nullptr;
  const double start = origin == s.header.end() ? -1 : std::strtod(origin->second.c_str(), &end);
  if (start > 0)
    std::snprintf(text, sizeof text, "%.0f s (%s)", s.first_submit_s, utc(start + s.first_submit_s).c_str());
  else
    std::snprintf(text, sizeof text, "%.0f s", s.first_submit_s);
  return text;
}

void print_text(const traces::TraceSummary& s) {
  std::printf("%s (%s)\n", s.path.c_str(), s.format.c_str());
  for (const char* key : {"Computer", "Installation", "MaxNodes", "MaxProcs", "UnixStartTime", "StartTime", "EndTime"})
    if (const auto it = s.header.find(key); it != s.header.end())
      std::printf("  %-22s %s\n", (std::string(key) + ":").c_str(), it->second.c_str());
  std::printf("records                  %llu\n", static_cast<unsigned long long>(s.tally.records));
  std::printf("jobs accepted            %llu\n", static_cast<unsigned long long>(s.jobs));
  for (const auto& [reason, n] : s.tally.dropped)
    std::printf("  dropped   %8llu  %s\n", static_cast<unsigned long long>(n), reason.c_str());
  for (const auto& [reason, n] : s.tally.repaired)
    std::printf("  repaired  %8llu  %s\n", static_cast<unsigned long long>(n), reason.c_str());
  if (s.out_of_order > 0)
    std::printf("  %llu submissions out of order (sorted when loaded for a run)\n",
                static_cast<unsigned long long>(s.out_of_order));
  std::printf("submit span              %.0f s (%.1f days), first at %s\n", s.span_s, s.span_s / 86400,
              first_submission(s).c_str());
  std::printf(
      "cores per node           %u%s\n", s.cores_per_node,
      s.cores_per_node == 1 && s.max_procs > s.max_nodes ? " (the trace does not say; processors per job differ)" : "");
  std::printf("largest job              %llu nodes, %llu processors\n", static_cast<unsigned long long>(s.max_nodes),
              static_cast<unsigned long long>(s.max_procs));
  std::printf("with requested time      %llu (%.1f%%), ran longer than requested: %llu\n",
              static_cast<unsigned long long>(s.with_requested_time),
              s.jobs ? 100.0 * static_cast<double>(s.with_requested_time) / static_cast<double>(s.jobs) : 0.0,
              static_cast<unsigned long long>(s.ran_longer_than_requested));
  std::printf("run time (s)             mean %.0f, median %.0f, p90 %.0f, max %.0f\n", s.run_s.mean, s.run_s.median,
              s.run_s.p90, s.run_s.max);
  if (s.with_requested_time > 0)
    std::printf("requested time (s)       mean %.0f, median %.0f, p90 %.0f, max %.0f\n", s.requested_s.mean,
                s.requested_s.median, s.requested_s.p90, s.requested_s.max);
  else
    std::printf(
        "requested time           none in the trace (a run gives each job its run time: "
        "workload.missing_requested)\n");
  std::printf("nodes per job            mean %.1f, median %.0f, p90 %.0f, max %.0f\n", s.nodes.mean, s.nodes.median,
              s.nodes.p90, s.nodes.max);
  print_replay(s);
  std::printf("users                    %llu\n", static_cast<unsigned long long>(s.users));
  if (s.groups > 0)
    std::printf("%-25s%llu\n", s.format == "swf" ? "groups (SWF field 13)" : "parent jobs",
                static_cast<unsigned long long>(s.groups));
  std::printf("read                     %.1f MB in %.3f s (%.0f jobs/s, %.0f MB/s)\n",
              static_cast<double>(s.bytes) / 1e6, s.read_s, static_cast<double>(s.tally.records) / s.read_s,
              static_cast<double>(s.bytes) / 1e6 / s.read_s);
}

nlohmann::json to_json(const traces::TraceSummary& s) {
  const bool header_size = s.header_max_nodes > 0 || s.header_max_procs > 0;
  return {{"path", s.path},
          {"format", s.format},
          {"records", s.tally.records},
          {"jobs", s.jobs},
          {"dropped", s.tally.dropped},
          {"repaired", s.tally.repaired},
          {"dropped_total", s.tally.dropped_total()},
          {"repaired_total", s.tally.repaired_total()},
          {"out_of_order", s.out_of_order},
          {"first_submit", s.first_submit_s},
          {"span_s", s.span_s},
          // the machine's size from the header where it has one, else the largest job
          {"max_nodes", s.header_max_nodes > 0 ? static_cast<std::uint64_t>(s.header_max_nodes) : s.max_nodes},
          {"max_procs", s.header_max_procs > 0 ? static_cast<std::uint64_t>(s.header_max_procs) : s.max_procs},
          {"machine_size_from", header_size ? "header" : "largest job"},
          {"largest_job_nodes", s.max_nodes},
          {"largest_job_procs", s.max_procs},
          {"cores_per_node", s.cores_per_node},
          {"machine_nodes", s.machine_nodes},
          {"machine_note", s.machine_note},
          {"with_requested_time", s.with_requested_time},
          {"ran_longer_than_requested", s.ran_longer_than_requested},
          {"walltime_grace_s", s.walltime_grace_s},
          {"cut_at_walltime", s.cut_at_walltime},
          {"offered_load_processors", traces::offered_load(s).processors},
          {"offered_load_exclusive_nodes", traces::offered_load(s).exclusive_nodes},
          {"users", s.users},
          {"groups", s.groups},
          {"run_time_s", distribution_json(s.run_s)},
          {"requested_time_s", distribution_json(s.requested_s)},
          {"nodes", distribution_json(s.nodes)},
          {"header", s.header},
          {"bytes", s.bytes},
          {"read_s", s.read_s}};
}

traces::TraceOptions trace_options(const std::string& format, std::uint32_t cores_per_node,
                                   const std::string& missing_requested) {
  traces::TraceOptions o;
  o.format = traces::parse_trace_format(format);
  o.swf.cores_per_node = cores_per_node;
  o.swf.missing_requested = traces::parse_missing_requested(missing_requested);
  return o;
}

}  // namespace

void add_inspect_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand("inspect", "summarise a trace: jobs, span, machine, what is dropped or repaired");
  cmd->add_option("trace", o->path, "trace file (SWF, .swf.gz, cluster-trace CSV, ALCF CSV, .tr)")->required();
  cmd->add_option("--format", o->format,
                  "auto, swf, alibaba2017, alibaba2018-task, alibaba2018-instance, google2011, alcf, task-durations, "
                  "sacct")
      ->capture_default_str();
  cmd->add_option("--cores-per-node", o->cores_per_node, "SWF processors per node (0 = MaxProcs/MaxNodes, else 1)")
      ->capture_default_str();
  cmd->add_option("--missing-requested", o->missing_requested, "SWF jobs without requested time: run-time or drop")
      ->capture_default_str();
  cmd->add_option("--walltime-grace", o->walltime_grace_s,
                  "seconds past its walltime a job may run before it is killed (batch.walltime_grace_s)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &action] {
    action = [o] {
      const traces::TraceSummary s = traces::summarize_trace(
          o->path, trace_options(o->format, o->cores_per_node, o->missing_requested), o->walltime_grace_s);
      if (Communicator::world().rank() != 0) return;
      if (o->json)
        std::cout << to_json(s).dump() << '\n';
      else
        print_text(s);
    };
  });
}

}  // namespace tracewarp::app
