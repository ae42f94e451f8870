#include "tracewarp/config/settings.hpp"

namespace tracewarp::config {

const ParamTable<ExperimentSettings>& experiment_params() {
  using P = ExperimentSettings;
  static const ParamTable<P> table =
      ParamTable<P>("experiment")
          .text("name", &P::name, "name stored in the results file")
          .integer("seed", &P::seed, "random seed of the first replication")
          .integer("replications", &P::replications,
                   "runs per sweep point, with seeds seed, seed+1, ... (varied fastest)", {.min = 1})
          .for_whole_sweep();
  return table;
}

const ParamTable<OutputSettings>& output_params() {
  using P = OutputSettings;
  static const ParamTable<P> table =
      ParamTable<P>("output")
          .text("file", &P::file, "results file (HDF5); -o overrides")
          .for_whole_sweep()
          .seconds("series_interval_s", &P::series_interval,
                   "sampling interval of the series tables, simulated seconds", {.min = 1e-9});
  return table;
}

}  // namespace tracewarp::config
