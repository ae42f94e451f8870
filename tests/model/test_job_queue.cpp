// The batch scheduler's queue storage: removals anywhere keep arrival order; the front moves.
#include <catch2/catch.hpp>

#include "tracewarp/core/error.hpp"
#include "tracewarp/model/batch/job_queue.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {
std::vector<JobId> ids(const JobQueue& q) {
  std::vector<JobId> out;
  for (const QueuedJob& j : q.jobs()) out.push_back(j.id);
  return out;
}
JobQueue queue_of(JobId n) {
  JobQueue q;
  for (JobId id = 0; id < n; ++id) q.push({id, 1, 10, 0});
  return q;
}
}  // namespace

TEST_CASE("job queue: removals from the head, the middle and the tail keep arrival order", "[unit][batch]") {
  JobQueue q = queue_of(8);
  q.remove({0, 1});  // FCFS starts: the front moves
  CHECK(ids(q) == std::vector<JobId>{2, 3, 4, 5, 6, 7});
  q.remove({6, 3});  // any order: one near the tail, one near the head
  CHECK(ids(q) == std::vector<JobId>{2, 4, 5, 7});
  q.remove({7, 2, 5});
  CHECK(ids(q) == std::vector<JobId>{4});
  q.push({9, 2, 5, 1});
  CHECK(ids(q) == std::vector<JobId>{4, 9});
  CHECK(q.size() == 2);
  q.remove({4, 9});
  CHECK(q.empty());
}

TEST_CASE("job queue: a job not queued, or arriving out of order, is an error", "[unit][batch]") {
  JobQueue q = queue_of(3);
  CHECK_THROWS_WITH(q.remove({5}), "batch scheduler: started job 5 is not queued");
  q.remove({1});
  CHECK_THROWS_AS(q.remove({1}), InvariantError);
  CHECK_THROWS_AS(q.push({2, 1, 1, 0}), InvariantError);
}

TEST_CASE("job queue: long runs of starts compact the storage and equal queues compare equal", "[unit][batch]") {
  JobQueue q = queue_of(5000);
  for (JobId id = 0; id < 4000; ++id) q.remove({id});
  CHECK(q.size() == 1000);
  CHECK(q.jobs().begin()->id == 4000);
  JobQueue fresh;
  for (JobId id = 4000; id < 5000; ++id) fresh.push({id, 1, 10, 0});
  CHECK(ids(q) == ids(fresh));
}
