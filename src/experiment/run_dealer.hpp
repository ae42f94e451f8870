// Hands a sweep's runs to groups of ranks as the groups become free. Runs of one study can differ
// in cost by an order of magnitude (the K computer's bursty mixes: 15x), so a fixed share per group
// leaves groups idle while one works through its expensive share; taking the next run on demand
// ends the sweep with the last run instead.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace tracewarp::experiment {

class RunDealer {
 public:
  // Collective over `world`: `count` runs to deal, numbered 0 .. count-1, to `groups` groups
  // (this rank's is `group`). Where MPI cannot make a one-sided window across the ranks (Open MPI
  // 4 over TCP between nodes, without UCX), it deals round-robin instead: group g takes runs g,
  // g + groups, ... (`dynamic()` says which).
  RunDealer(MPI_Comm world, std::size_t count, int group = 0, int groups = 1);
  // Not collective: a rank that leaves by an exception must not wait for the others here.
  ~RunDealer() = default;
  RunDealer(const RunDealer&) = delete;
  RunDealer& operator=(const RunDealer&) = delete;

  // The next run nobody has taken, or `count` when all are taken. Called by group leaders only;
  // an atomic fetch-and-add on world rank 0's counter (passive target: rank 0 need not answer).
  std::size_t take();
  // Collective over `world`, after every rank's last take(): frees the counter.
  void finish();
  bool dynamic() const { return window_ != MPI_WIN_NULL; }

 private:
  std::size_t count_;
  MPI_Win window_ = MPI_WIN_NULL;
  std::uint64_t* counter_ = nullptr;  // on world rank 0
  std::uint64_t local_ = 0;           // runs taken here without a window
  std::uint64_t group_ = 0, groups_ = 1;
};

}  // namespace tracewarp::experiment
