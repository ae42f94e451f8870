// The MapReduce model under mpirun: optimistic on any rank count, thread count and placement
// gives exactly the sequential attempt table and series, for every detector.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "../support/checkpointing.hpp"
#include "../support/tuning.hpp"
#include "tracewarp/model/mapreduce/mapreduce_model.hpp"

using namespace tracewarp;
using namespace tracewarp::testing;
using namespace tracewarp::mapreduce;

TEST_CASE("mapreduce model: optimistic and conservative on any rank count match sequential, every detector",
          "[mpi][mapreduce]") {
  const Communicator world = Communicator::world();
  std::uint64_t tuning_steps = 0;
  for (const char* detector : {"hadoop", "proposed", "conventional", "proposed-first-progress"}) {
    MapReduceParams p;
    const std::string name = detector;
    p.detector = name == "proposed-first-progress" ? "proposed" : name;
    if (name == "proposed-first-progress") p.estimate_from = "first_progress";
    p.workers = 8;
    p.maps = 160;
    p.reduces = 24;
    p.jobs = 2;
    p.job_interval = from_seconds(std::int64_t{30});
    p.state_change_at = from_seconds(std::int64_t{40});
    p.abnormal_probability = 0.2;
    const MapReduceResult reference = run_mapreduce(Communicator::self(), p, EngineConfig{});
    for (const int threads : {1, 2})
      for (const PlacementKind placement : {PlacementKind::block, PlacementKind::round_robin})
        for (const SyncMode mode : {SyncMode::optimistic, SyncMode::conservative}) {
          CAPTURE(detector, threads, world.size(), to_string(mode));
          EngineConfig e;
          e.sync = mode;
          e.threads = threads;
          e.placement.kind = placement;
          e.gvt_interval = 64;
          // Round-robin optimistic runs tune their optimism at every round.
          e = tuning_at_every_round(e, placement == PlacementKind::round_robin && mode == SyncMode::optimistic);
          const MapReduceResult r = run_mapreduce(world, p, e);
          tuning_steps += r.stats.total.tuning_steps;
          if (world.rank() == 0) {
            REQUIRE(r.attempts.size() == reference.attempts.size());
            REQUIRE(std::memcmp(r.attempts.data(), reference.attempts.data(), r.attempts.size() * sizeof(AttemptRow)) ==
                    0);
            REQUIRE(r.series.size() == reference.series.size());
            REQUIRE(std::memcmp(r.series.data(), reference.series.data(), r.series.size() * sizeof(SeriesRow)) == 0);
          }
        }
  }
  REQUIRE(tuning_steps > 0);  // the tuner really changed settings under the runs above
  EngineConfig check;
  check.sync = SyncMode::rollback_check;
  MapReduceParams p;
  p.workers = 6;
  p.maps = 60;
  p.reduces = 10;
  const MapReduceResult reference = run_mapreduce(Communicator::self(), p, EngineConfig{});
  const MapReduceResult r = run_mapreduce(world, p, check);
  if (world.rank() == 0) REQUIRE(r.attempts.size() == reference.attempts.size());
}

TEST_CASE("mapreduce model: checkpoints change nothing and a resume ends as the whole run, every detector",
          "[mpi][mapreduce][checkpoint]") {
  const Communicator world = Communicator::world();
  for (const char* detector : {"hadoop", "proposed", "conventional"}) {
    MapReduceParams p;
    p.detector = detector;
    p.workers = 8;
    p.maps = 120;
    p.reduces = 16;
    p.jobs = 2;
    p.job_interval = from_seconds(std::int64_t{30});
    p.abnormal_probability = 0.2;
    const MapReduceResult reference = run_mapreduce(Communicator::self(), p, EngineConfig{});
    for (const SyncMode mode : {SyncMode::optimistic, SyncMode::conservative}) {
      CAPTURE(detector, world.size(), to_string(mode));
      EngineConfig e;
      e.sync = mode;
      e.gvt_interval = 64;
      const EngineConfig c = checkpointing(world, e, std::string("mapreduce-") + detector);
      for (const EngineConfig& run : {c, resuming(c)}) {
        const MapReduceResult r = run_mapreduce(world, p, run);
        if (!run.resume) REQUIRE(r.stats.total.checkpoints > 0);  // the run was long enough to save one
        if (world.rank() == 0) {
          REQUIRE(r.attempts.size() == reference.attempts.size());
          REQUIRE(std::memcmp(r.attempts.data(), reference.attempts.data(), r.attempts.size() * sizeof(AttemptRow)) ==
                  0);
        }
      }
      remove_checkpoints(world, c);
    }
  }
}
