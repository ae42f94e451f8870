// The sections every experiment has, each key declared once (io/params.hpp): experiment,
// workload and output. The engine's section is declared in experiment/settings.hpp, models
// declare theirs beside their code, and experiment::config_schema() puts everything together.
#pragma once

#include <cstdint>
#include <string>

#include "tracewarp/core/time.hpp"
#include "tracewarp/io/params.hpp"
#include "tracewarp/io/transforms.hpp"

namespace tracewarp::io {

struct ExperimentSettings {
  std::string name = "experiment";
  std::string model = "phold";
  std::int64_t seed = 1;
  std::int64_t replications = 1;
};
const ParamTable<ExperimentSettings>& experiment_params();

// Where a workload comes from: a trace, or a model's generator.
struct WorkloadSource {
  std::string generator;
  std::string trace;
  std::string format = "auto";
  std::uint32_t cores_per_node = 0;
  std::string missing_requested = "run-time";
};
const ParamTable<WorkloadSource>& workload_source_params();
const ParamTable<WorkloadTransforms>& workload_transform_params();

struct OutputSettings {
  std::string file = "results.h5";
  Time series_interval = 300 * kTicksPerSecond;
};
const ParamTable<OutputSettings>& output_params();

// The keys of the sections above, in documentation order.
const ConfigSchema& core_config_keys();

}  // namespace tracewarp::io
