// tracewarp bench phold: the engine benchmark. Its options are the engine.* and phold.* keys
// of `tracewarp run` (one declaration each), plus --lps-per-rank, --seed and --json.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "tracewarp/config/settings.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/model/phold/phold.hpp"
#include "tracewarp/model/registry.hpp"

namespace tracewarp::app {

namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

const ConfigSchema& bench_keys() {
  static const ConfigSchema keys = model::keys_of(engine_params(), phold::param_table());
  return keys;
}

struct PholdOptions {
  std::vector<std::pair<std::string, std::string>> given;  // key options, as typed
  LpId lps_per_rank = 1024;
  std::uint64_t seed = phold::Params{}.context.seed;
  bool json = false;
};

void run_phold_bench(const PholdOptions& o) {
  const Communicator world = Communicator::world();
  Config config(bench_keys());
  for (const auto& [key, text] : o.given) config.set_from_text(key, text, "bench phold");
  phold::Params params = phold::param_table().read(config);
  const std::string& lps_key = phold::param_table().key_of(&phold::Params::lps);
  const bool lps_given = std::any_of(o.given.begin(), o.given.end(), [&](const auto& g) { return g.first == lps_key; });
  if (!lps_given) params.lps = o.lps_per_rank * static_cast<LpId>(world.size());
  params.context.seed = o.seed;
  EngineConfig engine = engine_params().read(config);
  engine.progress = terminal_progress([] { return std::string("phold"); }, o.json);
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
                        {"tuning_steps", r.stats.total.tuning_steps},
                        {"committed_at_once", r.stats.total.committed_at_once},
                        {"window_end_s", static_cast<double>(r.stats.total.window_end_ns) * 1e-9},
                        {"gvt_interval_end", r.stats.total.gvt_interval_end},
                        {"imbalance", r.stats.imbalance()}};
    std::cout << j.dump() << '\n';
    return;
  }
  std::printf("PHOLD: %llu LPs, %u events/LP, remote %g, mean %g, lookahead %g, end %g, seed %llu\n",
              static_cast<unsigned long long>(params.lps), params.events_per_lp, params.remote, params.mean,
              params.lookahead, params.end, static_cast<unsigned long long>(params.context.seed));
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
  CLI::App* cmd = bench->add_subcommand("phold", "the PHOLD benchmark (docs/studies.md#engine)");
  auto o = std::make_shared<PholdOptions>();
  cmd->add_option("--lps-per-rank", o->lps_per_rank, "LPs per rank (unless --lps gives the total)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "random seed")->capture_default_str();
  cmd->add_flag("--json", o->json, "print one JSON object");
  add_key_options(*cmd, bench_keys(), o->given);
  cmd->callback([o, &action] { action = [o] { run_phold_bench(*o); }; });
}

}  // namespace tracewarp::app
