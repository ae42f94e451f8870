// The sweep's own keys (experiment.model, engine.ranks_per_run), and every key of an experiment
// together: the layer that joins the engine, the workload, the models and the experiment files
// (app/ and experiment/sweep.hpp read it).
#pragma once

#include <cstdint>
#include <string>

#include "tracewarp/core/params.hpp"
#include "tracewarp/engine/config.hpp"

namespace tracewarp::experiment {

// engine.ranks_per_run: how a sweep is spread, not how one run executes.
struct RunLayout {
  std::uint32_t ranks_per_run = 0;
};
const ParamTable<RunLayout>& run_layout_params();

// experiment.model: the model to run, one of model/registry.hpp's (declared here, the lowest layer
// that knows them all).
struct ModelChoice {
  std::string model = "phold";
};
const ParamTable<ModelChoice>& model_params();

// Every configuration key: experiment, engine, workload and output, then each model's sections.
const ConfigSchema& config_schema();

}  // namespace tracewarp::experiment
