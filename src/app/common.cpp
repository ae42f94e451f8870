// What several subcommands share: engine options and the terminal progress line.
#include "commands.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace tracewarp::app {

void add_engine_options(CLI::App& cmd, EngineOptions& o) {
  cmd.add_option("--sync", o.sync, "synchronisation: sequential, optimistic or rollback-check")->capture_default_str();
  cmd.add_option("--threads", o.threads, "TBB threads per rank for event handlers")->capture_default_str();
  cmd.add_option("--placement", o.placement, "LP placement: block, round-robin or a partition file")
      ->capture_default_str();
  cmd.add_option("--gvt-interval", o.gvt_interval, "events a rank executes between GVT rounds")->capture_default_str();
  cmd.add_option("--poll-interval", o.poll_interval, "events between remote message exchanges")->capture_default_str();
  cmd.add_option("--window", o.window, "optimism window ahead of GVT, simulated seconds (0 = none)")
      ->capture_default_str();
  cmd.add_option("--memory-budget", o.memory_budget_mib,
                 "MiB of events, histories and snapshots per rank (0 = half the node's memory over its ranks)")
      ->capture_default_str();
}

std::function<void(const Progress&)> terminal_progress(const std::string& label, bool quiet) {
  if (quiet || !isatty(STDERR_FILENO)) return {};
  return [label](const Progress& p) {
    const double reached = to_seconds(p.reached);
    const double rate = p.wall_s > 0 ? static_cast<double>(p.committed) / p.wall_s : 0;
    if (p.end != kTimeInfinity && p.reached > 0) {
      const double fraction = std::min(1.0, static_cast<double>(p.reached) / static_cast<double>(p.end));
      const double eta = fraction > 0 ? p.wall_s * (1 - fraction) / fraction : 0;
      std::fprintf(stderr, "\r[tracewarp] %s  t = %.6g s (%.1f%%)  %.3g events/s (rank 0)  ETA %.0f s   ",
                   label.c_str(), reached, 100 * fraction, rate, eta);
    } else {
      std::fprintf(stderr, "\r[tracewarp] %s  t = %.6g s  %.3g events/s (rank 0)   ", label.c_str(), reached, rate);
    }
    std::fflush(stderr);
  };
}

EngineConfig to_engine_config(const EngineOptions& o) {
  EngineConfig c;
  c.sync = parse_sync_mode(o.sync);
  c.threads = o.threads;
  c.placement = parse_placement(o.placement);
  c.gvt_interval = o.gvt_interval;
  c.poll_interval = o.poll_interval;
  c.optimism_window = o.window > 0 ? from_seconds(o.window) : 0;
  c.memory_budget_bytes = o.memory_budget_mib << 20;
  return c;
}

}  // namespace tracewarp::app
