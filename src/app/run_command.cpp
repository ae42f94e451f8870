// tracewarp run CONFIG.toml: one run or a sweep, alone or under mpirun.
//
// The world's ranks are split into groups of --ranks-per-run; run i of the sweep goes to group
// i mod groups and runs there exactly as it would alone. Each group's rank 0 sends its runs'
// outputs to world rank 0, which alone writes the results file, in run order.
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "commands.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/io/config.hpp"
#include "tracewarp/io/results.hpp"
#include "tracewarp/io/settings.hpp"
#include "tracewarp/model/registry.hpp"

namespace tracewarp::app {
namespace {

struct RunOptions {
  std::string config;
  std::string output;
  std::vector<std::string> sets;
  int ranks_per_run = 0;
  bool keys = false;
  bool quiet = false;
};

// ---- a run's output as bytes, from a group's rank 0 to world rank 0 ----

class ByteWriter {
 public:
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void text(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void bytes(const std::vector<std::byte>& b) {
    u64(b.size());
    raw(b.data(), b.size());
  }
  void attributes(const io::Attributes& a) {
    u64(a.size());
    for (const auto& [k, v] : a) {
      text(k);
      u64(v.index());
      if (const auto* i = std::get_if<std::int64_t>(&v))
        u64(static_cast<std::uint64_t>(*i));
      else if (const auto* d = std::get_if<double>(&v))
        f64(*d);
      else
        text(std::get<std::string>(v));
    }
  }
  std::vector<std::byte> take() { return std::move(out_); }

 private:
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  std::vector<std::byte> out_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::vector<std::byte>& in) : in_(in) {}
  std::uint64_t u64() { return get<std::uint64_t>(); }
  double f64() { return get<double>(); }
  std::string text() {
    const std::size_t n = u64();
    std::string s(reinterpret_cast<const char*>(in_.data() + at_), n);
    at_ += n;
    return s;
  }
  std::vector<std::byte> bytes() {
    const std::size_t n = u64();
    std::vector<std::byte> b(in_.begin() + static_cast<std::ptrdiff_t>(at_),
                             in_.begin() + static_cast<std::ptrdiff_t>(at_ + n));
    at_ += n;
    return b;
  }
  io::Attributes attributes() {
    io::Attributes a;
    for (std::uint64_t n = u64(); n > 0; --n) {
      std::string key = text();
      const std::uint64_t kind = u64();
      if (kind == 0)
        a[key] = static_cast<std::int64_t>(u64());
      else if (kind == 1)
        a[key] = f64();
      else
        a[key] = text();
    }
    return a;
  }

