#include "tracewarp/experiment/sweep.hpp"

#include <unistd.h>
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/serialization/map.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <future>
#include <limits>
#include <list>
#include <optional>
#include <sstream>

#include "run_dealer.hpp"
#include "tracewarp/config/settings.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/files.hpp"
#include "tracewarp/engine/partition.hpp"
#include "tracewarp/engine/stop_request.hpp"
#include "tracewarp/experiment/journal.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/results/file.hpp"

// Boost.Serialization for the value types a run's output is made of.
namespace boost::serialization {

template <class Archive>
void serialize(Archive& ar, tracewarp::RankStats& s, unsigned) {
  ar& s.committed& s.rolled_back& s.rollbacks& s.anti_messages& s.remote_sent& s.gvt_rounds& s.peak_rss_bytes& s
      .peak_engine_bytes& s.checkpoints& s.checkpoint_bytes& s.checkpoint_ms;
  ar& s.window_end_ns& s.gvt_interval_end& s.tuning_steps& s.committed_at_once;
}

template <class Archive>
void serialize(Archive& ar, tracewarp::RunStats& s, unsigned) {
  ar& s.per_rank& s.total& s.wall_s& s.ranks& s.threads& s.sync;
}

// std::variant<int64, double, string>: its index, then the value.
template <class Archive>
void save(Archive& ar, const tracewarp::AttrValue& v, unsigned) {
  const int index = static_cast<int>(v.index());
  ar << index;
  std::visit([&](const auto& x) { ar << x; }, v);
}
template <class Archive>
void load(Archive& ar, tracewarp::AttrValue& v, unsigned) {
  int index = 0;
  ar >> index;
  if (index == 0) {
    std::int64_t x = 0;
    ar >> x;
    v = x;
  } else if (index == 1) {
    double x = 0;
    ar >> x;
    v = x;
  } else {
    std::string x;
    ar >> x;
    v = x;
  }
}
template <class Archive>
void serialize(Archive& ar, tracewarp::AttrValue& v, unsigned version) {
  split_free(ar, v, version);
}

}  // namespace boost::serialization

