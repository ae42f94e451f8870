// tracewarp run CONFIG.toml: one run or a sweep, alone or under mpirun (experiment/sweep.hpp
// spreads the runs over groups of ranks and writes the file); this file holds the options and
// what is printed.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "run_table.hpp"
#include "tracewarp/config/experiment.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/stop_request.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/experiment/sweep.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/results/file.hpp"

namespace tracewarp::app {
namespace {

struct RunOptions {
  std::string config;
  std::string output;
  std::vector<std::string> sets;
  int ranks_per_run = 0;
  bool keys = false;
  bool quiet = false;
  double progress_every_s = 30;
  std::string columns;  // the summary figures of a sweep's table (empty: the model's headline)
  bool resume = false;
  bool force = false;
};

// How far a sweep is and when it should end (from the pace of the runs done in this session).
class SweepCounter {
 public:
  explicit SweepCounter(std::size_t total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  void kept(std::size_t n) { done_ = kept_ = n; }
  void finished() { ++done_; }
  std::string text() const {
    std::string t = std::to_string(done_) + "/" + std::to_string(total_) + " runs done";
    if (done_ > kept_ && done_ < total_) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      const double eta = elapsed / static_cast<double>(done_ - kept_) * static_cast<double>(total_ - done_);
      t += ", sweep ETA " + std::to_string(static_cast<long long>(eta + 0.5)) + " s";
    }
    return t;
  }

 private:
  std::size_t total_, done_ = 0, kept_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// A lone run: every summary figure on a line of its own, measurements included.
void print_lone_run(const config::RunSpec& run, const model::RunOutput& out) {
  std::printf("%s  %s  [%.2f s, %s x %d]\n", run.id.c_str(), run.varied_text().c_str(), out.stats.wall_s,
              out.stats.sync.c_str(), out.stats.ranks);
  for (const auto& [k, v] : out.summary) std::printf("  %-28s %s\n", k.c_str(), to_text(v).c_str());
  for (const auto& [k, v] : out.measured) std::printf("  %-28s %s (wall clock)\n", k.c_str(), to_text(v).c_str());
}

// A sweep's runs as rows of one table (run_table.hpp), headed when the first one is written.
class SweepTable {
 public:
  // `runs`: the sweep's runs, whose swept values size the columns before any has run.
  SweepTable(const std::vector<config::RunSpec>& runs, std::vector<std::string> figures) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : runs.front().varied) keys.push_back(k);
    table_.emplace(keys, std::move(figures));
    for (const config::RunSpec& run : runs) swept_.push_back(swept_of(run));
  }
  void print(const config::RunSpec& run, const model::RunOutput& out) {
    if (!headed_) {
      table_->fit(swept_[run.index], out.summary);
      for (const Attributes& values : swept_) table_->fit(values, out.summary);
      std::printf("%s\n", table_->header("wall (s)").c_str());
      warn_missing(out.summary);
      headed_ = true;
    }
    char wall[32];
    std::snprintf(wall, sizeof wall, "%8.2f", out.stats.wall_s);
    std::printf("%s\n", table_->row(run.id, swept_[run.index], out.summary, wall).c_str());
  }

