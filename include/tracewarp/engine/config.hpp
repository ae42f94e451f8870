// Engine settings: synchronisation mode, end time, placement, threads and the bounds on optimism.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "tracewarp/core/params.hpp"
#include "tracewarp/core/time.hpp"

namespace tracewarp {

enum class SyncMode {
  sequential,      // one rank, one event list, no rollback: the reference result
  optimistic,      // Time Warp on any number of ranks
  conservative,    // lookahead windows (YAWNS) on any number of ranks: no rollback, needs a lookahead
  rollback_check,  // optimistic, plus: every event is executed, undone and redone, and compared
};
SyncMode parse_sync_mode(const std::string& name);  // throws UsageError
std::string to_string(SyncMode mode);

enum class PlacementKind { block, round_robin, file };

struct Placement {
  PlacementKind kind = PlacementKind::block;
  std::string file;  // with PlacementKind::file: a partition file (format in partitions/README.md)
};
Placement parse_placement(const std::string& text);  // "block", "round-robin" or a file path

// What a run has reached, for progress displays (called on rank 0, about twice a second).
struct Progress {
  Time reached;             // simulated time everything below is final (GVT, or the clock)
  Time end;                 // the end time (kTimeInfinity: runs until no events remain)
  std::uint64_t committed;  // events committed so far on this rank
  double wall_s;            // since the run started
};

struct EngineConfig {
  SyncMode sync = SyncMode::sequential;
  Time end_time = kTimeInfinity;  // events at or after this time are never executed
  Placement placement;
  int threads = 1;  // TBB threads per rank available to event handlers

  // Optimistic execution.
  std::uint64_t gvt_interval = 512;   // events a rank runs between openings of GVT rounds
  std::uint32_t poll_interval = 128;  // events between sending/receiving remote messages
  Time optimism_window = 0;           // > 0: never run more than this far ahead of GVT
  // Tune the window and the GVT interval while the run goes (the two above are where it starts)
  // by their effect on the committed-event rate, judged every tune_epoch_s (optimism_tuner.hpp).
  // On by default: on 2 ranks it matched the fixed settings within noise where they were already
  // good and took the LAS run without a window from 42 s to 9.6-17.8 s (docs/performance-history.md).
  bool tune_optimism = true;
  double tune_epoch_s = 0.05;
  // Events closer to GVT than the lookahead (the model's, or `lookahead`), which no rollback can
  // reach, run with nothing saved and are committed at once; remote sends are then held to the
  // lookahead. Never changes results.
  bool commit_within_lookahead = true;
  // Bytes of events, histories and state snapshots one rank may hold. 0 = automatic: half of
  // the machine's memory shared by the ranks on this node.
  std::uint64_t memory_budget_bytes = 0;

  // The lookahead: conservative execution's window length, and optimistic execution's
  // commit_within_lookahead. 0 = the lookahead the model declares.
  Time lookahead = 0;

  // Checkpoints (engine/checkpoint.hpp): every so many wall-clock seconds the committed state
  // (LP states, pending events, the objects the model registered) is saved in checkpoint_dir,
  // at a point where every event before some time is committed and none after it executed.
  double checkpoint_every_s = 0;  // 0: never
  // Chances to checkpoint (GVT rounds, windows, blocks of 1,024 events) to let pass between two
  // checkpoints at least, whatever the clock says (tests checkpoint often, not constantly).
  std::uint64_t checkpoint_min_gap = 1;
  std::string checkpoint_dir;  // chosen by the caller (a sweep: inside its journal)
  bool resume = false;         // start from the newest checkpoint in checkpoint_dir, if any
  std::string identity;        // what a checkpoint must have been written by (the run's identity)

  // Wall-clock seconds an optimistic rank may wait with nothing to run and no word from the rank
  // its GVT round waits for, before it stops the run naming that rank (a stopped or hung peer
  // would otherwise leave every other rank waiting forever). 0 = wait forever.
  double silence_timeout_s = 900;

  std::function<void(const Progress&)> progress;  // optional; never affects results
};

// engine.*: the keys of an EngineConfig, as `run` and `bench` both read them (the rest of it is
// set by the caller: end time, checkpoint folder, progress).
const ParamTable<EngineConfig>& engine_params();

}  // namespace tracewarp
