#include "tracewarp/experiment/settings.hpp"

#include "tracewarp/config/settings.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/workload/configured.hpp"
#include "tracewarp/workload/transforms.hpp"

namespace tracewarp::experiment {

const ParamTable<RunLayout>& run_layout_params() {
  static const ParamTable<RunLayout> table =
      ParamTable<RunLayout>("engine")
          .integer("ranks_per_run", &RunLayout::ranks_per_run,
                   "ranks that run one run of a sweep together (0 = all ranks, or one each where every run is "
                   "sequential, the default engine.sync); also --ranks-per-run")
          .for_whole_sweep();
  return table;
}

const ParamTable<ModelChoice>& model_params() {
  static const ParamTable<ModelChoice> table = [] {
    std::vector<std::string> names;
    for (const model::ModelInfo& m : model::models()) names.push_back(m.name);
    return ParamTable<ModelChoice>("experiment")
        .choice("model", &ModelChoice::model, names, "the model to run")
        .for_whole_sweep();
  }();
  return table;
}

const ConfigSchema& config_schema() {
  static const ConfigSchema all = [] {
    ConfigSchema keys;
    // Documentation order: the experiment, the engine, the workload, the output, the models.
    for (const ConfigSchema* part :
         {&config::experiment_params().schema(), &model_params().schema(), &engine_params().schema(),
          &run_layout_params().schema(), &model::generator_params().schema(), &workload::source_params().schema(),
          &workload::transform_params().schema(), &config::output_params().schema()})
      keys.insert(keys.end(), part->begin(), part->end());
    for (const model::ModelInfo& m : model::models()) keys.insert(keys.end(), m.keys.begin(), m.keys.end());
    return keys;
  }();
  return all;
}

}  // namespace tracewarp::experiment
