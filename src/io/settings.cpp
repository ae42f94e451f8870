#include "tracewarp/io/settings.hpp"

namespace tracewarp::io {

const ParamTable<ExperimentSettings>& experiment_params() {
  using P = ExperimentSettings;
  static const ParamTable<P> table =
      ParamTable<P>("experiment")
          .text("name", &P::name, "name stored in the results file")
          .text("model", &P::model, "the model to run")
          .integer("seed", &P::seed, "random seed of the first replication")
          .integer("replications", &P::replications,
                   "runs per sweep point, with seeds seed, seed+1, ... (varied fastest)", {.min = 1});
  return table;
}

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
          .mapped("sync", &P::sync, "sequential, optimistic or rollback-check", show_sync, parse_sync)
          .integer("threads", &P::threads, "TBB threads per rank for event handlers", {.min = 1})
          .mapped("placement", &P::placement, "LP placement: block, round-robin or a partition file", show_placement,
                  parse_place)
          .integer("gvt_interval", &P::gvt_interval, "events a rank executes between GVT rounds", {.min = 1})
          .integer("poll_interval", &P::poll_interval, "events between remote message exchanges", {.min = 1})
          .mapped("window_s", &P::optimism_window, "optimism window ahead of GVT, simulated seconds (0 = none)",
                  show_window, parse_window)
          .mapped("memory_budget_mib", &P::memory_budget_bytes,
                  "engine memory per rank, MiB (0 = half the node's memory over its ranks)", show_mib, parse_mib);
  return table;
}

const ParamTable<RunLayout>& run_layout_params() {
  static const ParamTable<RunLayout> table = ParamTable<RunLayout>("engine").integer(
      "ranks_per_run", &RunLayout::ranks_per_run,
      "ranks that run one run of a sweep together (0 = all ranks); also --ranks-per-run");
  return table;
}

const ParamTable<WorkloadSource>& workload_source_params() {
  using P = WorkloadSource;
  static const ParamTable<P> table =
      ParamTable<P>("workload")
          .text("generator", &P::generator, "a model's workload generator instead of a trace")
          .text("trace", &P::trace, "trace file; ${TRACEWARP_DATA} expands to the data folder (default ../shared/data)")
          .text("format", &P::format, "trace format (see tracewarp inspect --help)")
          .integer("cores_per_node", &P::cores_per_node,
                   "SWF processors per node (0 = MaxProcs/MaxNodes of the header, else 1)")
          .choice("missing_requested", &P::missing_requested, {"run-time", "drop"},
                  "SWF jobs without requested time: use their run time, or drop them");
  return table;
}

const ParamTable<WorkloadTransforms>& workload_transform_params() {
  using P = WorkloadTransforms;
  static const ParamTable<P> table =
      ParamTable<P>("workload")
          .number("min_run_s", &P::min_run_s, "drop jobs that ran less than this, seconds (applied first)")
          .integer("window_start", &P::window_start, "skip this many jobs (after min_run_s)")
          .integer("window_jobs", &P::window_jobs, "then keep this many jobs (0 = all)")
          .number("wra", &P::wra, "walltime request accuracy transform: requested := run / wra (0 = original requests)")
          .number("iat_scale", &P::iat_scale, "multiply the gaps between submissions (0.5 = twice the load)")
          .integer("scale_nodes_to", &P::scale_nodes_to,
                   "scale node counts to a machine of this many nodes (ceil, at least 1; 0 = keep)")
          .integer("machine_nodes", &P::machine_nodes,
                   "node count of the traced machine for node scaling (0 = MaxNodes of the header)");
  return table;
}

const ParamTable<OutputSettings>& output_params() {
  using P = OutputSettings;
  static const ParamTable<P> table =
      ParamTable<P>("output")
          .text("file", &P::file, "results file (HDF5); -o overrides")
          .seconds("series_interval_s", &P::series_interval,
                   "sampling interval of the series tables, simulated seconds", {.min = 1e-9});
  return table;
}

const ConfigSchema& core_config_keys() {
  static const ConfigSchema keys = [] {
    ConfigSchema all;
    for (const ConfigSchema* part :
         {&experiment_params().schema(), &engine_params().schema(), &run_layout_params().schema(),
          &workload_source_params().schema(), &workload_transform_params().schema(), &output_params().schema()})
      all.insert(all.end(), part->begin(), part->end());
    return all;
  }();
  return keys;
}

}  // namespace tracewarp::io
