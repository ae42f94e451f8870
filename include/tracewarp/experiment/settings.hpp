// The engine's configuration section, and every key of an experiment together: the layer that
// joins the engine, io and the models (app/ and experiment/sweep.hpp read it).
#pragma once

#include <cstdint>

#include "tracewarp/core/params.hpp"
#include "tracewarp/engine/config.hpp"

namespace tracewarp::experiment {

// engine.*: the engine's own settings (EngineConfig), as `run` and `bench` both read them.
const ParamTable<EngineConfig>& engine_params();

// engine.ranks_per_run: how a sweep is spread, not how one run executes.
struct RunLayout {
  std::uint32_t ranks_per_run = 0;
};
const ParamTable<RunLayout>& run_layout_params();

// Every configuration key: experiment, engine, workload and output, then each model's sections.
const ConfigSchema& config_schema();

}  // namespace tracewarp::experiment
