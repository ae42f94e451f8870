// The replication model under mpirun: optimistic on every rank count, thread count and placement
// gives exactly the sequential task, copy and series tables, for every method.
#include <catch2/catch.hpp>

#include <cstring>

#include "../support/checkpointing.hpp"
#include "../support/tuning.hpp"
#include "tracewarp/model/replication/replication_model.hpp"

using namespace tracewarp;
using namespace tracewarp::testing;
using namespace tracewarp::replication;

namespace {
template <class Row>
bool same(const std::vector<Row>& a, const std::vector<Row>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Row)) == 0;
}
}  // namespace

TEST_CASE("replication model: optimistic and conservative on any rank count match sequential, every method",
          "[mpi][replication]") {
  const Communicator world = Communicator::world();
  std::uint64_t tuning_steps = 0;
  for (const char* method : {"wqr", "adaptive", "proposed", "proposed-no-cond3", "adaptive-monitored"}) {
    ReplicationParams p;
    const bool monitored = std::string(method) == "adaptive-monitored";
    p.method = monitored ? "adaptive" : method;
    if (monitored) p.monitor_interval = from_seconds(std::int64_t{3});  // saturates the server
    p.hosts = 120;                                                      // three transit domains
    p.tasks = 900;
    p.grain = 3e9;
    p.context.series_interval = from_seconds(std::int64_t{30});
    const ReplicationResult reference = run_replication(Communicator::self(), p, EngineConfig{});
    for (const int threads : {1, 2})
      for (const PlacementKind placement : {PlacementKind::block, PlacementKind::round_robin})
        for (const SyncMode mode : {SyncMode::optimistic, SyncMode::conservative}) {
          // Hosts undone by on_reverse with one thread, by state copies with two.
          p.reverse = threads == 1;
          CAPTURE(method, threads, world.size(), placement == PlacementKind::block, to_string(mode), p.reverse);
          EngineConfig e;
          e.sync = mode;
          e.threads = threads;
          e.placement.kind = placement;
          e.gvt_interval = 64;
          // Round-robin optimistic runs tune their optimism at every round.
          e = tuning_at_every_round(e, placement == PlacementKind::round_robin && mode == SyncMode::optimistic);
          const ReplicationResult r = run_replication(world, p, e);
          tuning_steps += r.stats.total.tuning_steps;
          if (world.rank() == 0) {
            REQUIRE(same(r.tasks, reference.tasks));
            REQUIRE(same(r.copies, reference.copies));
            REQUIRE(same(r.series, reference.series));
          }
          REQUIRE(r.server_events == reference.server_events);
          REQUIRE(r.host_events_max == reference.host_events_max);
          REQUIRE(r.queue_delay_max_s == reference.queue_delay_max_s);
          REQUIRE(r.measurements == reference.measurements);
          REQUIRE(r.view_age_mean_s == reference.view_age_mean_s);
        }
  }
  REQUIRE(tuning_steps > 0);  // the tuner really changed settings under the runs above
}

TEST_CASE("replication model: rollback check on every rank count", "[mpi][replication]") {
  const Communicator world = Communicator::world();
  ReplicationParams p;
  p.method = "proposed";
  p.hosts = 100;
  p.tasks = 400;
  p.grain = 1e9;
  const ReplicationResult reference = run_replication(Communicator::self(), p, EngineConfig{});
  EngineConfig e;
  e.sync = SyncMode::rollback_check;
  for (const bool reverse : {false, true}) {
    p.reverse = reverse;
    const ReplicationResult r = run_replication(world, p, e);
    if (world.rank() == 0) REQUIRE(same(r.tasks, reference.tasks));
  }
}

TEST_CASE("replication model: checkpoints change nothing and a resume ends as the whole run, every method",
          "[mpi][replication][checkpoint]") {
  const Communicator world = Communicator::world();
  for (const char* method : {"wqr", "adaptive", "proposed", "adaptive-monitored"}) {
    ReplicationParams p;
    const bool monitored = std::string(method) == "adaptive-monitored";
    p.method = monitored ? "adaptive" : method;
    if (monitored) p.monitor_interval = from_seconds(std::int64_t{5});
    p.hosts = 120;
    p.tasks = 600;
    p.grain = 3e9;
    const ReplicationResult reference = run_replication(Communicator::self(), p, EngineConfig{});
    for (const SyncMode mode : {SyncMode::optimistic, SyncMode::conservative}) {
      CAPTURE(method, world.size(), to_string(mode));
      EngineConfig e;
      e.sync = mode;
      // Frequent rounds, a checkpoint at every chance: on 8 ranks sharing two cores a rank can
      // otherwise run most of its events before a round completes, and save none.
      e.gvt_interval = 16;
      const EngineConfig c = checkpointing(world, e, std::string("replication-") + method, 1);
      for (const EngineConfig& run : {c, resuming(c)}) {
        const ReplicationResult r = run_replication(world, p, run);
        if (!run.resume) REQUIRE(r.stats.total.checkpoints > 0);  // the run was long enough to save one
        if (world.rank() == 0) {
          REQUIRE(same(r.tasks, reference.tasks));
          REQUIRE(same(r.copies, reference.copies));
          REQUIRE(same(r.series, reference.series));
        }
        REQUIRE(r.server_events == reference.server_events);
      }
      remove_checkpoints(world, c);
    }
  }
}