 private:
  template <class V>
  V get() {
    V v;
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  const std::vector<std::byte>& in_;
  std::size_t at_ = 0;
};

std::vector<std::byte> serialise(const model::RunOutput& out) {
  ByteWriter w;
  w.attributes(out.summary);
  w.attributes(out.run_attributes);
  w.attributes(out.measured);
  w.u64(out.tables.size());
  for (const model::Table& t : out.tables) {
    w.text(t.schema->name);
    w.bytes(t.rows);
  }
  const RunStats& s = out.stats;
  w.f64(s.wall_s);
  w.u64(static_cast<std::uint64_t>(s.ranks));
  w.u64(static_cast<std::uint64_t>(s.threads));
  w.text(s.sync);
  w.u64(s.per_rank.size());
  for (const RankStats& r : s.per_rank)
    for (const std::uint64_t v : {r.committed, r.rolled_back, r.rollbacks, r.anti_messages, r.remote_sent, r.gvt_rounds,
                                  r.peak_rss_bytes, r.peak_engine_bytes})
      w.u64(v);
  return w.take();
}

model::RunOutput deserialise(const std::vector<std::byte>& bytes, const model::ModelInfo& model) {
  ByteReader r(bytes);
  model::RunOutput out;
  out.summary = r.attributes();
  out.run_attributes = r.attributes();
  out.measured = r.attributes();
  for (std::uint64_t n = r.u64(); n > 0; --n) {
    const std::string name = r.text();
    const io::TableSchema* schema = nullptr;
    for (const io::TableSchema* s : model.tables)
      if (s->name == name) schema = s;
    if (schema == nullptr) throw InvariantError("run output names an unknown table '" + name + "'");
    out.tables.push_back({schema, r.bytes()});
  }
  RunStats& s = out.stats;
  s.wall_s = r.f64();
  s.ranks = static_cast<int>(r.u64());
  s.threads = static_cast<int>(r.u64());
  s.sync = r.text();
  for (std::uint64_t n = r.u64(); n > 0; --n) {
    RankStats k;
    for (std::uint64_t* v : {&k.committed, &k.rolled_back, &k.rollbacks, &k.anti_messages, &k.remote_sent,
                             &k.gvt_rounds, &k.peak_rss_bytes, &k.peak_engine_bytes})
      *v = r.u64();
    s.per_rank.push_back(k);
    s.total.committed += k.committed;
    s.total.rolled_back += k.rolled_back;
    s.total.rollbacks += k.rollbacks;
    s.total.peak_rss_bytes = std::max(s.total.peak_rss_bytes, k.peak_rss_bytes);
  }
  return out;
}

// ---- writing ----

std::string varied_text(const io::RunSpec& run) {
  std::string s;
  for (const auto& [k, v] : run.varied) s += (s.empty() ? "" : ", ") + k + "=" + io::to_string(v);
  return s;
}

io::Attributes run_attributes(const io::RunSpec& run, const model::RunOutput& out) {
  io::Attributes a = out.run_attributes;
  for (const auto& [k, v] : run.config.values()) a[k] = io::to_attr(v);
  a["varied"] = varied_text(run);
  a["run_index"] = static_cast<std::int64_t>(run.index);
  return a;
}

void write_run(io::ResultsWriter& writer, const io::RunSpec& run, const model::RunOutput& out) {
  writer.add_run(run.id, run_attributes(run, out));
  for (const model::Table& t : out.tables)
    writer.write_table(run.id, *t.schema, t.rows.data(), t.rows.size() / t.schema->row_size);
  writer.write_summary(run.id, out.summary);
  writer.write_engine(run.id, out.stats);
}

// One line per run in a sweep; a lone run gets a key-per-line summary, measurements included.
void print_run(const io::RunSpec& run, const model::RunOutput& out, bool alone) {
  if (alone) {
    std::printf("%s  %s  [%.2f s, %s x %d]\n", run.id.c_str(), varied_text(run).c_str(), out.stats.wall_s,
                out.stats.sync.c_str(), out.stats.ranks);
    for (const auto& [k, v] : out.summary) std::printf("  %-28s %s\n", k.c_str(), io::to_text(v).c_str());
    for (const auto& [k, v] : out.measured) std::printf("  %-28s %s (wall clock)\n", k.c_str(), io::to_text(v).c_str());
    return;
  }
  std::string metrics;
  for (const auto& [k, v] : out.summary) metrics += (metrics.empty() ? "" : ", ") + k + "=" + io::to_text(v);
  std::printf("%s  %-40s  %s  [%.2f s, %s x %d]\n", run.id.c_str(), varied_text(run).c_str(), metrics.c_str(),
              out.stats.wall_s, out.stats.sync.c_str(), out.stats.ranks);
}

void print_keys() {
  std::printf("| key | type | default | meaning |\n|---|---|---|---|\n");
  for (const io::ConfigKey& k : model::config_schema()) {
    static constexpr const char* types[] = {"boolean", "integer", "number", "string"};
    std::printf("| `%s` | %s | `%s` | %s |\n", k.name.c_str(), types[static_cast<int>(k.type)],
                io::to_string(k.default_value).c_str(), k.meaning.c_str());
  }
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

void run_experiment(const RunOptions& o, const std::string& cmdline) {
  const Communicator world = Communicator::world();
  if (o.config.empty()) throw UsageError("run needs a configuration file (or --keys)");
  const io::Experiment experiment = io::load_experiment(o.config, o.sets, model::config_schema());
  const model::ModelInfo& model = model::find_model(io::experiment_params().read(experiment.base).model);
  const std::vector<io::RunSpec> runs = experiment.runs();
  for (const io::RunSpec& run : runs)
    io::engine_params().read(run.config);  // every run's settings valid before any runs

  const std::uint32_t layout = io::run_layout_params().read(experiment.base).ranks_per_run;
  const int per_run = o.ranks_per_run > 0 ? o.ranks_per_run : layout > 0 ? static_cast<int>(layout) : world.size();
  if (per_run > world.size() || world.size() % per_run != 0)
    throw UsageError("--ranks-per-run " + std::to_string(per_run) + " must divide the " + std::to_string(world.size()) +
                     " ranks of the job");
  const int groups = world.size() / per_run;
  const int group = world.rank() / per_run;
  const Communicator comm = world.split(group, world.rank());
  const std::string output = o.output.empty() ? io::output_params().read(experiment.base).file : o.output;

  // Every group runs its share; group leaders keep what they must hand to world rank 0.
  std::vector<std::vector<std::byte>> mine;
  std::vector<std::pair<std::size_t, model::RunOutput>> local;  // on world rank 0: its own runs
  std::unique_ptr<io::ResultsWriter> writer;
  if (world.rank() == 0) {
    std::string overrides;
    for (const std::string& s : o.sets) overrides += (overrides.empty() ? "" : " ") + s;
    writer = std::make_unique<io::ResultsWriter>(output,
                                                 io::Attributes{{"tool_version", std::string(TRACEWARP_VERSION)},
                                                                {"git_revision", std::string(TRACEWARP_GIT_REVISION)},
                                                                {"command_line", cmdline},
                                                                {"config", experiment.text},
                                                                {"config_file", experiment.source},
                                                                {"overrides", overrides},
                                                                {"model", model.name},
                                                                {"runs", static_cast<std::int64_t>(runs.size())},
                                                                {"ranks", static_cast<std::int64_t>(world.size())},
                                                                {"ranks_per_run", static_cast<std::int64_t>(per_run)}});
  }
  for (const io::RunSpec& run : runs) {
    if (static_cast<int>(run.index % static_cast<std::size_t>(groups)) != group) continue;
    EngineConfig engine = io::engine_params().read(run.config);
    engine.progress = terminal_progress(run.id, o.quiet);
    model::RunOutput out = model.run(comm, run.config, engine);
    if (engine.progress && comm.rank() == 0) std::fprintf(stderr, "\n");
    if (comm.rank() != 0) continue;
    if (world.rank() == 0) {
      local.emplace_back(run.index, std::move(out));
    } else {
      mine.push_back(serialise(out));
    }
  }
  if (world.rank() != 0) {
    if (comm.rank() == 0) {
      std::size_t k = 0;
      for (const io::RunSpec& run : runs)
        if (static_cast<int>(run.index % static_cast<std::size_t>(groups)) == group)
          world.send(0, static_cast<int>(run.index), mine[k++]);
    }
    return;
  }
  std::size_t next_local = 0;
  for (const io::RunSpec& run : runs) {
    const int leader = static_cast<int>(run.index % static_cast<std::size_t>(groups)) * per_run;
    const model::RunOutput out = leader == 0 ? std::move(local[next_local++].second)
                                             : deserialise(world.receive(leader, static_cast<int>(run.index)), model);
    if (!o.quiet) print_run(run, out, runs.size() == 1);
    write_run(*writer, run, out);
  }
  writer->finish();
  if (!o.quiet) std::printf("results: %s (%zu run%s)\n", output.c_str(), runs.size(), runs.size() == 1 ? "" : "s");
}

}  // namespace

void add_run_command(CLI::App& app, Action& action, int argc, char** argv) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "run an experiment (one run or a sweep) from a TOML file");
  cmd->add_option("config", o->config, "experiment configuration (TOML)");
  cmd->add_option("-o,--output", o->output, "results file (default: output.file of the configuration)");
  cmd->add_option("--set", o->sets, "override a key: --set phold.remote=1.0 (repeatable)")->take_all();
  cmd->add_option("--ranks-per-run", o->ranks_per_run,
                  "ranks per run of a sweep (default: engine.ranks_per_run, else all)");
  cmd->add_flag("--keys", o->keys, "list every configuration key with its type, default and meaning");
  cmd->add_flag("-q,--quiet", o->quiet, "print nothing but errors");
  const std::string cmdline = command_line(argc, argv);
  cmd->callback([o, &action, cmdline] {
    action = [o, cmdline] {
      if (o->keys) {
        if (Communicator::world().rank() == 0) print_keys();
        return;
      }
      run_experiment(*o, cmdline);
    };
  });
}

}  // namespace tracewarp::app
