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
#include <list>
#include <sstream>

#include "tracewarp/core/error.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/io/settings.hpp"

// Boost.Serialization for the value types a run's output is made of.
namespace boost::serialization {

template <class Archive>
void serialize(Archive& ar, tracewarp::RankStats& s, unsigned) {
  ar& s.committed& s.rolled_back& s.rollbacks& s.anti_messages& s.remote_sent& s.gvt_rounds& s.peak_rss_bytes& s
      .peak_engine_bytes;
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
  RunStats stats;
  io::Attributes summary, run_attributes, measured;
  std::vector<std::pair<std::string, std::string>> tables;  // name, row bytes

  template <class Archive>
  void serialize(Archive& ar, unsigned) {
    ar& stats& summary& run_attributes& measured& tables;
  }
};

WireOutput to_wire(const model::RunOutput& out) {
  WireOutput w{out.stats, out.summary, out.run_attributes, out.measured, {}};
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
  const WireOutput w = to_wire(out);
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

  std::unique_ptr<io::ResultsWriter> writer;
  if (world.rank() == 0) {
    io::Attributes top = o.file_attributes;
    top["config"] = experiment.text;
    top["config_file"] = experiment.source;
    std::string overrides;
    for (const std::string& s : experiment.overrides) overrides += (overrides.empty() ? "" : " ") + s;
    top["overrides"] = overrides;
    top["model"] = model.name;
    top["runs"] = static_cast<std::int64_t>(runs.size());
    top["ranks"] = static_cast<std::int64_t>(world.size());
    top["ranks_per_run"] = static_cast<std::int64_t>(layout.ranks_per_run);
    writer = std::make_unique<io::ResultsWriter>(output, top);
  }
  // Every group runs its share; world rank 0 keeps its own outputs, other leaders send theirs
  // as each finishes, without waiting for rank 0 to take them (it writes in run order).
  std::vector<std::pair<std::size_t, model::RunOutput>> local;
  std::list<WireOutput> sending;  // alive until their sends complete
  std::vector<boost::mpi::request> sends;
  for (const io::RunSpec& run : runs) {
    if (!layout.runs(run.index)) continue;
    EngineConfig engine = engine_params().read(run.config);
    if (o.progress && comm.rank() == 0) engine.progress = o.progress(run);
    model::RunOutput out = model.run(comm, run.config, engine);
    if (engine.progress) std::fputc('\n', stderr);  // ends the progress line
    if (comm.rank() != 0) continue;
    if (world.rank() == 0)
      local.emplace_back(run.index, std::move(out));
    else
      sends.push_back(control.isend(0, static_cast<int>(run.index), sending.emplace_back(to_wire(out))));
  }
  boost::mpi::wait_all(sends.begin(), sends.end());
  if (world.rank() != 0) return output;
  std::size_t next_local = 0;
  for (const io::RunSpec& run : runs) {
    const int leader = layout.leader_of(run.index);
    model::RunOutput out;
    if (leader == 0) {
      out = std::move(local[next_local++].second);
    } else {
      WireOutput w;
      control.recv(leader, static_cast<int>(run.index), w);
      out = from_wire(std::move(w), model);
    }
    write_run(*writer, run, out);
    if (o.on_written) o.on_written(run, out);
  }
  writer->finish();
  return output;
}

}  // namespace tracewarp::experiment