namespace tracewarp::experiment {
namespace {

std::string_view as_chars(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// A run's output on the wire: tables by name (the receiver maps them back to its schemas).
struct WireOutput {
  std::size_t index = 0;  // of the run in the sweep
  RunStats stats;
  Attributes summary, run_attributes, measured;
  std::vector<std::pair<std::string, std::string>> tables;  // name, row bytes

  template <class Archive>
  void serialize(Archive& ar, unsigned) {
    ar& index& stats& summary& run_attributes& measured& tables;
  }
};

// Without `rows`, the tables' names only (their rows left empty).
WireOutput to_wire(const model::RunOutput& out, std::size_t index, bool rows = true) {
  WireOutput w{index, out.stats, out.summary, out.run_attributes, out.measured, {}};
  for (const model::Table& t : out.tables)
    w.tables.emplace_back(t.schema->name, rows ? std::string(as_chars(t.rows)) : std::string());
  return w;
}

model::RunOutput from_wire(WireOutput&& w, const model::ModelInfo& model) {
  model::RunOutput out{
      std::move(w.stats), std::move(w.summary), std::move(w.run_attributes), std::move(w.measured), {}};
  for (const auto& [name, bytes] : w.tables) {
    const TableSchema* schema = nullptr;
    for (const TableSchema* s : model.tables)
      if (s->name == name) schema = s;
    if (schema == nullptr) throw InvariantError("run output names an unknown table '" + name + "'");
    const auto* b = reinterpret_cast<const std::byte*>(bytes.data());
    out.tables.push_back({schema, std::vector<std::byte>(b, b + bytes.size())});
  }
  return out;
}

// `output` is the file written (-o, else output.file), which the run's output.file records.
void write_run(results::Writer& writer, const std::string& output, const config::RunSpec& run,
               const model::RunOutput& out) {
  Attributes a = out.run_attributes;
  const model::ModelInfo& model = model::find_model(run.config.get_string("experiment.model"));
  for (const auto& [k, v] : run.config.values())
    if (model.records(run.config, k)) a[k] = to_attr(v);
  a["output.file"] = output;
  a["varied"] = run.varied_text();
  a["run_index"] = static_cast<std::int64_t>(run.index);
  writer.add_run(run.id, a);
  for (const model::Table& t : out.tables)
    writer.write_table(run.id, *t.schema, t.rows.data(), t.rows.size() / t.schema->row_size);
  writer.write_summary(run.id, out.summary);
  writer.write_engine(run.id, out.stats);
}

}  // namespace

std::vector<std::string_view> SerialisedOutput::parts() const {
  std::vector<std::string_view> all{head};
  all.insert(all.end(), rows.begin(), rows.end());
  return all;
}

SerialisedOutput serialise(const model::RunOutput& out) {
  SerialisedOutput s;
  std::vector<std::size_t> sizes;
  for (const model::Table& t : out.tables) {
    s.rows.push_back(as_chars(t.rows));
    sizes.push_back(t.rows.size());
  }
  std::ostringstream archive;
  {
    boost::archive::binary_oarchive ar(archive);
    ar << to_wire(out, 0, false) << sizes;
  }
  const std::string bytes = std::move(archive).str();
  s.head = std::to_string(bytes.size()) + "\n" + bytes;
  return s;
}

model::RunOutput deserialise(std::string_view bytes, const model::ModelInfo& model) {
  const auto damaged = [] { return InputError("a recorded run output is damaged"); };
  const std::size_t line_end = bytes.find('\n');
  if (line_end == std::string_view::npos) throw damaged();
  std::size_t archive_size = 0;
  const std::string_view size_text = bytes.substr(0, line_end);
  if (std::from_chars(size_text.data(), size_text.data() + size_text.size(), archive_size).ec != std::errc() ||
      archive_size > bytes.size() - line_end - 1)
    throw damaged();
  std::istringstream in(std::string(bytes.substr(line_end + 1, archive_size)));
  WireOutput w;
  std::vector<std::size_t> sizes;
  try {  // a damaged archive throws Boost's errors, or asks for absurd sizes (bad_alloc)
    boost::archive::binary_iarchive ar(in);
    ar >> w >> sizes;
  } catch (const std::exception&) {
    throw damaged();
  }
  std::size_t at = line_end + 1 + archive_size;
  if (sizes.size() != w.tables.size()) throw damaged();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] > bytes.size() - at) throw damaged();
    w.tables[i].second = std::string(bytes.substr(at, sizes[i]));
    at += sizes[i];
  }
  if (at != bytes.size()) throw damaged();
  return from_wire(std::move(w), model);
}

GroupLayout group_layout(int world_size, int world_rank, int ranks_per_run) {
  const int per_run = ranks_per_run > 0 ? ranks_per_run : world_size;
  if (per_run > world_size || world_size % per_run != 0)
    throw UsageError("--ranks-per-run " + std::to_string(per_run) + " must divide the " + std::to_string(world_size) +
                     " ranks of the job");
  return {per_run, world_size / per_run, world_rank / per_run};
}

namespace {

constexpr int kOutputTag = 1;
// A group leader's last message to world rank 0 on kOutputTag (after all its outputs: messages
// between two ranks on one tag arrive in order): it takes no more runs.
constexpr std::size_t kLeaving = std::numeric_limits<std::size_t>::max();

// What world rank 0 tells every rank before any run starts: the runs a resumed sweep keeps; that
// the results file is complete already (--resume after the end: nothing to do); or why the sweep
// cannot start (every rank throws it, so none waits on the others).
struct SweepStart {
  std::string refusal;
  int refusal_exit_code = 2;
  bool complete = false;
  std::vector<std::size_t> kept;
  template <class Archive>
  void serialize(Archive& ar, unsigned) {
    ar& refusal& refusal_exit_code& complete& kept;
  }
};

// The output can be a file of ours: not a folder, in a folder that exists and can be written.
void check_output_path(const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(output, ec))
    throw UsageError("the output '" + output + "' is a folder: give a results file name (-o " +
                     (fs::path(output) / "results.h5").string() + ")");
  const fs::path folder = fs::path(output).has_parent_path() ? fs::path(output).parent_path() : fs::path(".");
  if (!fs::is_directory(folder, ec))
    throw UsageError("cannot write '" + output + "': the folder '" + folder.string() + "' does not exist");
  if (::access(folder.c_str(), W_OK) != 0)
    throw UsageError("cannot write '" + output + "': the folder '" + folder.string() + "' is not writable");
}

