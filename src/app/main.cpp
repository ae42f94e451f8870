// tracewarp: one executable, subcommands. Errors end here: one line, the documented exit code
// (0 success, 1 run failure, 2 bad usage/configuration/input).
#include <cstdio>
#include <exception>
#include <new>

#include "commands.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/communicator.hpp"

namespace {

// Errors every rank raises together (same input, or reported through a collective): the ranks
// can stop normally. Any other error may be one rank's alone, and must stop the others.
bool raised_on_every_rank(const tracewarp::Error& e) {
  return dynamic_cast<const tracewarp::UsageError*>(&e) || dynamic_cast<const tracewarp::ConfigError*>(&e) ||
         dynamic_cast<const tracewarp::MemoryBudgetError*>(&e) || dynamic_cast<const tracewarp::PeerFailure*>(&e) ||
         dynamic_cast<const tracewarp::SharedRunError*>(&e) || dynamic_cast<const tracewarp::StoppedError*>(&e);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tracewarp;
  CLI::App app{"tracewarp: optimistic parallel discrete-event simulation of job and task scheduling"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tracewarp ") + TRACEWARP_VERSION);
  app::Action action;
  app::add_run_command(app, action, argc, argv);
  app::add_inspect_command(app, action);
  app::add_generate_command(app, action);
  app::add_report_command(app, action);
  app::add_export_command(app, action);
  app::add_bench_command(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  MpiSession mpi(argc, argv);
  const Communicator world = Communicator::world();
  try {
    action();
    return 0;
  } catch (const Error& e) {
    const bool everywhere = raised_on_every_rank(e);
    const bool silent = dynamic_cast<const PeerFailure*>(&e) != nullptr;
    // A budget error is raised on the ranks that ran out (the others stop quietly): each says so.
    const bool own_budget = dynamic_cast<const MemoryBudgetError*>(&e) != nullptr;
    if (!silent && (!everywhere || world.rank() == 0 || own_budget)) {
      if (world.size() > 1 && !everywhere)
        std::fprintf(stderr, "tracewarp: error (rank %d): %s\n", world.rank(), e.what());
      else if (dynamic_cast<const StoppedError*>(&e))  // asked for, not a failure
        std::fprintf(stderr, "tracewarp: %s\n", e.what());
      else
        std::fprintf(stderr, "tracewarp: error: %s\n", e.what());
    }
    if (!everywhere && world.size() > 1) MpiSession::abort(e.exit_code());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    // Anywhere outside the engine's accounting (a model's tables, a huge trace): the same advice.
    std::fprintf(stderr,
                 "tracewarp: error (rank %d): out of memory: an allocation failed; give the run less to hold (fewer "
                 "LPs, a shorter workload), more ranks, or a machine with more memory\n",
                 world.rank());
    if (world.size() > 1) MpiSession::abort(1);
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tracewarp: internal error (rank %d): %s\n", world.rank(), e.what());
    if (world.size() > 1) MpiSession::abort(1);
    return 1;
  }
}
