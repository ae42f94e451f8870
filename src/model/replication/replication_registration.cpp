// The replication model as an experiment (experiment.model = "replication"): its keys, tables
// and summary.
#include "tracewarp/config/settings.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/model/replication/replication_model.hpp"

namespace tracewarp::replication {

namespace {

// The replication.* keys and the run context, checked.
ReplicationParams prepare(const Config& c) {
  ReplicationParams p = replication_param_table().read(c);
  p.context = model::run_context(c);
  return p;
}

model::RunOutput output(const ReplicationResult& r, const ReplicationParams& p) {
  model::RunOutput out;
  out.summary = replication_summary(r, p);
  out.tables.push_back(model::table_of(task_table_schema(), r.tasks));
  out.tables.push_back(model::table_of(copy_table_schema(), r.copies));
  out.tables.push_back(model::table_of(series_table_schema(), r.series));
  return out;
}

}  // namespace

const model::ModelInfo& replication_model() {
  static const model::ModelInfo info = [] {
    model::ModelInfo m = model::make_model<ReplicationParams, ReplicationResult>(
        "replication",
        "bag of tasks on volatile hosts: WQR, adaptive and distributed replication (docs/studies.md#replication); "
        "keys replication.*",
        {&task_table_schema(), &copy_table_schema(), &series_table_schema()}, replication_param_table().schema(), {},
        {prepare, run_replication, output});
    m.headline = {
        "tasks", "completion_s", "ideal_bound_s", "replicas_started", "replication_success", "server_busy_fraction"};
    return m;
  }();
  return info;
}

}  // namespace tracewarp::replication
