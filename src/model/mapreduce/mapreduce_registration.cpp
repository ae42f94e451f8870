// The MapReduce model as an experiment (experiment.model = "mapreduce"): its keys, tables and
// summary.
#include "tracewarp/config/settings.hpp"
#include "tracewarp/model/mapreduce/mapreduce_model.hpp"
#include "tracewarp/model/registry.hpp"

namespace tracewarp::mapreduce {
namespace {

// The mapreduce.* keys and the run context, checked.
MapReduceParams prepare(const Config& c) {
  MapReduceParams p = param_table().read(c);
  p.context = model::run_context(c);
  validate(p);
  model::check_series_rows(c, static_cast<Time>(p.jobs - 1) * p.job_interval);  // the last job's submission
  return p;
}

model::RunOutput output(const MapReduceResult& r, const MapReduceParams&) {
  model::RunOutput out;
  out.summary = mapreduce_summary(r);
  out.tables.push_back(model::table_of(attempt_table_schema(), r.attempts));
  out.tables.push_back(model::table_of(series_table_schema(), r.series));
  return out;
}

}  // namespace

const model::ModelInfo& mapreduce_model() {
  static const model::ModelInfo info = [] {
    model::ModelInfo m = model::make_model<MapReduceParams, MapReduceResult>(
        "mapreduce",
        "MapReduce stragglers: Hadoop speculation vs time-window + Poisson detection (docs/studies.md#mapreduce); "
        "keys mapreduce.*",
        {&attempt_table_schema(), &series_table_schema()}, model::keys_of(param_table()), {},
        {prepare, run_mapreduce, output});
    m.headline = {"job_completion_s", "judgements_map",     "judgements_reduce",
                  "false_judgements", "speculative_copies", "re_executions"};
    return m;
  }();
  return info;
}

}  // namespace tracewarp::mapreduce
