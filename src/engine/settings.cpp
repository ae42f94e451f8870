// The engine's configuration keys (engine.*), declared beside the engine they set.
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/config.hpp"

namespace tracewarp {

namespace {
std::string show_sync(const SyncMode& m) { return to_string(m); }
SyncMode parse_sync(const std::string& v, const std::string& key) {
  try {
    return parse_sync_mode(v);
  } catch (const UsageError& e) {  // the message names the file and the key
    throw ConfigError(key + ": " + e.what());
  }
}
std::string show_placement(const Placement& p) {
  return p.kind == PlacementKind::block ? "block" : p.kind == PlacementKind::round_robin ? "round-robin" : p.file;
}
Placement parse_place(const std::string& v, const std::string& key) {
  try {
    return parse_placement(v);
  } catch (const Error& e) {
    throw ConfigError(key + ": " + e.what());
  }
}
double show_window(const Time& t) { return to_seconds(t); }
Time parse_window(const double& s, const std::string& key) {
  if (!(s >= 0)) throw ConfigError(key + " must be >= 0, got " + std::to_string(s));
  return from_seconds(s);
}
std::int64_t show_mib(const std::uint64_t& bytes) { return static_cast<std::int64_t>(bytes >> 20); }
std::uint64_t parse_mib(const std::int64_t& mib, const std::string& key) {
  if (mib < 0) throw ConfigError(key + " must be >= 0, got " + std::to_string(mib));
  return static_cast<std::uint64_t>(mib) << 20;
}
}  // namespace

const ParamTable<EngineConfig>& engine_params() {
  using P = EngineConfig;
  static const ParamTable<P> table =
      ParamTable<P>("engine")
          .mapped("sync", &P::sync, "sequential, optimistic, conservative or rollback-check", show_sync, parse_sync)
          .integer("threads", &P::threads, "TBB threads per rank for event handlers", {.min = 1})
          .mapped("placement", &P::placement, "LP placement: block, round-robin or a partition file", show_placement,
                  parse_place)
          .integer("gvt_interval", &P::gvt_interval, "events a rank executes between the openings of GVT rounds",
                   {.min = 1})
          .integer("poll_interval", &P::poll_interval, "events between remote message exchanges", {.min = 1})
          .mapped("window_s", &P::optimism_window, "optimism window ahead of GVT, simulated seconds (0 = none) (>= 0)",
                  show_window, parse_window)
          .flag("tune_optimism", &P::tune_optimism,
                "tune window_s and gvt_interval while an optimistic run goes, by the committed-event rate they "
                "give (they are its starting point); never changes results")
          .number("tune_epoch_s", &P::tune_epoch_s,
                  "wall-clock seconds over which each step of tune_optimism is judged (0 = every GVT round)",
                  {.min = 0})
          .flag("commit_within_lookahead", &P::commit_within_lookahead,
                "optimistic mode: events nearer GVT than the lookahead, which no rollback can reach, run with "
                "nothing saved and are committed at once; never changes results")
          .mapped("lookahead_s", &P::lookahead,
                  "conservative mode's window and optimistic mode's commit_within_lookahead, simulated seconds (0 = "
                  "the lookahead the model declares) (>= 0)",
                  show_window, parse_window)
          .mapped("memory_budget_mib", &P::memory_budget_bytes,
                  "engine memory per rank, MiB (0 = half the memory this process may use (the node's, its cgroup's or "
                  "its ulimit's, the least) over the node's ranks) (>= 0)",
                  show_mib, parse_mib)
          .number("checkpoint_every_s", &P::checkpoint_every_s,
                  "wall-clock seconds between checkpoints of a run, which `run --resume` continues from (0 = none)",
                  {.min = 0})
          .number("silence_timeout_s", &P::silence_timeout_s,
                  "wall-clock seconds an optimistic rank waits for a silent peer (a stopped or hung rank) before "
                  "it stops the run naming it (0 = forever)",
                  {.min = 0});
  return table;
}

}  // namespace tracewarp