// The one lock of a results file: held by world rank 0 from before the first file is touched
// until the sweep ends, so a second run on the same output is refused and changes nothing.
FileLock lock_output(const std::string& output) {
  std::string holder;
  std::optional<FileLock> lock = FileLock::try_take(output + ".lock", holder);
  if (!lock)
    throw UsageError("'" + output + "' is being written by another run (" + holder + " holds '" + output +
                     ".lock'): wait for it to end, or write another file with -o");
  return std::move(*lock);
}

// `--resume` on a file that exists: it is complete only if this very sweep made it (same code,
// configuration and inputs); a resubmitted job with changed settings must not keep stale results.
SweepStart check_complete(const SweepJournal& journal, const std::string& output) {
  const results::Reader file(output);
  if (!file.complete())
    return {"'" + output + "' exists but is not a complete tracewarp results file: nothing to resume", 2, false, {}};
  const Attributes top = file.file_attributes();
  const auto recorded = top.find("sweep_identity");
  const std::string redo = "; run with --force to replace it, or write another file with -o";
  if (recorded == top.end())
    return {"'" + output + "' is complete, but was written by an older tracewarp that did not record what made it, " +
                "so it cannot be checked against this configuration" + redo,
            2,
            false,
            {}};
  std::string difference;
  try {
    difference = journal.identity().difference_from(SweepIdentity::parse(to_text(recorded->second)));
  } catch (const InputError& e) {
    difference = std::string("its record of what made it is ") + e.what();
  }
  if (!difference.empty())
    return {"'" + output + "' is complete but was made by another sweep (" + difference + ")" + redo, 2, false, {}};
  return {{}, 0, true, {}};
}

SweepStart open_journal(const SweepJournal& journal, bool resume, bool force, const std::string& output) {
  std::error_code ec;
  const bool journal_empty = journal.recorded_count() == 0 && journal.checkpointed_runs() == 0;
  if (std::filesystem::exists(output, ec) && journal_empty) {
    if (resume) return check_complete(journal, output);
    if (!force)
      return {"'" + output + "' exists: add --force to replace it (it stays until the new file is complete), or " +
                  "write another file with -o",
              2,
              false,
              {}};
  }
  // Nothing finished to keep and no run checkpointed: a fresh start.
  if (journal.recorded_count() == 0 && journal.checkpointed_runs() == 0) {
    if (resume) std::fprintf(stderr, "tracewarp: nothing to resume in '%s': starting\n", journal.directory().c_str());
    journal.start();
    return {};
  }
  if (!resume)
    return {"'" + journal.directory() + "' holds the finished runs (or checkpoints) of an interrupted sweep writing '" +
                output + "': add --resume to keep them and run the rest, or remove it to start again",
            2,
            false,
            {}};
  const std::optional<SweepIdentity> recorded = journal.recorded_identity();
  if (!recorded) return {"'" + journal.directory() + "' has no identity file: remove it to start again", 2, false, {}};
  const std::string difference = journal.identity().difference_from(*recorded);
  if (!difference.empty())
    return {"cannot resume '" + output + "': the interrupted sweep was another one (" + difference + "); remove '" +
                journal.directory() + "' to start again",
            2,
            false,
            {}};
  journal.clear_failure();
  return {{}, 0, false, journal.finished()};
}

