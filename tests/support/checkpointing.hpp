// Engine settings for tests of checkpoints: a checkpoint at every `gap`-th chance (GVT round,
// window or 1,024 events), in a directory all ranks of the run share; then the same run resumed
// from the newest one. Both must end exactly as the run without checkpoints.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/config.hpp"

namespace tracewarp::testing {

// Every second chance: short test runs on several ranks end after few GVT rounds, and each must
// still save at least once (the shortest ones pass 1).
inline constexpr std::uint64_t kCheckpointGap = 2;

// Where the tests' checkpoints go: a memory file system when the machine has one. These tests
// save thousands of checkpoints, each made durable with fsync; on a disk that other programs keep
// busy, fsync alone took a 2-rank run of them from 32 s to over 400 s. The code path is the same
// on either (tests/cli/test_checkpoint.sh checks checkpoints on the disk, killed with kill -9).
inline std::filesystem::path checkpoint_root() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

inline EngineConfig checkpointing(const Communicator& comm, EngineConfig c, const std::string& name,
                                  std::uint64_t gap = kCheckpointGap) {
  const std::uint64_t mine[1] = {static_cast<std::uint64_t>(::getpid())};
  const std::string owner = std::to_string(comm.all_gather(mine)[0]);  // rank 0's process
  c.checkpoint_every_s = 1e-9;
  c.checkpoint_min_gap = gap;
  c.tune_optimism = false;  // chances to checkpoint come with GVT rounds: a fixed interval
  c.checkpoint_dir = (checkpoint_root() / ("tracewarp-test-" + name + "-" + owner)).string();
  c.identity = name;
  return c;
}

inline EngineConfig resuming(EngineConfig c) {
  c.checkpoint_every_s = 0;
  c.resume = true;
  return c;
}

inline void remove_checkpoints(const Communicator& comm, const EngineConfig& c) {
  comm.barrier();
  if (comm.rank() == 0) std::filesystem::remove_all(c.checkpoint_dir);
  comm.barrier();
}

}  // namespace tracewarp::testing
