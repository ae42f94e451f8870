// The keys every experiment file has that no layer below owns, each declared once
// (core/params.hpp): the experiment's name, seed and replications (what the runs of a sweep are
// made of), and the output. Every other layer declares its keys beside its code (engine/config.hpp,
// workload/, model/registry.hpp, each model, experiment/settings.hpp for experiment.model), and
// experiment::config_schema() lists them all.
#pragma once

#include <cstdint>
#include <string>

#include "tracewarp/core/params.hpp"
#include "tracewarp/core/time.hpp"

namespace tracewarp::config {

struct ExperimentSettings {
  std::string name = "experiment";
  std::int64_t seed = 1;
  std::int64_t replications = 1;
};
const ParamTable<ExperimentSettings>& experiment_params();

struct OutputSettings {
  std::string file = "results.h5";
  Time series_interval = 300 * kTicksPerSecond;
};
const ParamTable<OutputSettings>& output_params();

}  // namespace tracewarp::config
