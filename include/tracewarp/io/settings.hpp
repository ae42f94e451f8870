// The sections every experiment has, each key declared once (io/params.hpp): experiment,
// engine, workload and output. Models declare their own sections beside their code, and the
// model registry puts everything together (model/registry.hpp: config_schema()).
#pragma once

#include <cstdint>
#include <string>

#include "tracewarp/engine/config.hpp"
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

// engine.*: the engine's own settings (EngineConfig), as `run` and `bench` both read them.
const ParamTable<EngineConfig>& engine_params();

// engine.ranks_per_run: how a sweep is spread, not how one run executes.
struct RunLayout {
  std::uint32_t ranks_per_run = 0;
};
const ParamTable<RunLayout>& run_layout_params();

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

// The keys of all the sections above, in documentation order.
const ConfigSchema& core_config_keys();

}  // namespace tracewarp::io
