#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/workload/configured.hpp"

#include "tracewarp/config/settings.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/model/registry.hpp"

namespace tracewarp::experiment {

namespace {
std::string show_sync(const SyncMode& m) { return to_string(m); }
SyncMode parse_sync(const std::string& v, const std::string&) { return parse_sync_mode(v); }
std::string show_placement(const Placement& p) {
  return p.kind == PlacementKind::block ? "block" : p.kind == PlacementKind::round_robin ? "round-robin" : p.file;
}
Placement parse_place(const std::string& v, const std::string&) { return parse_placement(v); }
double show_window(const Time& t) { return to_seconds(t); }
Time parse_window(const double& s, const std::string&) { return s > 0 ? from_seconds(s) : 0; }
std::int64_t show_mib(const std::uint64_t& bytes) { return static_cast<std::int64_t>(bytes >> 20); }
std::uint64_t parse_mib(const std::int64_t& mib, const std::string& key) {
  if (mib < 0) throw ConfigError(key + " must be >= 0, got " + std::to_string(mib));
  return static_cast<std::uint64_t>(mib) << 20;
}
}  // namespace

const ParamTable<EngineConfig>& engine_params() {
  using P = EngineConfig;
  static const ParamTable<P> table =
      ParamTable<P>("engine")
          .mapped("sync", &P::sync, "sequential, optimistic, conservative or rollback-check", show_sync, parse_sync)
          .integer("threads", &P::threads, "TBB threads per rank for event handlers", {.min = 1})
          .mapped("placement", &P::placement, "LP placement: block, round-robin or a partition file", show_placement,
                  parse_place)
          .integer("gvt_interval", &P::gvt_interval, "events a rank executes between the openings of GVT rounds",
                   {.min = 1})
          .integer("poll_interval", &P::poll_interval, "events between remote message exchanges", {.min = 1})
          .mapped("window_s", &P::optimism_window, "optimism window ahead of GVT, simulated seconds (0 = none)",
                  show_window, parse_window)
          .mapped("lookahead_s", &P::lookahead,
                  "conservative mode's window, simulated seconds (0 = the lookahead the model declares)", show_window,
                  parse_window)
          .mapped("memory_budget_mib", &P::memory_budget_bytes,
                  "engine memory per rank, MiB (0 = half the node's memory over its ranks)", show_mib, parse_mib)
          .number("checkpoint_every_s", &P::checkpoint_every_s,
                  "wall-clock seconds between checkpoints of a run, which `run --resume` continues from (0 = none)",
                  {.min = 0});
  return table;
}

const ParamTable<RunLayout>& run_layout_params() {
  static const ParamTable<RunLayout> table = ParamTable<RunLayout>("engine").integer(
      "ranks_per_run", &RunLayout::ranks_per_run,
      "ranks that run one run of a sweep together (0 = all ranks); also --ranks-per-run");
  return table;
}

namespace {
std::string model_names() {
  std::string names;
  for (const model::ModelInfo& m : model::models()) names += (names.empty() ? "" : ", ") + m.name;
  return names;
}
}  // namespace

const ConfigSchema& config_schema() {
  static const ConfigSchema all = [] {
    const ConfigSchema& core = config::core_config_keys();
    // Documentation order: experiment, engine, then workload and output.
    const std::size_t experiment_keys = config::experiment_params().schema().size();
    ConfigSchema keys(core.begin(), core.begin() + static_cast<std::ptrdiff_t>(experiment_keys));
    for (const ConfigSchema* part : {&engine_params().schema(), &run_layout_params().schema()})
      keys.insert(keys.end(), part->begin(), part->end());
    keys.insert(keys.end(), core.begin() + static_cast<std::ptrdiff_t>(experiment_keys), core.end());
    const std::string& model_key = config::experiment_params().key_of(&config::ExperimentSettings::model);
    std::string generators;
    for (const model::ModelInfo& m : model::models())
      for (const model::WorkloadGenerator& g : m.generators)
        generators += (generators.empty() ? "" : "; ") + g.name + " (" + g.description + ")";
    const std::string& generator_key = workload::source_params().key_of(&workload::Source::generator);
    for (ConfigKey& k : keys) {
      if (k.name == model_key) k.meaning += ": " + model_names();
      if (k.name == generator_key) k.meaning += ": " + generators;
    }
    for (const model::ModelInfo& m : model::models()) keys.insert(keys.end(), m.keys.begin(), m.keys.end());
    return keys;
  }();
  return all;
}

}  // namespace tracewarp::experiment
