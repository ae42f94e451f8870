// The LAS model under mpirun: optimistic on every rank count and thread count gives exactly the
// sequential task table and interval series, for both schedulers, closed and open loop.
#include <catch2/catch.hpp>

#include <cstring>

#include "../support/checkpointing.hpp"
#include "../support/random_tasks.hpp"
#include "../support/tuning.hpp"
#include "tracewarp/model/las/las_model.hpp"

using namespace tracewarp;
using namespace tracewarp::testing;
using namespace tracewarp::las;

TEST_CASE("las model: optimistic on any rank count matches sequential, both schedulers", "[mpi][las]") {
  const Communicator world = Communicator::world();
  const workload::Workload w = testing::random_tasks(9, 2000, 0.4);
  std::uint64_t tuning_steps = 0;
  for (const auto& [scheduler, loop] :
       {std::pair{"proposed", kStudyClusterLoad}, std::pair{"kairos", kStudyClusterLoad}, std::pair{"proposed", 0.0},
        std::pair{"kairos", 0.0}}) {
    LasParams p;
    p.closed_loop_load = loop;
    p.nodes = 24;
    p.scheduler = scheduler;
    p.min_run = from_seconds(std::int64_t{5});
    p.context.series_interval = from_seconds(std::int64_t{60});
    const LasResult reference = run_las(Communicator::self(), w, p, EngineConfig{});
    for (const int threads : {1, 2}) {
      CAPTURE(scheduler, loop, threads, world.size());
      EngineConfig e;
      e.sync = SyncMode::optimistic;
      e.threads = threads;
      e.placement.kind = PlacementKind::round_robin;
      e.gvt_interval = 64;
      e = tuning_at_every_round(e, threads == 2);
      const LasResult r = run_las(world, w, p, e);
      tuning_steps += r.stats.total.tuning_steps;
      if (world.rank() == 0) {
        REQUIRE(r.tasks.size() == reference.tasks.size());
        REQUIRE(std::memcmp(r.tasks.data(), reference.tasks.data(), r.tasks.size() * sizeof(TaskRow)) == 0);
        REQUIRE(r.intervals.size() == reference.intervals.size());
        REQUIRE(std::memcmp(r.intervals.data(), reference.intervals.data(), r.intervals.size() * sizeof(IntervalRow)) ==
                0);
      }
      REQUIRE(r.preemptions == reference.preemptions);
    }
  }
  REQUIRE(tuning_steps > 0);  // the tuner really changed settings under the runs above
}

TEST_CASE("las model: checkpoints change nothing and a resume ends as the whole run, both schedulers",
          "[mpi][las][checkpoint]") {
  const Communicator world = Communicator::world();
  const workload::Workload w = testing::random_tasks(9, 1500, 0.4);
  for (const char* scheduler : {"proposed", "kairos"}) {
    LasParams p;
    p.closed_loop_load = kStudyClusterLoad;
    p.nodes = 24;
    p.scheduler = scheduler;
    p.min_run = from_seconds(std::int64_t{5});
    p.context.series_interval = from_seconds(std::int64_t{60});
    const LasResult reference = run_las(Communicator::self(), w, p, EngineConfig{});
    CAPTURE(scheduler, world.size());
    EngineConfig e;
    e.sync = world.size() == 1 ? SyncMode::sequential : SyncMode::optimistic;
    e.gvt_interval = 64;
    const EngineConfig c = checkpointing(world, e, std::string("las-") + scheduler, 1);  // every chance: a short run
    for (const EngineConfig& run : {c, resuming(c)}) {
      const LasResult r = run_las(world, w, p, run);
      if (!run.resume) REQUIRE(r.stats.total.checkpoints > 0);  // the run was long enough to save one
      if (world.rank() == 0) {
        REQUIRE(r.tasks.size() == reference.tasks.size());
        REQUIRE(std::memcmp(r.tasks.data(), reference.tasks.data(), r.tasks.size() * sizeof(TaskRow)) == 0);
        REQUIRE(r.intervals.size() == reference.intervals.size());
        REQUIRE(std::memcmp(r.intervals.data(), reference.intervals.data(), r.intervals.size() * sizeof(IntervalRow)) ==
                0);
      }
      REQUIRE(r.preemptions == reference.preemptions);
    }
    remove_checkpoints(world, c);
  }
}
