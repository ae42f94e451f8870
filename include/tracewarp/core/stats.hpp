// Run statistics every run reports (docs/studies.md#engine), reduced over ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tracewarp {

struct RankStats {
  std::uint64_t committed = 0;      // events committed
  std::uint64_t rolled_back = 0;    // event executions undone
  std::uint64_t rollbacks = 0;      // rollback episodes (one straggler or anti-message each)
  std::uint64_t anti_messages = 0;  // cancellations sent
  std::uint64_t remote_sent = 0;    // events sent to another rank
  std::uint64_t gvt_rounds = 0;
  std::uint64_t peak_rss_bytes = 0;
  std::uint64_t peak_engine_bytes = 0;  // the engine's own accounting, compared with the budget
  std::uint64_t checkpoints = 0;        // written by this run (engine.checkpoint_every_s)
  std::uint64_t checkpoint_bytes = 0;   // size of this rank's newest checkpoint file
  std::uint64_t checkpoint_ms = 0;      // wall-clock milliseconds spent writing checkpoints
  // Optimistic runs: the optimism window (ns, 0 = none) and GVT interval at the end, and how
  // often engine.tune_optimism changed them.
  std::uint64_t window_end_ns = 0;
  std::uint64_t gvt_interval_end = 0;
  std::uint64_t tuning_steps = 0;
  // Optimistic runs: events committed as they ran, with nothing saved (engine.commit_within_lookahead).
  std::uint64_t committed_at_once = 0;
};

struct RunStats {
  std::vector<RankStats> per_rank;  // index = rank
  RankStats total;                  // sums (peak memory: the maximum over ranks)
  double wall_s = 0;
  int ranks = 1;
  int threads = 1;
  std::string sync;

  double events_per_s() const { return wall_s > 0 ? static_cast<double>(total.committed) / wall_s : 0; }
  // 1 - rolled back / committed, the usual Time Warp definition (may be negative).
  double efficiency() const;
  // Largest committed-event count of a rank over the mean (1 = perfectly balanced).
  double imbalance() const;
  // A few lines for the terminal.
  std::string brief() const;
};

}  // namespace tracewarp
