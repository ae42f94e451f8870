// The workload a configuration describes (workload.* keys): a trace read by traces/, or a model's
// generator (model/registry.hpp chooses), then the transforms of workload/transforms.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "tracewarp/core/params.hpp"
#include "tracewarp/jobs/job.hpp"

namespace tracewarp::workload {

// The trace a workload comes from, and how it is read (a model's generator instead of a trace is
// workload.generator, model/registry.hpp).
struct Source {
  std::string trace;
  std::string format = "auto";
  std::uint32_t cores_per_node = 0;
  std::string missing_requested = "run-time";
};
const ParamTable<Source>& source_params();

// The data folder: $TRACEWARP_DATA, else ../shared/data (relative to the working directory).
std::string data_directory();
// "${TRACEWARP_DATA}/traces/x.swf.gz" -> "<data folder>/traces/x.swf.gz".
std::string expand_data_path(const std::string& path);
// The trace the workload.* keys describe (source_params): read, sorted, transformed, and
// recorded.
// Refused (InputError) when the trace holds no job to run, or (ConfigError) when the transforms
// leave none. The last trace read stays in memory for the next run that reads it.
Workload load_configured(const Config& config);

}  // namespace tracewarp::workload
