// The subcommands of the tracewarp executable; each file adds one to the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "tracewarp/engine/config.hpp"

namespace tracewarp::app {

// A subcommand's work, run after parsing (inside the MPI session and the error handler).
using Action = std::function<void()>;

void add_bench_command(CLI::App& app, Action& action);
void add_inspect_command(CLI::App& app, Action& action);
void add_run_command(CLI::App& app, Action& action, int argc, char** argv);
void add_report_command(CLI::App& app, Action& action);
void add_generate_command(CLI::App& app, Action& action);

// ---- shared by several commands (common.cpp) ----

// Options every engine-driven command shares.
struct EngineOptions {
  std::string sync = "sequential";
  int threads = 1;
  std::string placement = "block";
  std::uint64_t gvt_interval = 512;
  std::uint32_t poll_interval = 128;
  double window = 0;  // simulated seconds
  std::uint64_t memory_budget_mib = 0;
};
void add_engine_options(CLI::App& cmd, EngineOptions& options);
EngineConfig to_engine_config(const EngineOptions& options);

// A progress line on stderr for long runs, only when stderr is a terminal and not quiet.
std::function<void(const Progress&)> terminal_progress(const std::string& label, bool quiet);

}  // namespace tracewarp::app
