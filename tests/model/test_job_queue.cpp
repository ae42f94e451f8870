// The batch scheduler's queue storage: removals anywhere keep arrival order; the front moves;
// jobs started from the middle are marked and swept out together.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <vector>

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

TEST_CASE("job queue: a job started from the middle is skipped by the view, and marks are swept in bulk",
          "[unit][batch]") {
  JobQueue q = queue_of(1000);
  for (JobId id = 1; id < 1000; id += 2) q.remove({id});  // 500 marks among 500 jobs: not yet swept
  REQUIRE(q.size() == 500);
  const QueueView view = q.jobs();
  CHECK(view.size() == 500);
  CHECK(static_cast<std::size_t>(std::distance(view.begin(), view.end())) == 500);
  CHECK(view.last_id() == 998);
  const QueueView first3 = view.first(3);
  CHECK(first3.size() == 3);
  CHECK(std::vector<JobId>{0, 2, 4} == [&] {
    std::vector<JobId> out;
    for (const QueuedJob& j : first3) out.push_back(j.id);
    return out;
  }());
  CHECK(first3.last_id() == 4);
  q.remove({998});  // marks now outnumber queued jobs: swept, the order kept
  std::vector<JobId> expected;
  for (JobId id = 0; id < 998; id += 2) expected.push_back(id);
  CHECK(ids(q) == expected);
  CHECK(q.jobs().last_id() == 996);
}

TEST_CASE("queue view: any vector of jobs is a view of all of them", "[unit][batch]") {
  const std::vector<QueuedJob> jobs = {{7, 1, 10, 0}, {9, 2, 10, 0}};
  const QueueView view = jobs;
  CHECK(view.size() == 2);
  CHECK(view.begin()->id == 7);
  CHECK(view.last_id() == 9);
  CHECK(view.first(5).size() == 2);
  CHECK(QueueView().empty());
}

TEST_CASE("job queue: in priority order, arrivals take their place and ties keep arrival order", "[unit][batch]") {
  JobQueue q(JobQueue::Order::priority);
  const auto with_priority = [](JobId id, double priority) {
    QueuedJob j{id, 1, 10, 0};
    j.priority = priority;
    return j;
  };
  q.push(with_priority(0, 1));
  q.push(with_priority(1, 5));
  q.push(with_priority(2, 1));  // ties with job 0: after it
  q.push(with_priority(3, 3));
  CHECK(ids(q) == std::vector<JobId>{1, 3, 0, 2});
  CHECK(q.index() == nullptr);  // the arrival-order index does not apply
  q.remove({3, 1});
  CHECK(ids(q) == std::vector<JobId>{0, 2});
  CHECK_THROWS_WITH(q.remove({1}), "batch scheduler: started job 1 is not queued");
  // New priorities reorder the queue: job 2 now first.
  q.reprioritise([](const QueuedJob& j) { return j.id == 2 ? 9.0 : 0.0; });
  CHECK(ids(q) == std::vector<JobId>{2, 0});
  q.push(with_priority(4, 4));
  CHECK(ids(q) == std::vector<JobId>{2, 4, 0});
  q.remove({2, 0, 4});
  CHECK(q.empty());
}

TEST_CASE("job queue: in priority order, many starts and reorderings keep every job once", "[unit][batch]") {
  JobQueue q(JobQueue::Order::priority);
  std::vector<JobId> queued;
  for (JobId id = 0; id < 3000; ++id) {
    QueuedJob j{id, 1, 10, 0};
    j.priority = static_cast<double>((id * 7919) % 101);
    q.push(j);
    queued.push_back(id);
    if (id % 3 == 2) {  // start the second job in queue order and the oldest
      const std::vector<JobId> in_order = ids(q);
      std::vector<JobId> started{in_order[1]};
      if (in_order[1] != queued.front() && in_order[0] != queued.front()) started.push_back(queued.front());
      q.remove(started);
      for (const JobId s : started) std::erase(queued, s);
    }
    if (id % 500 == 499) q.reprioritise([](const QueuedJob& j) { return static_cast<double>(j.id % 7); });
  }
  std::vector<JobId> now = ids(q);
  CHECK(now.size() == q.size());
  std::sort(now.begin(), now.end());
  CHECK(now == queued);
}
