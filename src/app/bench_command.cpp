// tracewarp bench phold: the engine benchmark.
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/model/phold/phold.hpp"

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

namespace {

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

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

struct PholdOptions {
  phold::Params params;
  LpId lps_per_rank = 1024;
  LpId lps_total = 0;
  EngineOptions engine;
  bool json = false;
};

void run_phold_bench(const PholdOptions& o) {
  const Communicator world = Communicator::world();
  phold::Params params = o.params;
  params.lps = o.lps_total > 0 ? o.lps_total : o.lps_per_rank * static_cast<LpId>(world.size());
  EngineConfig engine = to_engine_config(o.engine);
  engine.progress = terminal_progress("phold", o.json);
  const phold::Result r = phold::run(world, params, engine);
  if (engine.progress) std::fprintf(stderr, "\n");
  if (world.rank() != 0) return;
  if (o.json) {
    nlohmann::json j = {{"committed", r.committed},
                        {"rolled_back", r.stats.total.rolled_back},
                        {"events_per_s", r.stats.events_per_s()},
                        {"efficiency", r.stats.efficiency()},
                        {"peak_rss_bytes", r.stats.total.peak_rss_bytes},
                        {"checksum", hex(r.checksum)},
                        {"ranks", r.stats.ranks},
                        {"threads", r.stats.threads},
                        {"wall_s", r.stats.wall_s},
                        {"sync", r.stats.sync},
                        {"lps", params.lps},
                        {"rollbacks", r.stats.total.rollbacks},
                        {"anti_messages", r.stats.total.anti_messages},
                        {"gvt_rounds", r.stats.total.gvt_rounds},
                        {"imbalance", r.stats.imbalance()}};
    std::cout << j.dump() << '\n';
    return;
  }
  std::printf("PHOLD: %llu LPs, %u events/LP, remote %g, mean %g, lookahead %g, end %g, seed %llu\n",
              static_cast<unsigned long long>(params.lps), params.events_per_lp, params.remote, params.mean,
              params.lookahead, params.end, static_cast<unsigned long long>(params.seed));
  std::printf("committed events  %llu\n", static_cast<unsigned long long>(r.committed));
  std::printf("events/s          %.4g\n", r.stats.events_per_s());
  std::printf("rolled back       %llu\n", static_cast<unsigned long long>(r.stats.total.rolled_back));
  std::printf("efficiency        %.4f\n", r.stats.efficiency());
  std::printf("peak memory       %.1f MiB (largest rank)\n",
              static_cast<double>(r.stats.total.peak_rss_bytes) / (1024.0 * 1024.0));
  std::printf("checksum          %s\n", hex(r.checksum).c_str());
  std::printf("%s\n", r.stats.brief().c_str());
}

}  // namespace

void add_bench_command(CLI::App& app, Action& action) {
  CLI::App* bench = app.add_subcommand("bench", "engine benchmarks");
  bench->require_subcommand(1);
  CLI::App* cmd = bench->add_subcommand("phold", "the PHOLD benchmark (engine.md)");
  auto o = std::make_shared<PholdOptions>();
  cmd->add_option("--lps-per-rank", o->lps_per_rank, "LPs per rank")->capture_default_str();
  cmd->add_option("--lps", o->lps_total, "LPs in total (overrides --lps-per-rank)");
  cmd->add_option("--events-per-lp", o->params.events_per_lp, "initial events per LP")->capture_default_str();
  cmd->add_option("--remote", o->params.remote, "probability an event goes to a random LP")->capture_default_str();
  cmd->add_option("--mean", o->params.mean, "mean time increment")->capture_default_str();
  cmd->add_option("--lookahead", o->params.lookahead, "minimum time increment")->capture_default_str();
  cmd->add_option("--end", o->params.end, "end time")->capture_default_str();
  cmd->add_option("--seed", o->params.seed, "random seed")->capture_default_str();
  cmd->add_flag("--json", o->json, "print one JSON object");
  add_engine_options(*cmd, o->engine);
  cmd->callback([o, &action] { action = [o] { run_phold_bench(*o); }; });
}

}  // namespace tracewarp::app