// Everything world rank 0 settles before the first file is made: the output's folder and lock,
// every run's parameters and inputs (model.check), and what the journal and an existing file
// allow. The lock stays in `lock` for the whole sweep.
// The first run, by index, whose parameters or inputs model.check refuses.
struct CheckFailure {
  std::size_t index = std::numeric_limits<std::size_t>::max();  // none
  int exit_code = 2;
  std::string message;
  template <class Archive>
  void serialize(Archive& ar, unsigned) {
    ar& index& exit_code& message;
  }
};

// The engine's part of a run's check: what Simulation::run would refuse only once the sweep's
// files exist (and, in a sweep, after earlier runs ran).
void check_engine(const model::ModelInfo& model, const config::RunSpec& run, int ranks_per_run) {
  const EngineConfig engine = engine_params().read(run.config);
  if (engine.sync == SyncMode::conservative && engine.lookahead == 0 && !model.declares_lookahead)
    throw UsageError("engine.sync = \"conservative\" needs a lookahead, and the " + model.name +
                     " model declares none (its LPs send each other events without delay): use engine.sync = "
                     "\"optimistic\", or set engine.lookahead_s if the placement keeps such LPs on one rank");
  if (engine.sync == SyncMode::sequential && ranks_per_run > 1)
    throw UsageError("engine.sync = \"sequential\" runs on one rank, and each run of this sweep has " +
                     std::to_string(ranks_per_run) +
                     ": --set engine.sync=optimistic, --ranks-per-run 1 (a run per rank), or run without mpirun");
  try {
    Partition::check_file(engine.placement, ranks_per_run);
  } catch (const InputError& e) {
    throw InputError(engine_params().key_of(&EngineConfig::placement) + ": " + e.what());
  }
}

// Every rank checks its share of the runs (run i on rank i mod size: checking reads traces and
// makes generated workloads, seconds for a large sweep); world rank 0 gets the first failure.
CheckFailure check_runs(const boost::mpi::communicator& world, const model::ModelInfo& model,
                        const std::vector<config::RunSpec>& runs, int ranks_per_run) {
  CheckFailure mine;
  for (std::size_t i = static_cast<std::size_t>(world.rank()); i < runs.size();
       i += static_cast<std::size_t>(world.size())) {
    try {
      check_engine(model, runs[i], ranks_per_run);
      if (model.check) model.check(runs[i].config);
    } catch (const Error& e) {  // a sweep's message names the run, a lone run's needs no name
      const std::string where = runs.size() > 1 ? runs[i].id + " (" + runs[i].varied_text() + "): " : "";
      mine = {i, e.exit_code(), where + e.what()};
      break;
    }
  }
  std::vector<CheckFailure> all;
  boost::mpi::gather(world, mine, all, 0);
  for (const CheckFailure& f : all)
    if (f.index < mine.index) mine = f;
  return mine;
}

SweepStart decide_start(const CheckFailure& checked, const SweepJournal& journal, const SweepOptions& o,
                        const std::string& output, std::optional<FileLock>& lock) {
  if (!checked.message.empty()) return {checked.message, checked.exit_code, false, {}};
  try {
    check_output_path(output);
    lock.emplace(lock_output(output));
    return open_journal(journal, o.resume, o.force, output);
  } catch (const Error& e) {
    return {e.what(), e.exit_code(), false, {}};
  }
}

Attributes file_attributes(const SweepOptions& o, const config::Experiment& experiment, const std::string& model,
                           std::size_t runs, int world_size, int ranks_per_run, const SweepIdentity& identity) {
  Attributes top = o.file_attributes;
  top["config"] = experiment.text;
  top["config_file"] = experiment.source;
  std::string overrides;
  for (const std::string& s : experiment.overrides) overrides += (overrides.empty() ? "" : " ") + s;
  top["overrides"] = overrides;
  std::string lines;  // the same, one --set value a line: a value may hold spaces
  for (const std::string& s : experiment.overrides) lines += s + "\n";
  top["set_options"] = lines;
  top["model"] = model;
  top["runs"] = static_cast<std::int64_t>(runs);
  top["ranks"] = static_cast<std::int64_t>(world_size);
  top["ranks_per_run"] = static_cast<std::int64_t>(ranks_per_run);
  top["sweep_identity"] = identity.text();  // what `run --resume` checks a complete file against
  return top;
}

