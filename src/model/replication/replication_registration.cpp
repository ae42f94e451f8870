// The replication model as an experiment (experiment.model = "replication"): its keys, tables
// and summary.
#include "tracewarp/config/settings.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/model/replication/replication_model.hpp"

namespace tracewarp::replication {

namespace {
ReplicationParams configured_params(const Config& c) {
  ReplicationParams p = replication_param_table().read(c);
  p.context = model::run_context(c);
  return p;
}

model::RunOutput run_from_config(const Communicator& comm, const Config& c, const EngineConfig& engine) {
  const ReplicationParams p = configured_params(c);
  const ReplicationResult r = run_replication(comm, p, engine);
  model::RunOutput out;
  out.stats = r.stats;
  out.summary = replication_summary(r, p);
  if (comm.rank() == 0) {
    out.tables.push_back(model::table_of(task_table_schema(), r.tasks));
    out.tables.push_back(model::table_of(copy_table_schema(), r.copies));
    out.tables.push_back(model::table_of(series_table_schema(), r.series));
  }
  return out;
}
}  // namespace

const model::ModelInfo& replication_model() {
  static const model::ModelInfo info{"replication",
                                     "bag of tasks on volatile hosts: WQR, adaptive and distributed replication "
                                     "(docs/studies.md#replication); keys replication.*",
                                     run_from_config,
                                     {&task_table_schema(), &copy_table_schema(), &series_table_schema()},
                                     replication_param_table().schema(),
                                     {},
                                     [](const Config& c) { configured_params(c); }};
  return info;
}

}  // namespace tracewarp::replication
