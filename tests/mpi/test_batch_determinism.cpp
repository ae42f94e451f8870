// The batch model under mpirun: optimistic on every rank count and thread count gives exactly
// the sequential job table, series and node accounting, for every policy.
#include <catch2/catch.hpp>

#include <cstring>

#include "../support/batch_policies.hpp"
#include "../support/checkpointing.hpp"
#include "../support/random_jobs.hpp"
#include "../support/tuning.hpp"
#include "tracewarp/model/batch/batch_model.hpp"

using namespace tracewarp;
using namespace tracewarp::testing;
using namespace tracewarp::batch;

namespace {
workload::Workload random_workload(std::size_t n, std::uint32_t machine) {
  workload::Workload w;
  w.jobs = testing::random_jobs(
      17, n, machine, {.max_gap_s = 40, .large_fraction = 0.1, .oversize = 4, .max_requested_s = 3600, .users = 5});
  return w;
}
bool same_rows(const std::vector<JobRow>& a, const std::vector<JobRow>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(JobRow)) == 0;
}
bool same_series(const std::vector<SeriesRow>& a, const std::vector<SeriesRow>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(SeriesRow)) == 0;
}
// The tuned runs start from a window of 10 simulated minutes. GVT then needs at least 30 rounds to
// cross these 5 hours, so the tuner always has rounds to act in. Started with no window, it first
// needs an epoch's GVT advance first, and with 8 ranks on 2 cores both such runs of a test once
// took no step (tuning_steps > 0 failed).
Time tuning_window(bool tuned) { return tuned ? from_seconds(std::int64_t{600}) : 0; }

// Optimistic on the world's ranks, LPs dealt round robin, GVT every 64 events.
EngineConfig optimistic(int threads) {
  EngineConfig e;
  e.sync = SyncMode::optimistic;
  e.threads = threads;
  e.placement.kind = PlacementKind::round_robin;
  e.gvt_interval = 64;
  return e;
}

// What rank 0 gathered, and the passes every rank counts, are the sequential run's.
void require_same_as(const BatchResult& r, const BatchResult& reference, const Communicator& world) {
  if (world.rank() == 0) {
    REQUIRE(same_rows(r.jobs, reference.jobs));
    REQUIRE(same_series(r.series, reference.series));
    REQUIRE(r.busy_node_seconds == reference.busy_node_seconds);
  }
  REQUIRE(r.passes == reference.passes);
}
}  // namespace

TEST_CASE("batch model: optimistic on any rank count matches sequential, every policy", "[mpi][batch]") {
  const Communicator world = Communicator::world();
  const workload::Workload w = random_workload(600, 64);
  std::uint64_t tuning_steps = 0;
  for (const TestedPolicy& policy : any_node_policies()) {
    BatchParams p;
    p.nodes = 64;
    p.block_nodes = 8;  // 8 blocks spread over the ranks
    policy.apply(p);
    p.queue_depth = 50;
    const BatchResult reference = run_batch(Communicator::self(), w, p, EngineConfig{});
    REQUIRE(reference.jobs.size() == w.jobs.size());
    for (const int threads : {1, 2}) {
      CAPTURE(policy, threads, world.size());
      EngineConfig e = tuning_at_every_round(optimistic(threads), threads == 2);
      e.optimism_window = tuning_window(threads == 2);
      const BatchResult r = run_batch(world, w, p, e);
      tuning_steps += r.stats.total.tuning_steps;
      require_same_as(r, reference, world);
    }
  }
  REQUIRE(tuning_steps > 0);  // the tuner really changed settings under the runs above
}

