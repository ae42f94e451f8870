// The sections every experiment has, each key declared once (io/params.hpp): experiment,
// workload and output. The engine's section is declared in experiment/settings.hpp, models
// declare theirs beside their code, and experiment::config_schema() puts everything together.
#pragma once

#include <cstdint>
#include <string>

#include "tracewarp/core/params.hpp"
#include "tracewarp/core/time.hpp"

namespace tracewarp::config {

struct ExperimentSettings {
  std::string name = "experiment";
  std::string model = "phold";
  std::int64_t seed = 1;
  std::int64_t replications = 1;
};
const ParamTable<ExperimentSettings>& experiment_params();

struct OutputSettings {
  std::string file = "results.h5";
  Time series_interval = 300 * kTicksPerSecond;
};
const ParamTable<OutputSettings>& output_params();

// The keys of the sections above, in documentation order.
const ConfigSchema& core_config_keys();

}  // namespace tracewarp::config