 private:
  void warn_missing(const Attributes& summary) const {
    const std::vector<std::string> missing = table_->missing(summary);
    if (missing.empty()) return;
    std::string names, figures;
    for (const std::string& m : missing) names += (names.empty() ? "'" : ", '") + m + "'";
    for (const auto& [k, v] : summary) figures += (figures.empty() ? "" : ", ") + k;
    std::fprintf(stderr, "tracewarp: warning: --columns: the runs have no figure %s (they have: %s)\n", names.c_str(),
                 figures.c_str());
  }
  static Attributes swept_of(const config::RunSpec& run) {
    Attributes values;
    for (const auto& [k, v] : run.varied) values[k] = to_attr(v);
    return values;
  }
  std::optional<RunTable> table_;
  std::vector<Attributes> swept_;  // by run index
  bool headed_ = false;
};

void print_keys() {
  std::printf("| key | type | default | meaning |\n|---|---|---|---|\n");
  for (const ConfigKey& k : experiment::config_schema()) {
    static constexpr const char* types[] = {"boolean", "integer", "number", "string"};
    std::printf("| `%s` | %s | `%s` | %s |\n", k.name.c_str(), types[static_cast<int>(k.type)],
                tracewarp::to_string(k.default_value).c_str(), k.meaning.c_str());
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
  const config::Experiment experiment = config::load_experiment(o.config, o.sets, experiment::config_schema());
  const auto runs = static_cast<std::size_t>(experiment.run_count());
  if (world.rank() == 0 && !o.quiet)  // notes are information: -q keeps only warnings and errors
    for (const std::string& note : experiment.notes) std::fprintf(stderr, "tracewarp: note: %s\n", note.c_str());
  experiment::SweepOptions sweep;
  sweep.ranks_per_run = o.ranks_per_run;
  sweep.output = o.output;
  sweep.resume = o.resume;
  sweep.force = o.force;
  sweep.file_attributes = {{"tool_version", std::string(TRACEWARP_VERSION)},
                           {"git_revision", std::string(TRACEWARP_GIT_REVISION)},
                           {"command_line", cmdline}};
  auto counter = std::make_shared<SweepCounter>(runs);
  const model::ModelInfo& model = model::find_model(experiment.base.get_string("experiment.model"));
  auto table = std::make_shared<SweepTable>(experiment.runs(), table_columns(o.columns, model.headline));
  const bool lone = runs == 1 && o.columns.empty();
  const bool shown = progress_shown(o.quiet) && runs > 1;
  sweep.on_resumed = [counter, &o](std::size_t kept, std::size_t checkpointed, std::size_t total) {
    counter->kept(kept);
    if (!o.quiet)
      std::fprintf(stderr,
                   "tracewarp: resuming: %zu of %zu runs kept from the interrupted sweep, %zu continued from their "
                   "checkpoints\n",
                   kept, total, checkpointed);
  };
  sweep.on_written = [counter, shown, &o, table, lone](const config::RunSpec& run, const model::RunOutput& out) {
    counter->finished();
    if (progress_shown(o.quiet)) std::fputs("\r\033[K", stderr);  // clears a progress line before stdout
    if (!o.quiet) lone ? print_lone_run(run, out) : table->print(run, out);
    if (shown) {
      std::fflush(stdout);
      std::fprintf(stderr, "[tracewarp] %s", counter->text().c_str());
      std::fflush(stderr);
    }
  };
  auto plain = std::make_shared<PlainProgress>();
  plain->every_s = o.progress_every_s;
  sweep.progress = [&o, counter, runs, plain](const config::RunSpec& run) {
    return terminal_progress([id = run.id, counter, runs] { return runs > 1 ? id + " [" + counter->text() + "]" : id; },
                             o.quiet, plain);
  };
  const std::string output = experiment::run_sweep(world, experiment, sweep);
  if (world.rank() == 0 && shown) std::fputc('\n', stderr);  // ends the sweep's progress line
  if (world.rank() == 0 && !o.quiet)
    std::printf("results: %s (%zu run%s)\n", output.c_str(), runs, runs == 1 ? "" : "s");
}

}  // namespace

void add_run_command(CLI::App& app, Action& action, int argc, char** argv) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "run an experiment (one run or a sweep) from a TOML file");
  cmd->add_option("config", o->config, "experiment configuration (TOML)");
  cmd->add_option("-o,--output", o->output, "results file (default: output.file of the configuration)");
  cmd->add_option("--set", o->sets,
                  "override a key: --set phold.remote=1.0 (repeatable; a key given twice takes the last value)")
      ->take_all();
  cmd->add_option("--ranks-per-run", o->ranks_per_run,
                  "ranks per run of a sweep (default: engine.ranks_per_run, else all, or one each where the "
                  "runs are sequential)");
  cmd->add_option("--columns", o->columns,
                  "the summary figures of a sweep's table, NAME,NAME,... or all (default: the model's headline "
                  "figures); with one run, a table instead of one figure per line");
  cmd->add_flag("--keys", o->keys, "list every configuration key with its type, default and meaning");
  cmd->add_flag("-q,--quiet", o->quiet, "print nothing but errors");
  // An option, not a key: it changes no result, so it is neither stored with the runs nor part of
  // what --resume compares.
  cmd->add_option("--progress-every", o->progress_every_s,
                  "seconds of wall-clock time between progress lines when stderr is not a terminal (mpirun, a "
                  "Slurm job's output file), from rank 0; 0 = none")
      ->check(CLI::NonNegativeNumber)
      ->default_val(30);
  cmd->add_flag("--resume", o->resume,
                "keep the finished runs of an interrupted sweep writing the same file (its OUTPUT.journal), continue "
                "runs in progress from their checkpoints (engine.checkpoint_every_s) and run only the rest; refused if "
                "the configuration or the code differs");
  cmd->add_flag("--force", o->force,
                "replace an existing results file (without it, one is refused); the old file stays until the new one "
                "is complete");
  const std::string cmdline = command_line(argc, argv);
  cmd->callback([o, &action, cmdline] {
    // Slurm's warning before a time limit (sbatch --signal=USR1@SECONDS, or B:USR1 passed on by
    // the job script): save and stop, for --resume in the next allocation. Taken from parsing
    // on, so that a warning during start-up (MPI's, the configuration's) stops the run too.
    std::signal(SIGUSR1, [](int) { request_stop(); });
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
