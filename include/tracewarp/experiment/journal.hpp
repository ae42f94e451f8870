// The durable record of a sweep in progress, what `tracewarp run --resume` trusts:
//
//   <output>.journal/identity       what the sweep is: tool version, code revision, model, runs,
//                                   a digest of every run's parameters (one "name: value" a line)
//   <output>.journal/run-0007.out   one finished run's output, written atomically (temporary
//                                   file, fsync, rename) by the rank that led the run
//   <output>.journal/failed         why the sweep stopped, when a run failed (a run error, a full
//                                   disk): `tracewarp report` says so; --resume removes it
//   <output>.journal/run-0007.checkpoint/
//                                   the engine's checkpoints of a run in progress
//                                   (engine.checkpoint_every_s; engine/checkpoint.hpp), removed
//                                   once the run is recorded
//
// The HDF5 "<output>.partial" is a view for `tracewarp report`; a kill -9 during an HDF5 write
// may leave it unreadable, so a resumed sweep rebuilds it from the journal. The journal is
// removed once the results file is complete. Ranks other than world rank 0 write their runs here
// only where the directory is visible to them (a shared file system, as the submit directory of
// a cluster job is); elsewhere their runs reach the journal through rank 0 alone.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tracewarp/config/experiment.hpp"

namespace tracewarp::experiment {

// What makes two sweeps the same sweep: same code, same model, same runs with the same values.
struct SweepIdentity {
  std::string tool_version;
  std::string git_revision;
  std::string model;
  std::size_t runs = 0;
  std::map<std::string, std::string> parameters;  // "section.key" -> value (base, and sweep lists)
  std::string parameters_digest;                  // FNV-1a over every run's id and "key = value" lines

  static SweepIdentity of(const config::Experiment& experiment, const std::string& model,
                          const std::string& tool_version, const std::string& git_revision) {
    return of(experiment, experiment.runs(), model, tool_version, git_revision);
  }
  // The same, from the experiment's runs already expanded (a large sweep's runs are not copied twice).
  static SweepIdentity of(const config::Experiment& experiment, const std::vector<config::RunSpec>& runs,
                          const std::string& model, const std::string& tool_version, const std::string& git_revision);
  std::string text() const;
  static SweepIdentity parse(const std::string& text);
  // Empty when equal, else which field differs and how ("model: was batch, now las").
  std::string difference_from(const SweepIdentity& before) const;
};

class SweepJournal {
 public:
  SweepJournal(const std::string& output, SweepIdentity identity);
  static std::string directory_of(const std::string& output) { return output + ".journal"; }
  const std::string& directory() const { return dir_; }
  const SweepIdentity& identity() const { return identity_; }

  bool exists() const;
  // The identity recorded by the sweep that made the journal (std::nullopt: none readable).
  std::optional<SweepIdentity> recorded_identity() const;
  // Creates the directory and records this sweep's identity (a fresh start).
  void start() const;
  // Run records in the directory, by name only (what an interrupted sweep left).
  std::size_t recorded_count() const;
  // Indices of the runs whose output is recorded and whole, in increasing order.
  std::vector<std::size_t> finished() const;

  bool has(std::size_t run_index) const;
  // Records a finished run (atomically: a kill leaves either no file or the whole file).
  void record(const config::RunSpec& run, std::span<const std::string_view> output_parts) const;
  void record(const config::RunSpec& run, std::string_view output_bytes) const {
    record(run, std::span<const std::string_view>(&output_bytes, 1));
  }
  // The recorded output of a run (InputError if missing, damaged or another sweep's).
  std::string load(std::size_t run_index) const;
  // Where the engine keeps the checkpoints of a run in progress, and what it checks they are.
  std::string checkpoint_directory(std::size_t run_index) const;
  std::string checkpoint_identity(std::size_t run_index) const;
  void remove_checkpoints(std::size_t run_index) const;
  // Runs with a checkpoint in the journal (runs that were in progress when the sweep stopped).
  std::size_t checkpointed_runs() const;
  // Why the sweep stopped (best effort: a full disk may keep even this from being written), and
  // what was recorded, if anything.
  void record_failure(const std::string& reason) const noexcept;
  std::optional<std::string> failure() const;
  void clear_failure() const;
  // After the results file is complete.
  void remove() const;

 private:
  std::string run_file(std::size_t run_index) const;
  std::string dir_;
  SweepIdentity identity_;
};

}  // namespace tracewarp::experiment