std::string text_attribute(const Attributes& a, const char* key) {
  const auto it = a.find(key);
  return it == a.end() ? std::string("unknown") : to_text(it->second);
}

}  // namespace

namespace {

// One sweep under way, as every rank sees it.
struct Sweep {
  const Communicator& world;
  const Communicator& comm;  // this rank's group
  GroupLayout layout;
  const model::ModelInfo& model;
  const config::Experiment& experiment;
  const std::vector<config::RunSpec>& runs;
  const SweepJournal& journal;
  const SweepOptions& o;
  std::string output;
};

// Runs every run not kept, dealt to the groups; world rank 0 writes them all and finishes the file.
// World rank 0's end of a sweep: each run's output, its own or another group leader's, recorded
// in the journal (unless that leader could) and written to the HDF5 file, flushed, as it arrives.
class ResultsSink {
 public:
  ResultsSink(const Sweep& sweep, std::size_t expected)
      : sweep_(sweep),
        control_(sweep.world.as_boost()),
        writer_(sweep.output,
                file_attributes(sweep.o, sweep.experiment, sweep.model.name, sweep.runs.size(), sweep.world.size(),
                                sweep.layout.ranks_per_run, sweep.journal.identity())),
        unwritten_(expected) {}

  // The journal's record (what a resumed sweep keeps) and the HDF5 tables are written at the
  // same time: they only read the same output. Both are done when this returns.
  void write(const config::RunSpec& run, const model::RunOutput& out, bool journaled) {
    std::future<void> recorded;
    if (!journaled)
      recorded = std::async(std::launch::async, [&] { sweep_.journal.record(run, serialise(out).parts()); });
    write_run(writer_, sweep_.output, run, out);
    writer_.flush();
    if (recorded.valid()) recorded.get();
    if (sweep_.o.on_written) sweep_.o.on_written(run, out);
  }
  // One of the runs it expects, run here.
  void write_own(const config::RunSpec& run, const model::RunOutput& out) {
    --unwritten_;
    write(run, out, false);
    sweep_.journal.remove_checkpoints(run.index);
  }
  // The outputs other leaders have sent; with `wait`, until every other leader has left.
  void receive(bool wait) {
    while (leaders_left_ > 0) {
      if (!wait && !control_.iprobe(boost::mpi::any_source, kOutputTag)) return;
      WireOutput w;
      control_.recv(boost::mpi::any_source, kOutputTag, w);
      if (w.index == kLeaving) {
        --leaders_left_;
        continue;
      }
      --unwritten_;
      const config::RunSpec& run = sweep_.runs.at(w.index);
      write(run, from_wire(std::move(w), sweep_.model), sweep_.journal.has(run.index));
    }
  }
  // Whether every run it expected was written (not so after a stop).
  bool complete() const { return unwritten_ == 0; }
  void finish() {
    writer_.finish();
    sweep_.journal.remove();
  }

 private:
  const Sweep& sweep_;
  boost::mpi::communicator control_;
  results::Writer writer_;
  std::size_t unwritten_;                        // runs still to be written (its own, or received)
  int leaders_left_ = sweep_.layout.groups - 1;  // other group leaders still taking runs
};

// A group leader other than world rank 0: records its runs in the journal where it can see it
// (a shared file system), and sends each output to rank 0 without waiting for it.
class OutputSender {
 public:
  explicit OutputSender(const Sweep& sweep)
      : sweep_(sweep), control_(sweep.world.as_boost()), journal_here_(sweep.journal.exists()) {}
  void send(const config::RunSpec& run, const model::RunOutput& out) {
    WireOutput& w = sending_.emplace_back(to_wire(out, run.index));
    if (journal_here_) {
      sweep_.journal.record(run, serialise(out).parts());
      sweep_.journal.remove_checkpoints(run.index);
    }
    requests_.push_back(control_.isend(0, kOutputTag, w));
  }
  // After its last run: says it leaves, and waits for its sends.
  void leave() {
    requests_.push_back(control_.isend(0, kOutputTag, sending_.emplace_back(WireOutput{kLeaving, {}, {}, {}, {}, {}})));
    boost::mpi::wait_all(requests_.begin(), requests_.end());
  }

