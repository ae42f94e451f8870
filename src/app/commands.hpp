// The subcommands of the tracewarp executable; each file adds one to the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

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

// Progress lines go to stderr only when it is a terminal and the command is not quiet.
bool progress_shown(bool quiet);
// A progress line for a long run, headed by what `describe` says at each update.
std::function<void(const Progress&)> terminal_progress(std::function<std::string()> describe, bool quiet);

}  // namespace tracewarp::app
