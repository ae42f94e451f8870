// Every trace format behind one streaming interface. Formats:
//   swf                   Standard workload::Workload Format (.swf, .swf.gz): see swf.hpp
//   alibaba2017           cluster-trace-v2017 batch_task.csv (with header): one task per row
//   alibaba2018-task      cluster-trace-v2018 batch_task.csv (no header): one task per row
//   alibaba2018-instance  cluster-trace-v2018 batch_instance.csv (no header): one instance per row
//   google2011            Google cluster trace 2011 task_events CSV: one task per finished task
//   alcf                  ALCF job-analysis CSV (Mira, Theta, ThetaGPU)
//   task-durations        per-task duration files (.tr): one job per line
//   sacct                 Slurm accounting records (sacct --parsable2): see sacct.hpp
// Conversion rules of each format are in its reader (src/traces/trace.cpp) and counted in the tally.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tracewarp/jobs/job.hpp"
#include "tracewarp/traces/swf.hpp"

namespace tracewarp::traces {

enum class TraceFormat {
  automatic,
  swf,
  alibaba2017,
  alibaba2018_task,
  alibaba2018_instance,
  google2011,
  alcf,
  task_durations,
  sacct
};
TraceFormat parse_trace_format(const std::string& name);  // throws UsageError
std::vector<std::string> trace_format_names();            // "auto", "swf", ...
std::string to_string(TraceFormat format);
// From the file name and, for CSV files, the first line.
TraceFormat detect_trace_format(const std::string& path);  // throws InputError

struct TraceOptions {
  TraceFormat format = TraceFormat::automatic;
  SwfOptions swf;
};

class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // The next accepted job (or task), in file order; false at the end.
  virtual bool next(workload::Job& job) = 0;
  virtual const workload::ReadTally& tally() const = 0;
  // Header fields (SWF) or facts about the file (format, units).
  virtual std::map<std::string, std::string> header() const { return {}; }
  virtual std::uint32_t cores_per_node() const { return 1; }
  // The machine's size in the jobs' node unit (-1: the file does not say), and why it was chosen
  // when the file alone was ambiguous (traces/swf.hpp: swf_machine).
  virtual std::int64_t machine_nodes() const { return -1; }
  virtual std::string machine_note() const { return {}; }
  virtual std::uint64_t bytes_read() const = 0;
};

std::unique_ptr<TraceReader> open_trace(const std::string& path, const TraceOptions& options,
                                        TraceFormat* format_used = nullptr);

// Reads a whole trace into memory, sorted by (submit, id); out-of-order submissions are counted
// as a repair ("submit times out of order: sorted"). Times are shifted so that, where a trace
// carries absolute times (ALCF), the first submission is at 0.
workload::Workload load_workload(const std::string& path, const TraceOptions& options);

}  // namespace tracewarp::traces
