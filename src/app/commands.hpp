// The subcommands of the tracewarp executable; each file adds one to the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <functional>
#include <memory>

#include "tracewarp/config/experiment.hpp"
#include "tracewarp/engine/config.hpp"

namespace tracewarp::app {

// A subcommand's work, run after parsing (inside the MPI session and the error handler).
using Action = std::function<void()>;

void add_bench_command(CLI::App& app, Action& action);
void add_inspect_command(CLI::App& app, Action& action);
void add_run_command(CLI::App& app, Action& action, int argc, char** argv);
void add_report_command(CLI::App& app, Action& action);
void add_generate_command(CLI::App& app, Action& action);
void add_export_command(CLI::App& app, Action& action);

// ---- shared by several commands (common.cpp) ----

// One option per configuration key: --<key without its section, '_' as '-'> (engine.gvt_interval
// is --gvt-interval), its meaning and default as help. Each given option lands in `given` as
// (key, text), to be set on a Config with Config::set_from_text.
void add_key_options(CLI::App& cmd, const ConfigSchema& keys, std::vector<std::pair<std::string, std::string>>& given);

// Whether stderr is a terminal the command may redraw a progress line on (and is not quiet).
bool progress_shown(bool quiet);
// Progress where stderr is not a terminal (mpirun pipes it, Slurm writes it to a file): a whole
// line every `every_s` wall-clock seconds (output.progress_every_s), counted across the runs of
// a sweep from when the command started.
struct PlainProgress {
  double every_s = 30;
  double last_s = 0;
  struct Clock {
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  } clock;
};
// A progress display for a long run, headed by what `describe` says at each update: on a
// terminal one line redrawn in place; elsewhere `plain`'s lines (none without it); nothing when
// quiet.
std::function<void(const Progress&)> terminal_progress(std::function<std::string()> describe, bool quiet,
                                                       const std::shared_ptr<PlainProgress>& plain = nullptr);

}  // namespace tracewarp::app