TEST_CASE("batch model: checkpoints change nothing and a resume ends as the whole run, every policy",
          "[mpi][batch][checkpoint]") {
  const Communicator world = Communicator::world();
  const workload::Workload w = random_workload(300, 64);
  for (const char* policy : {"fcfs", "easy", "conservative", "lwjf", "wrsa-or", "wrsa-ar", "interval"}) {
    BatchParams p;
    p.nodes = 64;
    p.block_nodes = 8;
    p.policy = policy;
    p.queue_depth = 50;
    if (std::string(policy) == "interval") {
      p.allocation = Allocation::contiguous;
      p.policy_settings.set("interval_pattern", std::string("1h:12h"));
    }
    const BatchResult reference = run_batch(Communicator::self(), w, p, EngineConfig{});
    CAPTURE(policy, world.size());
    EngineConfig e;
    e.sync = world.size() == 1 ? SyncMode::sequential : SyncMode::optimistic;
    e.gvt_interval = 64;
    const EngineConfig c = checkpointing(world, e, std::string("batch-") + policy, 1);  // every chance: a short run
    for (const EngineConfig& run : {c, resuming(c)}) {
      const BatchResult r = run_batch(world, w, p, run);
      if (!run.resume) REQUIRE(r.stats.total.checkpoints > 0);  // the run was long enough to save one
      if (world.rank() == 0) {
        REQUIRE(same_rows(r.jobs, reference.jobs));
        REQUIRE(same_series(r.series, reference.series));
        REQUIRE(r.busy_node_seconds == reference.busy_node_seconds);
      }
      REQUIRE(r.passes == reference.passes);
    }
    remove_checkpoints(world, c);
  }
}

TEST_CASE("batch model: two resource groups and interval scheduling, optimistic matches sequential",
          "[mpi][batch][interval]") {
  const Communicator world = Communicator::world();
  const workload::Workload w = random_workload(600, 64);
  std::uint64_t tuning_steps = 0;
  for (const char* policy : {"interval", "easy"}) {
    BatchParams p;
    p.nodes = 64;
    p.groups.resize(2);
    p.groups[0] = {std::string("small"), 16, 1, 4};
    p.groups[1] = {std::string("large"), 48, 5, 48};
    p.allocation = Allocation::contiguous;
    p.policy_settings.set("interval_pattern", std::string("5m:1h,15m:3h"));
    p.block_nodes = 8;
    p.policy = policy;
    const BatchResult reference = run_batch(Communicator::self(), w, p, EngineConfig{});
    for (const int threads : {1, 2}) {
      CAPTURE(policy, threads, world.size());
      EngineConfig e;
      e.sync = SyncMode::optimistic;
      e.threads = threads;
      e.gvt_interval = 64;
      e = tuning_at_every_round(e, threads == 2);
      e.optimism_window = tuning_window(threads == 2);
      const BatchResult r = run_batch(world, w, p, e);
      tuning_steps += r.stats.total.tuning_steps;
      if (world.rank() == 0) {
        REQUIRE(same_rows(r.jobs, reference.jobs));
        REQUIRE(same_series(r.series, reference.series));
        REQUIRE(r.pass_costs.size() == reference.pass_costs.size());
        REQUIRE(r.busy_node_seconds == reference.busy_node_seconds);
      }
    }
  }
  REQUIRE(tuning_steps > 0);
}

TEST_CASE("batch model: a multifactor priority, partitions and user limits, optimistic matches sequential",
          "[mpi][batch][priority]") {
  const Communicator world = Communicator::world();
  workload::Workload w = random_workload(600, 64);
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    w.jobs[i].queue = static_cast<std::int32_t>(i % 3);
    w.jobs[i].partition = static_cast<std::int32_t>(i % 4);
  }
  for (const char* policy : {"easy", "conservative", "fcfs"}) {
    BatchParams p;
    p.nodes = 64;
    p.block_nodes = 8;
    p.policy = policy;
    p.priority = testing::every_factor_priority();
    if (std::string(policy) == "fcfs") {  // with partitions and user limits
      p.groups = parse_partitions("a:40:0+1,b:24:*", "batch.partitions");
      p.limits = {.user_max_running_jobs = 3, .user_max_units = 30};
    }
    const BatchResult reference = run_batch(Communicator::self(), w, p, EngineConfig{});
    for (const int threads : {1, 2}) {
      CAPTURE(policy, threads, world.size());
      require_same_as(run_batch(world, w, p, optimistic(threads)), reference, world);
    }
  }
}

TEST_CASE("batch model: conservative mode is refused, the scheduler starts jobs on its blocks without delay",
          "[mpi][batch]") {
  const Communicator world = Communicator::world();
  BatchParams p;
  p.nodes = 64;
  p.block_nodes = 8;
  EngineConfig e;
  e.sync = SyncMode::conservative;
  REQUIRE_THROWS_WITH(run_batch(world, random_workload(10, 64), p, e),
                      Catch::Contains("conservative mode needs a lookahead"));
}
