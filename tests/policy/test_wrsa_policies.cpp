#include <catch2/catch.hpp>

#include "../support/random_jobs.hpp"
#include "replay.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/policy/batch/backfill.hpp"
#include "tracewarp/policy/batch/wrsa.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {
QueuedJob job(JobId id, std::uint32_t nodes, Time requested, double wrsa) { return {id, nodes, requested, 0, 0, wrsa}; }
Time reservation_of(const PassDecision& d, JobId id) {
  for (const Reservation& r : d.reservations)
    if (r.id == id) return r.start;
  return -1;
}
}  // namespace

TEST_CASE("wrsa: scores start at 1 and follow WRSA <- beta*WRSA + (1-beta)*WRA", "[unit][policy][wrsa]") {
  WrsaScores s;
  REQUIRE(s.score(7) == 1.0);
  s.on_completion(7, 50, 100, false);  // WRA 0.5: 0.3 * 1 + 0.7 * 0.5
  REQUIRE(s.score(7) == Approx(0.65));
  s.on_completion(7, 100, 100, true);  // killed: WRA 1: 0.3 * 0.65 + 0.7
  REQUIRE(s.score(7) == Approx(0.895));
  s.on_completion(8, 300, 100, false);  // ran over its request (not killed): WRA capped at 1
  REQUIRE(s.score(8) == Approx(1.0));
  REQUIRE(s.score(9) == 1.0);
}

TEST_CASE("lwjf: FCFS over the queue in descending WRSA, stopping at the first job that does not fit",
          "[unit][policy][wrsa]") {
  // 6 free of 10. Order by WRSA: B (0.9, 2 nodes), C (0.9, after B in queue order, 5 nodes),
  // D (0.7, 1 node), A (0.5, 4 nodes). B starts -> 4 free; C does not fit: the pass stops, so D
  // waits although it would fit. No reservations beyond the started jobs.
  const std::vector<QueuedJob> queue = {job(1, 4, 10, 0.5), job(2, 2, 10, 0.9), job(3, 5, 10, 0.9), job(4, 1, 10, 0.7)};
  const std::vector<RunningJob> running = {{9, 4, 0, 100}};
  LwjfPolicy lwjf;
  PassDecision d = lwjf.pass({0, queue, running, 10, 6, 0, 0});
  REQUIRE(d.start_now == std::vector<JobId>{2});
  REQUIRE(d.reservations.size() == 1);
  SECTION("the lwjf-fill variant skips the misfit and starts D, then A does not fit") {
    LwjfPolicy fill{LwjfPolicy::OnMisfit::skip};
    d = fill.pass({0, queue, running, 10, 6, 0, 0});
    REQUIRE(d.start_now == std::vector<JobId>{2, 4});
  }
  SECTION("with equal scores lwjf is FCFS") {
    std::vector<QueuedJob> equal = queue;
    for (QueuedJob& q : equal) q.wrsa = 0.5;
    FcfsPolicy fcfs;
    REQUIRE(lwjf.pass({0, equal, running, 10, 6, 0, 0}).start_now ==
            fcfs.pass({0, equal, running, 10, 6, 0, 0}).start_now);
  }
}

TEST_CASE("wrsa policies: the depth is the first jobs in descending WRSA of the whole queue, not the first arrivals",
          "[unit][policy][wrsa]") {
  // 150 queued jobs of 2 nodes, 100 s; the only accurate user's job (WRSA 1.0, 1 node) arrived
  // 150th, beyond the first 100 arrivals. 1 node free of 10, depth 100.
  std::vector<QueuedJob> queue;
  for (JobId id = 1; id <= 149; ++id) queue.push_back(job(id, 2, 100, 0.4));
  queue.push_back(job(150, 1, 100, 1.0));
  const std::vector<RunningJob> running = {{999, 9, 0, 50}};
  const SchedulingInput in{0, queue, running, 10, 1, 100, 0};
  SECTION("lwjf starts it: it heads the WRSA order") {
    LwjfPolicy lwjf;
    REQUIRE(lwjf.pass(in).start_now == std::vector<JobId>{150});
  }
  SECTION("wrsa-or backfills it: the head (2 nodes, shadow 50) leaves it the one spare node") {
    WrsaOneReservedPolicy wrsa_or;
    REQUIRE(wrsa_or.pass(in).start_now == std::vector<JobId>{150});
    EasyBackfillPolicy easy;  // EASY's first 100 arrivals do not include it
    REQUIRE(easy.pass(in).start_now.empty());
  }
  SECTION("wrsa-ar reserves it first and starts it now") {
    WrsaAllReservedPolicy wrsa_ar;
    const PassDecision d = wrsa_ar.pass(in);
    REQUIRE(d.start_now == std::vector<JobId>{150});
    REQUIRE(reservation_of(d, 149) == -1);  // the 100 considered are 150 and the first 99 arrivals
    REQUIRE(reservation_of(d, 99) >= 0);
    REQUIRE(reservation_of(d, 100) == -1);
  }
}

