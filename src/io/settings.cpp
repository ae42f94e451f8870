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

const ParamTable<WorkloadSource>& workload_source_params() {
  using P = WorkloadSource;
  static const ParamTable<P> table =
      ParamTable<P>("workload")
          .text("generator", &P::generator, "a model's workload generator instead of a trace")
          .text("trace", &P::trace, "trace file; ${TRACEWARP_DATA} expands to the data folder (default ../shared/data)")
          .text("format", &P::format, "trace format (see tracewarp inspect --help)")
          .integer("cores_per_node", &P::cores_per_node,
                   "SWF processors per node (0 = from the header: MaxProcs/MaxNodes when whole, else 1 with the "
                   "machine in processors; io/swf.hpp)")
          .choice("missing_requested", &P::missing_requested, {"run-time", "drop"},
                  "SWF jobs without requested time: use their run time, or drop them");
  return table;
}

const ParamTable<WorkloadTransforms>& workload_transform_params() {
  using P = WorkloadTransforms;
  static const ParamTable<P> table =
      ParamTable<P>("workload")
          .flag("successful_only", &P::successful_only,
                "keep only jobs that completed (SWF status 1) with a requested time they did not overrun: the WRSA "
                "study's Original workload (applied first)")
          .number("min_run_s", &P::min_run_s, "drop jobs that ran less than this, seconds (after successful_only)",
                  {.min = 0, .max = 1e9})
          .integer("window_start", &P::window_start, "skip this many jobs (after min_run_s)")
          .integer("window_jobs", &P::window_jobs, "then keep this many jobs (0 = all)")
          .number("wra", &P::wra, "walltime request accuracy transform: requested := run / wra (0 = original requests)",
                  {.min = 0, .max = 1})
          .number("iat_scale", &P::iat_scale, "multiply the gaps between submissions (0.5 = twice the load)",
                  {.min = 1e-9, .max = 1e6})
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
    for (const ConfigSchema* part : {&experiment_params().schema(), &workload_source_params().schema(),
                                     &workload_transform_params().schema(), &output_params().schema()})
      all.insert(all.end(), part->begin(), part->end());
    return all;
  }();
  return keys;
}

}  // namespace tracewarp::io
