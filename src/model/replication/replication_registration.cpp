// The replication model as an experiment (experiment.model = "replication"): its keys, tables
// and summary.
#include <cstdio>

#include "tracewarp/config/settings.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/memory.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/model/replication/replication_model.hpp"

namespace tracewarp::replication {

namespace {

// A run whose results cannot fit is refused before any file: rank 0 gathers a task row and at
// least one copy row per task, whatever the rank count (a lower bound: it never refuses a run
// that would fit; the engine's budget watches the rest as the run goes).
void refuse_rows_beyond_memory(const ReplicationParams& p) {
  const double need = static_cast<double>(p.tasks) * static_cast<double>(sizeof(TaskRow) + sizeof(CopyRow));
  const double usable = static_cast<double>(usable_memory_bytes());
  if (usable <= 0 || need <= usable) return;
  char text[200];
  std::snprintf(text, sizeof text,
                "replication.tasks = %llu: its result rows alone need %.1f GB on rank 0, more than the %.1f GB this "
                "process may use",
                static_cast<unsigned long long>(p.tasks), need / 1e9, usable / 1e9);
  throw ConfigError(std::string(text) + "; run fewer tasks, or on a machine with more memory");
}

// The replication.* keys and the run context, checked.
ReplicationParams prepare(const Config& c) {
  ReplicationParams p = replication_param_table().read(c);
  p.context = model::run_context(c);
  refuse_rows_beyond_memory(p);
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