TEST_CASE("wrsa-or: the head is the earliest-arrived considered job, or by choice the first in WRSA order",
          "[unit][policy][wrsa]") {
  // 10 nodes all busy until 100. A (6 nodes, WRSA 0.5) arrived before B (8 nodes, WRSA 0.9):
  // neither fits, so the head is reserved at 100 and the other gets no reservation.
  const std::vector<RunningJob> running = {{9, 10, 0, 100}};
  const std::vector<QueuedJob> queue = {job(1, 6, 100, 0.5), job(2, 8, 100, 0.9)};
  WrsaOneReservedPolicy earliest;
  PassDecision d = earliest.pass({0, queue, running, 10, 0, 0, 0});
  REQUIRE(reservation_of(d, 1) == 100);
  REQUIRE(reservation_of(d, 2) == -1);
  WrsaSettings by_wrsa;
  by_wrsa.or_head = WrsaSettings::Head::highest_wrsa;
  WrsaOneReservedPolicy highest(by_wrsa);
  d = highest.pass({0, queue, running, 10, 0, 0, 0});
  REQUIRE(reservation_of(d, 2) == 100);
  REQUIRE(reservation_of(d, 1) == -1);
}

TEST_CASE("wrsa-or: a more accurate user may delay the head within (alpha - 1) x its walltime",
          "[unit][policy][wrsa]") {
  WrsaOneReservedPolicy wrsa_or;
  // 10 nodes; R (6) until 100, 4 free. Head H (8 nodes, 100 s, WRSA 0.5): T0 = 100; the
  // relaxed bound is 100 + 0.5 * 100 = 150. X (4 nodes, 130 s, WRSA 0.9) would hold 4 nodes
  // until 130, moving H to 130 <= 150: it starts (EASY would refuse it: 2 extra nodes only).
  const std::vector<RunningJob> running = {{9, 6, 0, 100}};
  std::vector<QueuedJob> queue = {job(1, 8, 100, 0.5), job(2, 4, 130, 0.9)};
  PassDecision d = wrsa_or.pass({0, queue, running, 10, 4, 0, 0});
  REQUIRE(d.start_now == std::vector<JobId>{2});
  REQUIRE(reservation_of(d, 1) == 130);
  // Beyond the bound (170 > 150): refused.
  queue[1].requested = 170;
  d = wrsa_or.pass({0, queue, running, 10, 4, 0, 0});
  REQUIRE(d.start_now.empty());
  REQUIRE(reservation_of(d, 1) == 100);
  // The same candidate from a user no more accurate than the head's: no delay allowed.
  queue[1] = job(2, 4, 130, 0.5);
  d = wrsa_or.pass({0, queue, running, 10, 4, 0, 0});
  REQUIRE(d.start_now.empty());
  EasyBackfillPolicy easy;
  REQUIRE(easy.pass({0, queue, running, 10, 4, 0, 0}).start_now.empty());
}

TEST_CASE("wrsa-or: T0 is the head's first planned start and stays fixed over passes, so delays do not compound",
          "[unit][policy][wrsa]") {
  // 10 nodes; R1 and R2 (3 nodes each) hold until 100; 4 free. Pass at 0: head H (8 nodes,
  // 100 s, WRSA 0.5) is first reserved at T0 = 100, so its bound is 100 + 0.5 x 100 = 150 for
  // good. X (4 nodes until 130, WRSA 0.9) moves H to 130 <= 150 and starts.
  WrsaOneReservedPolicy wrsa_or;
  const QueuedJob head = job(1, 8, 100, 0.5);
  PassDecision d = wrsa_or.pass({0, std::vector<QueuedJob>{head, job(2, 4, 130, 0.9)},
                                 std::vector<RunningJob>{{10, 3, 0, 100}, {11, 3, 0, 100}}, 10, 4, 0, 0});
  REQUIRE(d.start_now == std::vector<JobId>{2});
  REQUIRE(reservation_of(d, 1) == 130);
  // Pass at 20: R1 ended early; R2 (until 100) and X (until 130) run, 3 free; H can start at 130.
  const std::vector<RunningJob> running = {{11, 3, 0, 100}, {2, 4, 0, 130}};
  SECTION("Y, ending at 170, would move H to 170: beyond the fixed bound 150 (130 + 50 would allow it)") {
    for (const Time now : {20, 30}) {  // and again on the next pass: the bound does not drift
      d = wrsa_or.pass({now, std::vector<QueuedJob>{head, job(3, 3, 170 - now, 0.9)}, running, 10, 3, 0, 0});
      REQUIRE(d.start_now.empty());
      REQUIRE(reservation_of(d, 1) == 130);
    }
  }
  SECTION("Z, ending at 150, moves H exactly to the bound: allowed") {
    d = wrsa_or.pass({20, std::vector<QueuedJob>{head, job(4, 3, 130, 0.9)}, running, 10, 3, 0, 0});
    REQUIRE(d.start_now == std::vector<JobId>{4});
    REQUIRE(reservation_of(d, 1) == 150);
  }
  SECTION("a new head gets its own T0") {
    d = wrsa_or.pass({20, std::vector<QueuedJob>{job(5, 8, 100, 0.5), job(3, 3, 150, 0.9)}, running, 10, 3, 0, 0});
    REQUIRE(d.start_now == std::vector<JobId>{3});  // T0 = 130, bound 180: moved to 170
    REQUIRE(reservation_of(d, 5) == 170);
  }
}

