// Running an experiment: its runs dealt to groups of ranks as the groups become free, each run's
// output brought to world rank 0 (Boost.MPI, objects serialised with Boost.Serialization) and
// written there as it arrives. Each run gives exactly what it gives alone.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "tracewarp/config/experiment.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/model/registry.hpp"

namespace tracewarp::experiment {

// How the world's ranks are grouped: consecutive ranks, `ranks_per_run` to a group. A group's
// first rank is its leader: it takes the group's next run (experiment/run_dealer.hpp).
struct GroupLayout {
  int ranks_per_run = 1;
  int groups = 1;
  int group = 0;  // this rank's
};
// ranks_per_run 0 = all ranks; it must divide the world (UsageError otherwise).
GroupLayout group_layout(int world_size, int world_rank, int ranks_per_run);

struct SweepOptions {
  int ranks_per_run = 0;       // 0: engine.ranks_per_run, else all ranks (one each if all runs are sequential)
  std::string output;          // results file; empty: output.file
  Attributes file_attributes;  // written at the top of the file (tool_version, git_revision, ...)
  // Keep the finished runs of an interrupted sweep (its journal, experiment/journal.hpp) and run
  // the rest; without it, an existing journal is refused rather than overwritten.
  bool resume = false;
  // Replace an existing (complete) results file; without it, one is refused. The old file stays
  // until the new one is complete.
  bool force = false;
  // On world rank 0, as each run is written (kept runs first, then in order of completion).
  std::function<void(const config::RunSpec&, const model::RunOutput&)> on_written;
  // On world rank 0, before the kept runs are written: how many of how many, and how many runs
  // continue from a checkpoint (engine.checkpoint_every_s).
  std::function<void(std::size_t kept, std::size_t checkpointed, std::size_t total)> on_resumed;
  // A progress display for one of world rank 0's runs, or none.
  std::function<std::function<void(const Progress&)>(const config::RunSpec&)> progress;
};

// Runs every run of `experiment` on `world`; returns the results file's name. Every finished run
// is recorded durably (experiment/journal.hpp) and written to "<output>.partial" as it arrives;
// the file gets its final name when the last run is in.
std::string run_sweep(const Communicator& world, const config::Experiment& experiment, const SweepOptions& options);

// A run's output as bytes and back: what the journal records of a finished run. The tables' rows
// (10^8 bytes at 10^5 replication hosts) are not copied: the bytes are `head` (the size of an
// archive of the rest, with each table's name and size, then that archive) followed by each
// table's rows as they lie in the output.
struct SerialisedOutput {
  std::string head;
  std::vector<std::string_view> rows;           // views into the output serialised, which must outlive them
  std::vector<std::string_view> parts() const;  // head, then the rows: the bytes in order
};
SerialisedOutput serialise(const model::RunOutput& out);
model::RunOutput deserialise(std::string_view bytes, const model::ModelInfo& model);

}  // namespace tracewarp::experiment
