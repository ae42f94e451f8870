// The MapReduce model as an experiment (experiment.model = "mapreduce"): its keys, tables and
// summary.
#include "tracewarp/config/settings.hpp"
#include "tracewarp/model/mapreduce/mapreduce_model.hpp"
#include "tracewarp/model/registry.hpp"

namespace tracewarp::mapreduce {
namespace {

MapReduceParams configured_params(const Config& c) {
  MapReduceParams p = param_table().read(c);
  p.context = model::run_context(c);
  return p;
}

model::RunOutput run_from_config(const Communicator& comm, const Config& c, const EngineConfig& engine) {
  const MapReduceParams p = configured_params(c);
  const MapReduceResult r = run_mapreduce(comm, p, engine);
  model::RunOutput out;
  out.stats = r.stats;
  if (comm.rank() == 0) {
    out.summary = mapreduce_summary(r);
    out.tables.push_back(model::table_of(attempt_table_schema(), r.attempts));
    out.tables.push_back(model::table_of(series_table_schema(), r.series));
  }
  return out;
}

}  // namespace

const model::ModelInfo& mapreduce_model() {
  static const model::ModelInfo info{
      "mapreduce",
      "MapReduce stragglers: Hadoop speculation vs time-window + Poisson detection (docs/studies.md#mapreduce); "
      "keys mapreduce.*",
      run_from_config,
      {&attempt_table_schema(), &series_table_schema()},
      model::keys_of(param_table()),
      {},
      [](const Config& c) { validate(configured_params(c)); }};
  return info;
}

}  // namespace tracewarp::mapreduce
