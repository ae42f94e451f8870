#include "tracewarp/model/registry.hpp"
#include "tracewarp/workload/configured.hpp"

#include <cstdio>
#include <set>

#include "tracewarp/config/settings.hpp"
#include "tracewarp/core/named.hpp"
#include "tracewarp/model/batch/batch_model.hpp"
#include "tracewarp/model/las/las_model.hpp"
#include "tracewarp/model/mapreduce/mapreduce_model.hpp"
#include "tracewarp/model/phold/phold.hpp"
#include "tracewarp/model/replication/replication_model.hpp"

namespace tracewarp::model {

const std::vector<ModelInfo>& models() {
  static const std::vector<ModelInfo> all = {
      phold::phold_model(),         batch::batch_model(), las::las_model(), replication::replication_model(),
      mapreduce::mapreduce_model(),
  };
  return all;
}

const ParamTable<GeneratorChoice>& generator_params() {
  static const ParamTable<GeneratorChoice> table = [] {
    std::vector<std::string> names{""};
    std::string described;
    for (const ModelInfo& m : models())
      for (const WorkloadGenerator& g : m.generators) {
        names.push_back(g.name);
        described += "; " + g.name + ": " + g.description + ", keys " + g.section + ".*";
      }
    return ParamTable<GeneratorChoice>("workload")
        .choice("generator", &GeneratorChoice::generator, names,
                "a model's workload generator instead of a trace" + described);
  }();
  return table;
}

workload::Workload configured_workload(const Config& c) {
  const std::string generator = generator_params().read(c).generator;
  if (generator.empty()) return workload::load_configured(c);
  for (const ModelInfo& m : models())
    for (const WorkloadGenerator& g : m.generators)
      if (g.name == generator) {
        workload::Workload w = g.make(c);
        if (w.jobs.empty()) throw ConfigError("workload.generator '" + g.name + "' made no jobs with these parameters");
        return w;
      }
  throw InvariantError("workload.generator '" + generator + "' is declared but no model makes it");
}

RunContext run_context(const Config& c) {
  return {static_cast<std::uint64_t>(config::experiment_params().read(c).seed),
          config::output_params().read(c).series_interval};
}

const ModelInfo& find_model(const std::string& name) { return find_named(models(), name, "model"); }

void tell_workload_notes(const workload::Workload& w) {
  static std::set<std::string> told;  // once per process, however many runs share the workload
  for (const std::string& note : w.notes)
    if (told.insert(note).second) std::fprintf(stderr, "tracewarp: note: %s\n", note.c_str());
}

bool ModelInfo::describes(const std::string& key) const {
  const std::string section = key.substr(0, key.find('.'));
  if (section == "experiment" || section == "engine" || section == "output") return true;
  if (section == "workload") return reads_workload;
  return find_config_key(keys, key) != nullptr;
}

bool ModelInfo::records(const Config& run, const std::string& key) const {
  if (!describes(key)) return false;
  const std::string generator = generator_params().read(run).generator;
  if (!generator.empty() && find_config_key(workload::source_params().schema(), key) != nullptr) return false;
  const std::string section = key.substr(0, key.find('.'));
  for (const WorkloadGenerator& g : generators)
    if (g.section == section) return g.name == generator;
  return !unused_by || !unused_by(run, key);
}

Attributes workload_attributes(const workload::Workload& w) {
  std::string transforms, notes;
  for (const std::string& t : w.transforms) transforms += (transforms.empty() ? "" : "; ") + t;
  for (const std::string& n : w.notes) notes += (notes.empty() ? "" : "; ") + n;
  Attributes a = {{"workload.source", w.source},
                  {"workload.transforms", transforms},
                  {"workload.records", static_cast<std::int64_t>(w.tally.records)},
                  {"workload.dropped", static_cast<std::int64_t>(w.tally.dropped_total())},
                  {"workload.repaired", static_cast<std::int64_t>(w.tally.repaired_total())}};
  if (!notes.empty()) a["workload.notes"] = notes;
  // The trace's time origin (SWF UnixStartTime; the first submission of a log in Unix times), so
  // that times in the tables, which count from it, can be turned back into dates.
  if (w.unix_start_time >= 0) a["workload.unix_start_time"] = w.unix_start_time;
  return a;
}

void check_series_rows(const Config& config, Time horizon) {
  const Time interval = config::output_params().read(config).series_interval;
  const double rows = static_cast<double>(horizon) / static_cast<double>(interval);
  if (rows <= kMaxSeriesRows) return;
  char text[200];
  std::snprintf(text, sizeof text,
                " gives %.3g rows in this run's series (it reaches %.6g s of simulated time at least); at most %.0f",
                rows, to_seconds(horizon), kMaxSeriesRows);
  throw ConfigError(config::output_params().key_of(&config::OutputSettings::series_interval) + " = " +
                    to_string(ConfigValue(to_seconds(interval))) + text + ": raise it");
}

}  // namespace tracewarp::model
