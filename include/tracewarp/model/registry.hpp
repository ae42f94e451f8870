// Models by name, as `experiment.model` selects them. Each model registers itself from its own
// folder (model/<name>/<name>_registration.cpp: its keys, its workload generators, its tables
// and its run function); the list of models is in registry.cpp, one line each.
//
// A model builds its LPs on the given communicator, runs, and returns its committed outputs
// gathered on the communicator's rank 0, already in their deterministic order (sorted by id or
// time), so that results do not depend on the rank count.
#pragma once

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tracewarp/config/experiment.hpp"
#include "tracewarp/core/memory.hpp"
#include "tracewarp/core/stats.hpp"
#include "tracewarp/core/tables.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/config.hpp"
#include "tracewarp/jobs/job.hpp"
#include "tracewarp/model/run_context.hpp"

namespace tracewarp::model {

struct Table {
  const TableSchema* schema;
  std::vector<std::byte> rows;  // schema->row_size bytes per row
};

// The rows of a plain struct as a table of `schema`. Large tables are copied onto huge pages:
// the replication scale run's tables (110 MB) spent most of their copy in page faults.
template <class Row>
Table table_of(const TableSchema& schema, const std::vector<Row>& rows) {
  Table t{&schema, {}};
  reserve_huge(t.rows, rows.size() * sizeof(Row));
  t.rows.resize(rows.size() * sizeof(Row));
  if (!rows.empty()) std::memcpy(t.rows.data(), rows.data(), t.rows.size());
  return t;
}

struct RunOutput {
  RunStats stats;
  Attributes summary;         // headline metrics (deterministic: no wall-clock values)
  Attributes run_attributes;  // e.g. workload transforms and reader tallies
  Attributes measured;        // wall-clock measurements of the model (printed, not deterministic)
  std::vector<Table> tables;  // only on rank 0 of the communicator
};

// A workload a model can make instead of reading a trace (`workload.generator = name`). The
// workload it returns is already transformed by the workload.* keys.
struct WorkloadGenerator {
  std::string name;
  std::string section;  // its keys' section (kmix: kmix.*), recorded only for the runs it generates
  std::string description;
  std::function<workload::Workload(const Config&)> make;
};

struct ModelInfo {
  std::string name;
  std::string description;
  std::function<RunOutput(const Communicator&, const Config&, const EngineConfig&)> run;
  std::vector<const TableSchema*> tables;  // for the documentation
  ConfigSchema keys;                       // the model's own sections
  std::vector<WorkloadGenerator> generators;
  // Reads and checks one run's parameters and inputs as `run` would, without running it (the
  // workload is read and kept for the run: see configured_workload). Called for every run of an
  // experiment before any file is made, so a bad value or trace stops it before it starts.
  std::function<void(const Config&)> check;
  bool reads_workload = false;  // its runs read workload.* (a trace or a generator)
  // Whether its LPs declare a lookahead (a least delay between them), which conservative
  // execution needs: a sweep refuses engine.sync = "conservative" without one before it starts.
  bool declares_lookahead = true;

  // The summary figures a table of runs shows unless told others (run and report --columns).
  std::vector<std::string> headline = {};
  // Keys of this model that a run of the given configuration leaves unread (another batch
  // policy's, say); null: none.
  std::function<bool(const Config&, const std::string& key)> unused_by = {};

  // Whether a key says something about this model's runs: its own keys, the experiment, engine
  // and output sections, and workload.* when it reads a workload.
  bool describes(const std::string& key) const;
  // Whether a run's results record the key: described, and read by that run. A generator's keys
  // are recorded only for the runs it generates, a trace's only for runs that read one, and
  // unused_by leaves out the model's own, so that a results file states what the run used.
  bool records(const Config& run, const std::string& key) const;
};

// A model as an experiment runs it, from its own three parts; make_model writes the rest once.
//   prepare: the run's inputs from its configuration, every key and input checked (its
//            parameters; the workload for models that read one). It is the model's check too,
//            so a check reads exactly what a run reads.
//   run:     the simulation, on the run's communicator.
//   output:  the summary, attributes and tables of a result (tables are kept on rank 0 alone,
//            where the model gathers its rows; the engine statistics are added).
// What a model that reads a workload prepares: the workload, and its parameters.
template <class Params>
struct WithWorkload {
  workload::Workload workload;
  Params params;
};

template <class Prepared, class Result>
struct ModelParts {
  std::function<Prepared(const Config&)> prepare;
  std::function<Result(const Communicator&, const Prepared&, const EngineConfig&)> run;
  std::function<RunOutput(const Result&, const Prepared&)> output;
};

template <class T>
inline constexpr bool is_with_workload = false;
template <class Params>
inline constexpr bool is_with_workload<WithWorkload<Params>> = true;

// The series tables hold a row per output.series_interval_s of simulated time: a run that reaches
// `horizon` at least with more than kMaxSeriesRows of them is refused (ConfigError naming the
// key) before any file, rather than running out of memory, or sampling forever, after.
inline constexpr double kMaxSeriesRows = 1e7;
void check_series_rows(const Config& config, Time horizon);

template <class Prepared, class Result>
ModelInfo make_model(std::string name, std::string description, std::vector<const TableSchema*> tables,
                     ConfigSchema keys, std::vector<WorkloadGenerator> generators, ModelParts<Prepared, Result> parts) {
  ModelInfo info{std::move(name), std::move(description), {}, std::move(tables),
                 std::move(keys), std::move(generators),  {}};
  info.run = [parts](const Communicator& comm, const Config& c, const EngineConfig& engine) {
    const Prepared prepared = parts.prepare(c);
    const Result result = parts.run(comm, prepared, engine);
    RunOutput out = parts.output(result, prepared);
    out.stats = result.stats;
    if (comm.rank() != 0) out.tables.clear();
    return out;
  };
  info.check = [prepare = parts.prepare](const Config& c) {
    const Prepared prepared = prepare(c);
    if constexpr (is_with_workload<Prepared>)  // a replay runs at least until its last submission
      check_series_rows(c, prepared.workload.jobs.empty() ? 0 : prepared.workload.jobs.back().submit);
  };
  info.reads_workload = is_with_workload<Prepared> || !info.generators.empty();
  return info;
}

const std::vector<ModelInfo>& models();

// workload.generator: a model's generator instead of a trace (one of the models' generators).
struct GeneratorChoice {
  std::string generator;  // empty: the trace of workload.trace
};
const ParamTable<GeneratorChoice>& generator_params();
const ModelInfo& find_model(const std::string& name);  // throws ConfigError
// The workload of a configuration: the trace of workload.trace, or the generator named by
// workload.generator (whichever model declares it), transformed by the workload.* keys. A
// workload without jobs is refused (InputError naming what was read and dropped). The last
// trace read stays in memory, so that the runs of a sweep, and a run after its check, read it
// once.
workload::Workload configured_workload(const Config& config);

// A workload's provenance as run attributes: source, transforms, records read, dropped, repaired,
// and the readers' notes (workload.notes) when there are any.
Attributes workload_attributes(const workload::Workload& w);
// The readers' notes (a machine size chosen for an ambiguous header) on stderr, each once per
// process; models call it on their run's first rank.
void tell_workload_notes(const workload::Workload& w);

// The keys of several parameter tables, in order (a model's `keys`).
template <class... Tables>
ConfigSchema keys_of(const Tables&... tables) {
  ConfigSchema all;
  (all.insert(all.end(), tables.schema().begin(), tables.schema().end()), ...);
  return all;
}

}  // namespace tracewarp::model