 private:
  const Sweep& sweep_;
  boost::mpi::communicator control_;
  bool journal_here_;
  std::list<WireOutput> sending_;  // alive until their sends complete
  std::vector<boost::mpi::request> requests_;
};

// How one run of the sweep executes: its engine keys, its checkpoints in the journal.
EngineConfig engine_for(const Sweep& sweep, const config::RunSpec& run) {
  EngineConfig engine = engine_params().read(run.config);
  engine.checkpoint_dir = sweep.journal.checkpoint_directory(run.index);
  engine.identity = sweep.journal.checkpoint_identity(run.index);
  engine.resume = sweep.o.resume;
  return engine;
}

// Runs every run not kept: each group's leader takes the next run when its group is free and
// tells the group; world rank 0 writes every output and finishes the file.
void run_all(const Sweep& sweep, const SweepStart& start) {
  const auto& [world, comm, layout, model, experiment, runs, journal, o, output] = sweep;
  std::vector<bool> kept(runs.size(), false);
  for (const std::size_t i : start.kept) kept.at(i) = true;
  std::vector<std::size_t> to_run;
  for (const config::RunSpec& run : runs)
    if (!kept[run.index]) to_run.push_back(run.index);

  std::optional<ResultsSink> sink;
  std::optional<OutputSender> sender;
  if (world.rank() == 0) {
    sink.emplace(sweep, to_run.size());
    const std::size_t checkpointed = o.resume ? journal.checkpointed_runs() : 0;
    if (o.on_resumed && (!start.kept.empty() || checkpointed > 0))
      o.on_resumed(start.kept.size(), checkpointed, runs.size());
    for (const std::size_t i : start.kept) sink->write(runs[i], deserialise(journal.load(i), model), true);
  } else if (comm.rank() == 0) {
    sender.emplace(sweep);
  }

  RunDealer dealer(world.as_boost(), to_run.size(), layout.group, layout.groups);
  if (world.rank() == 0 && world.size() > 1 && !dealer.dynamic())
    std::fprintf(stderr,
                 "tracewarp: note: MPI makes no one-sided window across these ranks (Open MPI over TCP between nodes, "
                 "without UCX): the runs are dealt to the groups in turn, not as each becomes free\n");
  const std::size_t stop = to_run.size() + 1;  // a leader's answer after a stop request
  for (;;) {
    // The others may wait here while the leader writes its run's results, with every core.
    const std::size_t taken = comm.broadcast_waiting_idle(comm.rank() != 0   ? 0
                                                          : stop_requested() ? stop
                                                                             : dealer.take());
    if (taken >= to_run.size()) break;
    const config::RunSpec& run = runs[to_run[taken]];
    EngineConfig engine = engine_for(sweep, run);
    std::function<void(const Progress&)> display;
    if (o.progress && world.rank() == 0) display = o.progress(run);
    if (sink)  // takes other groups' outputs while its own run goes on
      engine.progress = [&sink, display](const Progress& p) {
        sink->receive(false);
        if (display) display(p);
      };
    std::optional<model::RunOutput> out;
    try {
      out.emplace(model.run(comm, run.config, engine));
    } catch (const StoppedError&) {  // every rank of the group, after its checkpoint
      break;
    }
    if (sink) {
      sink->write_own(run, *out);
      sink->receive(false);
    } else if (sender) {
      sender->send(run, *out);
    }
  }
  if (sender) sender->leave();
  if (sink) sink->receive(true);  // before the dealer finishes: the last leaders' sends need it
  dealer.finish();
  // After a stop request some runs are not written: every rank ends with StoppedError, and the
  // journal keeps what --resume needs.
  std::uint64_t unfinished[1] = {sink && !sink->complete() ? 1u : 0u};
  world.sum(unfinished);
  if (unfinished[0] == 0) {
    if (sink) sink->finish();
    return;
  }
  throw StoppedError("stopped on request (SIGUSR1): the finished runs are kept in '" + journal.directory() +
                     "' and runs in progress saved at a checkpoint: run the same command with --resume to go on");
}

}  // namespace

