// Checkpoints of one run (EngineConfig::checkpoint_every_s) and resuming from them.
//
// Files in the checkpoint directory:
//   latest           "generation G ranks R time T crc32 C": which files make the newest checkpoint
//   gen-G.rank-R     one per rank: its LPs' states and send counters, its pending events, the
//                    objects the model registered (Simulation::checkpoint_also), a checksum
// A generation's rank files are written first (temporary file, fsync, rename), then `latest` is
// switched to it the same way, then the generation before the previous one is removed: a kill at
// any moment leaves `latest` naming whole files, and when the newest files are damaged all the
// same (a disk fault, a copy cut short), resuming goes on from the generation before.
//
// Kernels save only where the state is committed: every event before CommittedState::at has
// been executed and committed, none at or after it has been executed, nothing is in transit
// between ranks. Restoring builds the LPs as the model does and reads their states over them;
// the run then goes on exactly as the uninterrupted run would (every event order is a function of
// the event keys, which the checkpoint keeps).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "event_queue.hpp"
#include "kernel.hpp"

namespace tracewarp::detail {

struct CommittedState {
  Time at = 0;                          // every event before it is committed, none after executed
  std::uint64_t committed = 0;          // events committed on this rank so far
  std::vector<std::uint64_t> send_seq;  // each local LP's send counter, by local index
  std::vector<Event> pending;           // this rank's pending events, in any order
};

// A copy of every event in `queue`, leaving the queue as it was, except the entries for which
// `discard(slot)` returns true (it has freed them): they leave the queue.
template <class Discard>
std::vector<Event> pending_events(EventPool& pool, EventQueue& queue, Discard discard) {
  std::vector<QueueEntry> entries;
  while (!queue.empty()) {
    if (!discard(queue.top().slot)) entries.push_back(queue.top());
    queue.pop();
  }
  std::vector<Event> events;
  events.reserve(entries.size());
  for (const QueueEntry& e : entries) {
    events.push_back(pool[e.slot]);
    queue.push(e.time, e.slot, e.lp);
  }
  return events;
}

class Checkpointer {
 public:
  explicit Checkpointer(const KernelSetup& setup);

  bool enabled() const { return every_s_ > 0; }
  // Whether this rank's clock says a checkpoint is due, or a stop was requested
  // (stop_request.hpp) and the run can be saved. Kernels with several ranks decide with rank 0's,
  // through their reduction, so that all ranks save at the same point.
  bool due();
  // Writes this rank's part and, once every rank's is durable, makes it the newest checkpoint.
  // Collective over the run's ranks. Then, where a stop was requested on any rank of the run,
  // every rank throws StoppedError. Each LP's saved state is restored into a fresh LP and
  // compared with the original first: a member missing from its persist list stops the run.
  void save(const CommittedState& state);
  // With EngineConfig::resume and a checkpoint in the directory: loads this rank's LP states and
  // the model's objects, and returns the rest. Collective. std::nullopt: start from the beginning.
  std::optional<CommittedState> restore();

  // The checkpoint columns of the rank's statistics.
  void report(RankStats& stats) const {
    stats.checkpoints = saved_;
    stats.checkpoint_bytes = last_bytes_;
    stats.checkpoint_ms = static_cast<std::uint64_t>(seconds_ * 1e3);
  }

 private:
  std::string rank_file(std::uint64_t generation, int rank) const;
  std::string encode(const CommittedState& state, std::uint64_t generation) const;
  // InputError unless `bytes` are a whole rank file of this run, rank and layout, of `generation`
  // (and committed at `at`, when given); loads nothing.
  void check_header(const std::string& bytes, const std::string& file, std::uint64_t generation,
                    std::optional<Time> at) const;
  CommittedState decode(const std::string& bytes, const std::string& file);

  const KernelSetup& setup_;
  double every_s_;
  std::string dir_;
  bool saves_on_stop_ = false;  // a directory, and LPs that can be saved
  double last_;                 // steady clock, seconds, of the last checkpoint (or the start)
  std::uint64_t chances_ = 0;   // calls of due() since the last checkpoint
  std::uint64_t generation_ = 0;
  std::uint64_t saved_ = 0;
  std::uint64_t last_bytes_ = 0;
  double seconds_ = 0;
};

}  // namespace tracewarp::detail
