// The summary `tracewarp inspect` prints: one streaming pass over a trace, memory proportional
// to the number of jobs only for the run-time percentiles (4 bytes per job).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tracewarp/traces/trace.hpp"

namespace tracewarp::traces {

struct Distribution {  // in the unit named by the field using it
  double mean = 0, median = 0, p90 = 0, max = 0;
};

struct TraceSummary {
  std::string path;
  std::string format;
  std::map<std::string, std::string> header;
  workload::ReadTally tally;
  std::uint64_t jobs = 0;     // accepted
  double first_submit_s = 0;  // relative to the trace's own origin
  double last_submit_s = 0;
  double span_s = 0;  // last submit − first submit
  std::int64_t header_max_nodes = -1;
  std::int64_t header_max_procs = -1;
  std::uint32_t cores_per_node = 1;
  std::int64_t machine_nodes = -1;  // what a model runs the jobs on (traces/swf.hpp: swf_machine)
  std::string machine_note;         // why, when the header alone was ambiguous
  std::uint64_t max_nodes = 0;      // largest job
  std::uint64_t max_procs = 0;
  std::uint64_t with_requested_time = 0;
  std::uint64_t ran_longer_than_requested = 0;
  double walltime_grace_s = 0;        // as asked
  std::uint64_t cut_at_walltime = 0;  // ran longer than requested + grace: batch.kill_at_walltime cuts them
  double processor_seconds = 0;       // sum of processors x run time
  double node_seconds = 0;            // sum of nodes x run time (nodes = the reader's conversion)
  std::uint64_t out_of_order = 0;     // submissions earlier than one before them
  std::uint64_t users = 0;
  std::uint64_t groups = 0;  // distinct parent jobs of task traces (workload::Job::group), or groups
  Distribution run_s, requested_s, nodes;
  std::uint64_t bytes = 0;  // uncompressed bytes read
  double read_s = 0;        // wall time of the pass
};

// The offered load (work over capacity across the submission span) of a trace replayed on its
// machine as a pool of processors and as whole exclusive nodes; -1 where the machine's size or
// the span is unknown.
struct OfferedLoad {
  double processors = -1;
  double exclusive_nodes = -1;
};
OfferedLoad offered_load(const TraceSummary& summary);

TraceSummary summarize_trace(const std::string& path, const TraceOptions& options, double walltime_grace_s = 0);

}  // namespace tracewarp::traces
