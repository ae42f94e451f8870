#include "tracewarp/model/registry.hpp"

#include "tracewarp/core/error.hpp"
#include "tracewarp/io/settings.hpp"
#include "tracewarp/model/batch/batch_model.hpp"
#include "tracewarp/model/las/las_model.hpp"
#include "tracewarp/model/phold/phold.hpp"
#include "tracewarp/model/replication/replication_model.hpp"

namespace tracewarp::model {

const std::vector<ModelInfo>& models() {
  static const std::vector<ModelInfo> all = {
      phold::phold_model(),
      batch::batch_model(),
      las::las_model(),
      replication::replication_model(),
  };
  return all;
}

namespace {
std::string model_names() {
  std::string names;
  for (const ModelInfo& m : models()) names += (names.empty() ? "" : ", ") + m.name;
  return names;
}
}  // namespace

const io::ConfigSchema& config_schema() {
  static const io::ConfigSchema all = [] {
    io::ConfigSchema keys = io::core_config_keys();
    const std::string& model_key = io::experiment_params().key_of(&io::ExperimentSettings::model);
    for (io::ConfigKey& k : keys)
      if (k.name == model_key) k.meaning += ": " + model_names();
    std::string generators;
    for (const ModelInfo& m : models())
      for (const WorkloadGenerator& g : m.generators)
        generators += (generators.empty() ? "" : "; ") + g.name + " (" + g.description + ")";
    const std::string& generator_key = io::workload_source_params().key_of(&io::WorkloadSource::generator);
    for (io::ConfigKey& k : keys)
      if (k.name == generator_key) k.meaning += ": " + generators;
    for (const ModelInfo& m : models()) keys.insert(keys.end(), m.keys.begin(), m.keys.end());
    return keys;
  }();
  return all;
}

io::Workload configured_workload(const io::Config& c) {
  const io::WorkloadSource source = io::workload_source_params().read(c);
  if (source.generator.empty()) return io::load_configured_workload(c);
  std::string known;
  for (const ModelInfo& m : models())
    for (const WorkloadGenerator& g : m.generators) {
      if (g.name == source.generator) return g.make(c);
      known += (known.empty() ? "" : ", ") + g.name;
    }
  throw ConfigError("unknown workload.generator '" + source.generator + "' (" + known + ")");
}

const ModelInfo& find_model(const std::string& name) {
  for (const ModelInfo& m : models())
    if (m.name == name) return m;
  throw ConfigError("unknown model '" + name + "' (experiment.model: " + model_names() + ")");
}

}  // namespace tracewarp::model
