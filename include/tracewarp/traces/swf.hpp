// Standard workload::Workload Format (Parallel Workloads Archive): 18 whitespace-separated fields per job,
// ';' header comments ("; MaxNodes: 1024"). Conversion rules (docs/studies.md#inputs-and-outputs), each counted in the
// tally:
//   processors = requested (field 8) if > 0, else allocated (field 5); neither → dropped;
//   nodes = ceil(processors / cores_per_node);
//   requested time (field 9) unknown (-1 or 0) → run time, or dropped (option);
//   run time (field 4) <= 0 or unknown → dropped; submit time unknown → dropped;
//   more processors than the header's MaxProcs → dropped.
// Malformed lines (wrong field count, non-numbers, negative times other than -1, absurd values)
// are errors that name file, line and field.
#pragma once

#include <map>
#include <string>

#include "tracewarp/jobs/job.hpp"
#include "tracewarp/traces/line_reader.hpp"

namespace tracewarp::traces {

enum class MissingRequested { use_run_time, drop };
MissingRequested parse_missing_requested(const std::string& text);  // "run-time" or "drop"; ConfigError

struct SwfOptions {
  // Cores per node for the processors → nodes conversion; 0 = from the header (swf_machine).
  std::uint32_t cores_per_node = 0;
  MissingRequested missing_requested = MissingRequested::use_run_time;
};

// The machine a trace's jobs run on, in the unit its jobs are sized in (nodes of cores_per_node
// processors), from the header's MaxNodes / MaxProcs (-1: absent) and the cores per node asked
// for (0: none). The rule, so that the machine never contradicts the jobs:
//   asked N              -> N cores per node; MaxProcs / N nodes (MaxNodes if MaxProcs absent)
//   MaxProcs = k MaxNodes -> k cores per node, MaxNodes nodes
//   only one of them     -> 1 core per node, that many nodes
//   MaxProcs not a whole multiple of MaxNodes (CEA Curie: 93312 over 5544: mixed node kinds)
//                        -> 1 core per node, MaxProcs nodes: jobs and machine in processors,
//                           said in `note`
//   neither              -> nodes unknown (-1): the model asks for its machine size
struct SwfMachine {
  std::uint32_t cores_per_node = 1;
  std::int64_t nodes = -1;
  std::string note;  // set when the header alone could not give a consistent pair
};
SwfMachine swf_machine(std::int64_t max_nodes, std::int64_t max_procs, std::uint32_t cores_per_node_asked);

class SwfReader {
 public:
  SwfReader(const std::string& path, SwfOptions options);

  // The next accepted job, in file order; false at the end of the file.
  bool next(workload::Job& job);

  const std::map<std::string, std::string>& header() const { return header_; }
  const workload::ReadTally& tally() const { return tally_; }
  std::uint32_t cores_per_node() const { return machine_.cores_per_node; }
  const SwfMachine& machine() const { return machine_; }
  std::int64_t header_int(const std::string& key) const;  // -1 if absent or not a number
  std::uint64_t bytes_read() const { return lines_.bytes_read(); }

 private:
  void read_header();
  void parse_header_line(std::string_view line);
  bool convert(std::string_view line, workload::Job& job);

  LineReader lines_;
  SwfOptions options_;
  std::map<std::string, std::string> header_;
  workload::ReadTally tally_;
  SwfMachine machine_;
  std::int64_t max_procs_ = -1;
  std::string_view pending_;  // first data line, read while looking for the header's end
  bool has_pending_ = false;
};

// Writes a workload as SWF (gzip-compressed when the path ends in .gz): a header with the
// machine size, the source and the transforms applied, then one 18-field line per job. Processor
// counts are the jobs' own unless node scaling changed them (then nodes x cores per node).
// Reading the file back gives the same jobs.
void write_swf(const workload::Workload& workload, const std::string& path, std::uint32_t cores_per_node);

}  // namespace tracewarp::traces