namespace {
// --ranks-per-run, else engine.ranks_per_run; unset (0), all ranks together (0) where the runs
// synchronise across ranks, and one rank each where every run is sequential (engine.sync's
// default, which runs on one rank): the ranks then share out the runs, and `mpirun -np 4` on a
// sweep of sequential runs runs four at a time instead of refusing.
int ranks_per_run(const SweepOptions& o, const config::Experiment& experiment,
                  const std::vector<config::RunSpec>& runs) {
  if (o.ranks_per_run > 0) return o.ranks_per_run;
  const auto configured = static_cast<int>(run_layout_params().read(experiment.base).ranks_per_run);
  if (configured > 0) return configured;
  const bool sequential = std::all_of(runs.begin(), runs.end(), [](const config::RunSpec& run) {
    return engine_params().read(run.config).sync == SyncMode::sequential;
  });
  return sequential ? 1 : 0;
}
}  // namespace

std::string run_sweep(const Communicator& world, const config::Experiment& experiment, const SweepOptions& o) {
  const model::ModelInfo& model = model::find_model(model_params().read(experiment.base).model);
  const std::vector<config::RunSpec> runs = experiment.runs();
  for (const config::RunSpec& run : runs) engine_params().read(run.config);  // every run valid before any runs
  const GroupLayout layout = group_layout(world.size(), world.rank(), ranks_per_run(o, experiment, runs));
  const Communicator comm = world.split(layout.group, world.rank());
  const std::string output = o.output.empty() ? config::output_params().read(experiment.base).file : o.output;
  const boost::mpi::communicator control = world.as_boost();
  const SweepJournal journal(
      output, SweepIdentity::of(experiment, runs, model.name, text_attribute(o.file_attributes, "tool_version"),
                                text_attribute(o.file_attributes, "git_revision")));

  // Every run's parameters and inputs are checked, then world rank 0 decides (output, lock,
  // journal, resume) and tells everyone before any file is made.
  SweepStart start;
  std::optional<FileLock> lock;
  const CheckFailure checked = check_runs(control, model, runs, layout.ranks_per_run);
  if (world.rank() == 0) start = decide_start(checked, journal, o, output, lock);
  boost::mpi::broadcast(control, start, 0);
  if (!start.refusal.empty()) {
    if (start.refusal_exit_code == 2) throw UsageError(start.refusal);
    throw SharedRunError(start.refusal);
  }
  if (start.complete) {
    if (world.rank() == 0)
      std::fprintf(stderr, "tracewarp: '%s' is complete (%zu runs): nothing to resume\n", output.c_str(), runs.size());
    return output;
  }
  try {
    run_all({world, comm, layout, model, experiment, runs, journal, o, output}, start);
  } catch (const IoError& e) {  // a full disk, say: what is finished is in the journal
    if (world.rank() != 0) throw;
    journal.record_failure(e.what());
    throw IoError("writing '" + output + "': " + e.what() + "; the finished runs are kept in '" + journal.directory() +
                  "': make room, then run the same command with --resume");
  } catch (const StoppedError&) {
    throw;  // not a failure: --resume goes on
  } catch (const std::exception& e) {
    if (world.rank() == 0) journal.record_failure(e.what());
    throw;
  }
  return output;
}

}  // namespace tracewarp::experiment
