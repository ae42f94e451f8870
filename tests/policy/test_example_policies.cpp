// The example policies of examples/policies/, reached by name through the registry as a user's
// own policy would be: worked by hand, so the example of docs/extending.md cannot rot.
#include <catch2/catch.hpp>
#include <vector>

#include "tracewarp/policy/batch/registry.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {
PassDecision pass(BatchPolicy& p, std::uint32_t total, const std::vector<RunningJob>& running,
                  const std::vector<QueuedJob>& queue) {
  std::uint32_t used = 0;
  for (const RunningJob& r : running) used += r.nodes;
  return p.pass({0, queue, running, total, total - used});
}
std::vector<std::pair<JobId, Time>> reservations(const PassDecision& d) {
  std::vector<std::pair<JobId, Time>> out;
  for (const Reservation& r : d.reservations) out.emplace_back(r.id, r.start);
  return out;
}
}  // namespace

TEST_CASE("sjf example: shortest first, EASY-style backfill around the first job that cannot start", "[unit][policy]") {
  // 10 nodes, a 6-node job running until 100 (4 free now). In arrival order: 1 (8 nodes, 500 s),
  // 2 (4, 300), 3 (2, 50), 4 (2, 200); shortest first: 3, 4, 2, 1.
  const std::vector<RunningJob> running{{9, 6, -50, 100}};
  const std::vector<QueuedJob> queue{{1, 8, 500, 0}, {2, 4, 300, 1}, {3, 2, 50, 2}, {4, 2, 200, 3}};
  BatchPolicy sjf = make_batch_policy("sjf");
  PassDecision d = pass(sjf, 10, running, queue);
  // 3 fits now (2 left), 4 fits now in what remains (2 free until 50, 4 until 100, then 8):
  // both start. 2 cannot start: reserved at 100, when the running job ends. 1 cannot start
  // either and is not reserved (one reservation): it waits.
  REQUIRE(d.start_now == std::vector<JobId>{3, 4});
  REQUIRE(reservations(d) == std::vector<std::pair<JobId, Time>>{{3, 0}, {4, 0}, {2, 100}});

  // Two reservations: 1 is planned too, after 2 leaves room for 8 nodes (2 ends at 400).
  sjf = make_batch_policy("sjf", PolicySettings{}.set("sjf_reserved_jobs", std::int64_t{2}));
  d = pass(sjf, 10, running, queue);
  REQUIRE(d.start_now == std::vector<JobId>{3, 4});
  REQUIRE(reservations(d) == std::vector<std::pair<JobId, Time>>{{3, 0}, {4, 0}, {2, 100}, {1, 400}});

  // Where EASY starts the head, SJF starts the shorter job and reserves the head behind it.
  BatchPolicy easy = make_batch_policy("easy");
  const std::vector<QueuedJob> two{{1, 4, 1000, 0}, {2, 4, 10, 1}};
  REQUIRE(pass(easy, 10, running, two).start_now == std::vector<JobId>{1});
  d = pass(sjf, 10, running, two);
  REQUIRE(d.start_now == std::vector<JobId>{2});
  REQUIRE(reservations(d) == std::vector<std::pair<JobId, Time>>{{2, 0}, {1, 10}});
}