namespace {
std::map<JobId, Time> starts(const testing::ReplayResult& r) {
  std::map<JobId, Time> out;
  for (const auto& [id, rec] : r.jobs) out[id] = rec.start;
  return out;
}
}  // namespace

TEST_CASE("wrsa-or: with every user's WRSA equal it is exactly EASY", "[unit][policy][wrsa]") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    const auto jobs = testing::random_jobs(seed, 500, 16, {.max_gap_s = 50, .overrun_fraction = 0});
    EasyBackfillPolicy easy;
    WrsaOneReservedPolicy wrsa_or;
    REQUIRE(starts(testing::replay(jobs, 16, wrsa_or)) == starts(testing::replay(jobs, 16, easy)));
  }
}

TEST_CASE("wrsa-ar: a more accurate user's new job may push back reservations within their bounds",
          "[unit][policy][wrsa]") {
  // 10 nodes, all held by R until 100. Pass at 0: L (10 nodes, 100 s, WRSA 0.5) is reserved at
  // 100, bound 100 + 0.5 x 100 = 150.
  WrsaAllReservedPolicy ar;
  const std::vector<RunningJob> running = {{9, 10, -50, 100}};
  const QueuedJob low = job(1, 10, 100, 0.5);
  PassDecision d = ar.pass({0, std::vector<QueuedJob>{low}, running, 10, 0, 0, 0});
  REQUIRE(reservation_of(d, 1) == 100);
  SECTION("pushed back within the bound: H (WRSA 1.0, 40 s) goes first, L moves to 140 <= 150") {
    d = ar.pass({10, std::vector<QueuedJob>{low, job(2, 10, 40, 1.0)}, running, 10, 0, 0, 0});
    REQUIRE(reservation_of(d, 2) == 100);
    REQUIRE(reservation_of(d, 1) == 140);
    // The next pass keeps both plans: nothing new to push for.
    d = ar.pass({20, std::vector<QueuedJob>{low, job(2, 10, 40, 1.0)}, running, 10, 0, 0, 0});
    REQUIRE(reservation_of(d, 2) == 100);
    REQUIRE(reservation_of(d, 1) == 140);
  }
  SECTION("not beyond it: H of 60 s would push L to 160 > 150, so H waits for L (at 200)") {
    d = ar.pass({10, std::vector<QueuedJob>{low, job(2, 10, 60, 1.0)}, running, 10, 0, 0, 0});
    REQUIRE(reservation_of(d, 1) == 100);
    REQUIRE(reservation_of(d, 2) == 200);
  }
  SECTION("equal scores: no pushing, exactly conservative backfill (H at 200)") {
    d = ar.pass({10, std::vector<QueuedJob>{job(1, 10, 100, 0.5), job(2, 10, 40, 0.5)}, running, 10, 0, 0, 0});
    REQUIRE(reservation_of(d, 1) == 100);
    REQUIRE(reservation_of(d, 2) == 200);
  }
}

TEST_CASE("wrsa-ar: with every user's WRSA equal it is exactly conservative backfill", "[unit][policy][wrsa]") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    const auto jobs = testing::random_jobs(seed, 500, 16, {.max_gap_s = 50, .overrun_fraction = 0});
    ConservativeBackfillPolicy conservative;
    WrsaAllReservedPolicy wrsa_ar;
    REQUIRE(starts(testing::replay(jobs, 16, wrsa_ar)) == starts(testing::replay(jobs, 16, conservative)));
  }
}
