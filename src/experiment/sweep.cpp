#include "tracewarp/experiment/sweep.hpp"

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/serialization/map.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>
#include <cstdio>
#include <future>
#include <list>
#include <optional>
#include <sstream>

#include "run_dealer.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/experiment/journal.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/io/settings.hpp"

// Boost.Serialization for the value types a run's output is made of.
namespace boost::serialization {

template <class Archive>
void serialize(Archive& ar, tracewarp::RankStats& s, unsigned) {
  ar& s.committed& s.rolled_back& s.rollbacks& s.anti_messages& s.remote_sent& s.gvt_rounds& s.peak_rss_bytes& s
      .peak_engine_bytes& s.checkpoints& s.checkpoint_bytes& s.checkpoint_ms;
}

template <class Archive>
void serialize(Archive& ar, tracewarp::RunStats& s, unsigned) {
  ar& s.per_rank& s.total& s.wall_s& s.ranks& s.threads& s.sync;
}

// std::variant<int64, double, string>: its index, then the value.
template <class Archive>
void save(Archive& ar, const tracewarp::io::AttrValue& v, unsigned) {
  const int index = static_cast<int>(v.index());
  ar << index;
  std::visit([&](const auto& x) { ar << x; }, v);
}
template <class Archive>
void load(Archive& ar, tracewarp::io::AttrValue& v, unsigned) {
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
void serialize(Archive& ar, tracewarp::io::AttrValue& v, unsigned version) {
  split_free(ar, v, version);
}

}  // namespace boost::serialization

namespace tracewarp::experiment {
namespace {

// A run's output on the wire: tables by name (the receiver maps them back to its schemas).
struct WireOutput {
  std::size_t index = 0;  // of the run in the sweep
  RunStats stats;
  io::Attributes summary, run_attributes, measured;
  std::vector<std::pair<std::string, std::string>> tables;  // name, row bytes

