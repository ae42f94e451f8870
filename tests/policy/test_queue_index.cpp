// The queue index: what a backfill pass may skip, checked by hand and against the plain scan.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/policy/batch/backfill.hpp"
#include "tracewarp/policy/batch/profile.hpp"
#include "tracewarp/policy/batch/queue_index.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {
// The ids a scan visits when a stretch may hold a candidate only if it has a job of at most
// `max_nodes` nodes.
std::vector<JobId> visited(const QueueIndex& index, JobId from, JobId to, std::uint32_t max_nodes) {
  std::vector<JobId> ids;
  index.scan(
      from, to, [&](const QueueIndex::Summary& s) { return s.nodes <= max_nodes; },
      [&](JobId id, std::uint32_t, Time) {
        ids.push_back(id);
        return true;
      });
  return ids;
}
}  // namespace

TEST_CASE("queue index: a scan visits queued ids in order and skips blocks with no small job", "[unit][policy]") {
  QueueIndex index;
  for (JobId id = 100; id < 300; ++id) index.insert(id, id == 250 ? 1 : 8, 60);
  CHECK(index.size() == 200);
  // Blocks of 64 ids (64-127, 128-191, 192-255, 256-319) of groups of 8: only the block and the
  // group of 250 (248-255) hold a 1-node job, so everything else is skipped unseen; inside that
  // group every queued id is visited.
  const std::vector<JobId> small = visited(index, 0, 1000, 1);
  REQUIRE(small.size() == QueueIndex::kGroup);
  CHECK(small.front() == 248);
  CHECK(small.back() == 255);
  CHECK(visited(index, 100, 299, 8).size() == 200);
  CHECK(visited(index, 251, 299, 1).size() == 5);  // the rest of 250's group, from 251
  index.erase(250);
  CHECK(visited(index, 0, 1000, 1).empty());  // the block's minimum went back up
  CHECK_THROWS_AS(index.erase(250), InvariantError);
  CHECK_THROWS_AS(index.insert(100, 1, 1), InvariantError);
}

TEST_CASE("queue index: the window slides forward as old jobs start, and back for an older id", "[unit][policy]") {
  QueueIndex index;
  for (JobId id = 0; id < 3 * QueueIndex::kSuper; ++id) index.insert(id, 4, 10);
  for (JobId id = 0; id < 2 * QueueIndex::kSuper; ++id) index.erase(id);
  CHECK(index.size() == QueueIndex::kSuper);
  CHECK(visited(index, 0, 1'000'000, 4).size() == QueueIndex::kSuper);
  index.insert(5, 2, 10);  // below the window: it grows back down
  CHECK(visited(index, 0, 100, 2) == std::vector<JobId>(1, 5));
  QueueIndex emptied;
  emptied.insert(7, 1, 1);
  emptied.erase(7);
  CHECK(emptied == QueueIndex{});
}

TEST_CASE("easy: the same decisions with and without the queue index, on random overloaded queues", "[unit][policy]") {
  RandomStream rng(11, 2);
  for (int trial = 0; trial < 300; ++trial) {
    const std::uint32_t total = 64;
    std::vector<RunningJob> running;
    std::uint32_t used = 0;
    while (used < total - 1 - rng.below(8)) {
      const auto nodes = static_cast<std::uint32_t>(1 + rng.below(std::min<std::uint64_t>(8, total - used)));
      running.push_back(
          {1'000'000 + running.size(), nodes, 0, from_seconds(static_cast<std::int64_t>(1 + rng.below(5000)))});
      used += nodes;
    }
    std::sort(running.begin(), running.end(),
              [](const auto& a, const auto& b) { return a.requested_end < b.requested_end; });
    std::vector<QueuedJob> queue;
    QueueIndex index;
    JobId id = rng.below(5000);
    for (std::uint64_t n = rng.below(600); n > 0; --n) {
      id += 1 + rng.below(3);  // ids ascend, with gaps (jobs of other groups, started jobs)
      const auto nodes = static_cast<std::uint32_t>(1 + rng.below(rng.below(4) == 0 ? 4 : total));
      const Time requested = from_seconds(static_cast<std::int64_t>(1 + rng.below(8000)));
      queue.push_back({id, nodes, requested, 0});
      index.insert(id, nodes, requested);
    }
    const std::uint32_t smallest =
        queue.empty()
            ? 0
            : std::min_element(queue.begin(), queue.end(), [](auto& a, auto& b) { return a.nodes < b.nodes; })->nodes;
    const std::size_t depth = rng.below(3) == 0 ? 1 + rng.below(400) : 0;
    const SchedulingInput plain{0, queue, running, total, total - used, depth, smallest};
    SchedulingInput indexed = plain;
    const ArrivalOrderHints hints{.index = &index};
    indexed.arrival_order = &hints;
    EasyBackfillPolicy a, b;
    const PassDecision with = a.pass(indexed), without = b.pass(plain);
    REQUIRE(with.start_now == without.start_now);
    REQUIRE(with.reservations.size() == without.reservations.size());
  }
}
