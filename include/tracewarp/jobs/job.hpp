// The workload every model runs: the trace-neutral record every reader and generator produces: one rigid job (batch
// traces) or one task (cluster traces), in engine time units (nanoseconds) relative to the trace's start.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tracewarp/core/time.hpp"

namespace tracewarp::workload {

struct Job {
  std::uint64_t id = 0;     // the trace's job (or task) number
  Time submit = 0;          // submission, ns since the trace's start
  Time run = 0;             // actual run time, ns (> 0)
  Time requested = -1;      // requested walltime, ns; -1 unknown
  Time trace_wait = -1;     // wait recorded in the trace, ns; -1 unknown
  std::uint32_t procs = 0;  // processors (cores) used
  std::uint32_t nodes = 0;  // nodes, after the machine's cores-per-node conversion
  std::int32_t user = -1;
  std::int32_t group = -1;
  std::int32_t queue = -1;
  std::int32_t partition = -1;
  std::int32_t status = -1;         // trace status code; -1 unknown
  float cpus = 0;                   // per-task CPU demand in cores (cluster traces); 0 = not given
  float memory = 0;                 // per-task memory demand, normalised to a machine's memory; 0 = not given
  bool requested_from_run = false;  // the trace had no requested time; `requested` is the run time
};

// The repair every reader counts when a job's requested time is missing and its run time is used.
inline constexpr const char* kRequestedFromRunTime = "requested time unknown: run time used";

// What a reader dropped or repaired, by reason. Every rule that rejects or changes a record
// counts here, so that nothing is lost silently.
struct ReadTally {
  std::uint64_t records = 0;  // job records read (data lines)
  std::map<std::string, std::uint64_t> dropped;
  std::map<std::string, std::uint64_t> repaired;

  void drop(const std::string& reason) { ++dropped[reason]; }
  void repair(const std::string& reason) { ++repaired[reason]; }
  std::uint64_t dropped_total() const;
  std::uint64_t repaired_total() const;
};

// A job's node count on a machine of `to` nodes when it asked for `nodes` of `from`: scaled
// proportionally, rounded up, at least 1 and at most `to` (the K computer study's 768-node machine).
std::uint32_t scaled_nodes(std::uint32_t nodes, std::uint32_t from, std::uint32_t to);

// An integer header field ("MaxNodes": "1024"); -1 if absent or not an integer.
std::int64_t header_int(const std::map<std::string, std::string>& header, const std::string& key);

// A workload in memory, sorted by (submit, id), with the transformations applied to it.
struct Workload {
  std::string source;  // file it came from, or the generator
  std::vector<Job> jobs;
  ReadTally tally;
  std::map<std::string, std::string> header;  // trace header fields (SWF ';' lines)
  std::vector<std::string> transforms;        // in the order applied, e.g. "window(start=0, count=10000)"
  std::int64_t unix_start_time = -1;
  std::int64_t max_nodes = -1;  // machine size in the jobs' node unit (traces/swf.hpp: swf_machine)
  std::int64_t max_procs = -1;
  std::vector<std::string> notes;  // choices a reader made that the user should hear about
};

}  // namespace tracewarp::workload