  template <class Archive>
  void serialize(Archive& ar, unsigned) {
    ar& index& stats& summary& run_attributes& measured& tables;
  }
};

WireOutput to_wire(const model::RunOutput& out, std::size_t index) {
  WireOutput w{index, out.stats, out.summary, out.run_attributes, out.measured, {}};
  for (const model::Table& t : out.tables)
    w.tables.emplace_back(t.schema->name, std::string(reinterpret_cast<const char*>(t.rows.data()), t.rows.size()));
  return w;
}

model::RunOutput from_wire(WireOutput&& w, const model::ModelInfo& model) {
  model::RunOutput out{
      std::move(w.stats), std::move(w.summary), std::move(w.run_attributes), std::move(w.measured), {}};
  for (const auto& [name, bytes] : w.tables) {
    const io::TableSchema* schema = nullptr;
    for (const io::TableSchema* s : model.tables)
      if (s->name == name) schema = s;
    if (schema == nullptr) throw InvariantError("run output names an unknown table '" + name + "'");
    const auto* b = reinterpret_cast<const std::byte*>(bytes.data());
    out.tables.push_back({schema, std::vector<std::byte>(b, b + bytes.size())});
  }
  return out;
}

void write_run(io::ResultsWriter& writer, const io::RunSpec& run, const model::RunOutput& out) {
  io::Attributes a = out.run_attributes;
  for (const auto& [k, v] : run.config.values()) a[k] = io::to_attr(v);
  a["varied"] = run.varied_text();
  a["run_index"] = static_cast<std::int64_t>(run.index);
  writer.add_run(run.id, a);
  for (const model::Table& t : out.tables)
    writer.write_table(run.id, *t.schema, t.rows.data(), t.rows.size() / t.schema->row_size);
  writer.write_summary(run.id, out.summary);
  writer.write_engine(run.id, out.stats);
}

}  // namespace

std::string serialise(const model::RunOutput& out) {
  std::ostringstream bytes;
  boost::archive::binary_oarchive ar(bytes);
  const WireOutput w = to_wire(out, 0);
  ar << w;
  return bytes.str();
}

model::RunOutput deserialise(const std::string& bytes, const model::ModelInfo& model) {
  std::istringstream in(bytes);
  boost::archive::binary_iarchive ar(in);
  WireOutput w;
  ar >> w;
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

// What world rank 0 tells every rank before any run starts: the runs a resumed sweep keeps, or
// why the sweep cannot start (every rank throws it, so none waits on the others).
struct SweepStart {
  std::string refusal;
  std::vector<std::size_t> kept;
  template <class Archive>
  void serialize(Archive& ar, unsigned) {
    ar& refusal& kept;
  }
};

SweepStart open_journal(const SweepJournal& journal, bool resume, const std::string& output) {
  // Nothing finished to keep and no run checkpointed: a fresh start.
  if (journal.recorded_count() == 0 && journal.checkpointed_runs() == 0) {
    if (resume) std::fprintf(stderr, "tracewarp: nothing to resume in '%s': starting\n", journal.directory().c_str());
    journal.start();
    return {};
  }
  if (!resume)
    return {"'" + journal.directory() + "' holds the finished runs (or checkpoints) of an interrupted sweep writing '" +
                output + "': add --resume to keep them and run the rest, or remove it to start again",
            {}};
  const std::optional<SweepIdentity> recorded = journal.recorded_identity();
  if (!recorded) return {"'" + journal.directory() + "' has no identity file: remove it to start again", {}};
  const std::string difference = journal.identity().difference_from(*recorded);
  if (!difference.empty())
    return {"cannot resume '" + output + "': the interrupted sweep was another one (" + difference + "); remove '" +
                journal.directory() + "' to start again",
            {}};
  return {{}, journal.finished()};
}

io::Attributes file_attributes(const SweepOptions& o, const io::Experiment& experiment, const std::string& model,
                               std::size_t runs, int world_size, int ranks_per_run) {
  io::Attributes top = o.file_attributes;
  top["config"] = experiment.text;
  top["config_file"] = experiment.source;
  std::string overrides;
  for (const std::string& s : experiment.overrides) overrides += (overrides.empty() ? "" : " ") + s;
  top["overrides"] = overrides;
  top["model"] = model;
  top["runs"] = static_cast<std::int64_t>(runs);
  top["ranks"] = static_cast<std::int64_t>(world_size);
  top["ranks_per_run"] = static_cast<std::int64_t>(ranks_per_run);
  return top;
}

std::string text_attribute(const io::Attributes& a, const char* key) {
  const auto it = a.find(key);
  return it == a.end() ? std::string("unknown") : io::to_text(it->second);
}

}  // namespace

std::string run_sweep(const Communicator& world, const io::Experiment& experiment, const SweepOptions& o) {
  const model::ModelInfo& model = model::find_model(io::experiment_params().read(experiment.base).model);
  const std::vector<io::RunSpec> runs = experiment.runs();
  for (const io::RunSpec& run : runs) engine_params().read(run.config);  // every run valid before any runs
  const std::uint32_t configured = run_layout_params().read(experiment.base).ranks_per_run;
  const GroupLayout layout =
      group_layout(world.size(), world.rank(), o.ranks_per_run > 0 ? o.ranks_per_run : static_cast<int>(configured));
  const Communicator comm = world.split(layout.group, world.rank());
  const std::string output = o.output.empty() ? io::output_params().read(experiment.base).file : o.output;
  const boost::mpi::communicator control = world.as_boost();
  const SweepJournal journal(
      output, SweepIdentity::of(experiment, model.name, text_attribute(o.file_attributes, "tool_version"),
                                text_attribute(o.file_attributes, "git_revision")));

  // World rank 0 decides (journal, resume) and tells everyone before anything runs.
  SweepStart start;
  if (world.rank() == 0) {
    try {
      start = open_journal(journal, o.resume, output);
    } catch (const Error& e) {
      start.refusal = e.what();
    }
  }
  boost::mpi::broadcast(control, start, 0);
  if (!start.refusal.empty()) throw UsageError(start.refusal);
  std::vector<bool> kept(runs.size(), false);
  for (const std::size_t i : start.kept) kept.at(i) = true;

  // World rank 0 writes each run as it arrives (its own, or received from another group's leader)
  // to the journal (unless that leader could) and to the HDF5 file, flushed.
  std::unique_ptr<io::ResultsWriter> writer;
  const auto write = [&](const io::RunSpec& run, const model::RunOutput& out, bool journaled) {
    // The journal's record (what a resumed sweep keeps) and the HDF5 tables are written at the
    // same time: they only read the same output. Both are done when this returns.
    std::future<void> recorded;
    if (!journaled) recorded = std::async(std::launch::async, [&] { journal.record(run, serialise(out)); });
    write_run(*writer, run, out);
    writer->flush();
    if (recorded.valid()) recorded.get();
    if (o.on_written) o.on_written(run, out);
  };
  // Runs still to be written on world rank 0 (its own, or received from another group's leader).
  std::size_t unwritten = 0;
  const auto receive = [&](bool wait) {
    while (unwritten > 0) {
      if (!wait && !control.iprobe(boost::mpi::any_source, kOutputTag)) return;
      WireOutput w;
      control.recv(boost::mpi::any_source, kOutputTag, w);
      --unwritten;
      const io::RunSpec& run = runs.at(w.index);
      const bool journaled = journal.has(run.index);
      write(run, from_wire(std::move(w), model), journaled);
    }
  };
  std::vector<std::size_t> to_run;  // every run not kept, dealt to groups as they become free
  for (const io::RunSpec& run : runs)
    if (!kept[run.index]) to_run.push_back(run.index);
  if (world.rank() == 0) {
    writer = std::make_unique<io::ResultsWriter>(
        output, file_attributes(o, experiment, model.name, runs.size(), world.size(), layout.ranks_per_run));
    const std::size_t checkpointed = o.resume ? journal.checkpointed_runs() : 0;
    if (o.on_resumed && (!start.kept.empty() || checkpointed > 0))
      o.on_resumed(start.kept.size(), checkpointed, runs.size());
    for (const std::size_t i : start.kept) write(runs[i], deserialise(journal.load(i), model), true);
    unwritten = to_run.size();
  }
  // A leader that cannot see the journal (no shared file system) leaves recording to rank 0.
  const bool journal_here = comm.rank() == 0 && (world.rank() == 0 || journal.exists());

  // Each group's leader takes the next run when its group is free and tells the group; leaders
  // other than world rank 0 send their outputs as each finishes, without waiting for rank 0.
  RunDealer dealer(control, to_run.size());
  const boost::mpi::communicator group = comm.as_boost();
  std::list<WireOutput> sending;  // alive until their sends complete
  std::vector<boost::mpi::request> sends;
  for (;;) {
    std::size_t taken = comm.rank() == 0 ? dealer.take() : 0;
    boost::mpi::broadcast(group, taken, 0);
    if (taken == to_run.size()) break;
    const io::RunSpec& run = runs[to_run[taken]];
    EngineConfig engine = engine_params().read(run.config);
    engine.checkpoint_dir = journal.checkpoint_directory(run.index);
    engine.identity = journal.checkpoint_identity(run.index);
    engine.resume = o.resume;
    std::function<void(const Progress&)> display;
    if (o.progress && world.rank() == 0) display = o.progress(run);
    if (world.rank() == 0)  // takes other groups' outputs while its own run goes on
      engine.progress = [&receive, display](const Progress& p) {
        receive(false);
        if (display) display(p);
      };
    model::RunOutput out = model.run(comm, run.config, engine);
    if (display) std::fputc('\n', stderr);  // ends the progress line
    if (comm.rank() != 0) continue;
    if (world.rank() == 0) {
      --unwritten;
      write(run, out, false);
      journal.remove_checkpoints(run.index);
      receive(false);
      continue;
    }
    WireOutput& w = sending.emplace_back(to_wire(out, run.index));
    if (journal_here) {
      journal.record(run, serialise(out));
      journal.remove_checkpoints(run.index);
    }
    sends.push_back(control.isend(0, kOutputTag, w));
  }
  boost::mpi::wait_all(sends.begin(), sends.end());
  if (world.rank() == 0) receive(true);  // before finish(): the last leaders' sends need it
  dealer.finish();
  if (world.rank() != 0) return output;
  writer->finish();
  journal.remove();
  return output;
}

}  // namespace tracewarp::experiment
