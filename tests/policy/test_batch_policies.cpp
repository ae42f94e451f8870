// Batch policies on hand-made situations; every expected value is worked out in the comments.
#include <catch2/catch.hpp>

#include <set>

#include <algorithm>

#include "../support/batch_policies.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/policy/batch/backfill.hpp"
#include "tracewarp/policy/batch/profile.hpp"
#include "tracewarp/policy/batch/registry.hpp"
#include "tracewarp/policy/batch/wrsa.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {
QueuedJob job(JobId id, std::uint32_t nodes, Time requested, Time submit = 0) { return {id, nodes, requested, submit}; }

template <SchedulingPolicy Policy>
PassDecision run_pass(Policy& p, Time now, std::uint32_t total, const std::vector<RunningJob>& running,
                      const std::vector<QueuedJob>& queue, std::size_t depth = 0) {
  std::uint32_t used = 0;
  for (const RunningJob& r : running) used += r.nodes;
  return p.pass({now, queue, running, total, total - used, depth});
}
Time reservation_of(const PassDecision& d, JobId id) {
  for (const Reservation& r : d.reservations)
    if (r.id == id) return r.start;
  return -1;
}
}  // namespace

TEST_CASE("profile: free nodes over time, earliest fits and reservations", "[unit][policy]") {
  // 10 nodes; 4 free now (t=0); a 6-node job may run until 100.
  AvailabilityProfile p(0, 4, std::vector<RunningJob>{{1, 6, -50, 100}});
  REQUIRE(p.free_at(0) == 4);
  REQUIRE(p.free_at(99) == 4);
  REQUIRE(p.free_at(100) == 10);
  REQUIRE(p.earliest_start(4, 1000) == 0);
  REQUIRE(p.earliest_start(5, 1) == 100);
  REQUIRE(p.earliest_start(11, 1) == kTimeInfinity);
  p.reserve(100, 50, 8);                     // 2 free in [100, 150)
  REQUIRE(p.earliest_start(4, 60) == 0);     // [0, 60) ends before the squeeze at 100
  REQUIRE(p.earliest_start(4, 101) == 150);  // [0, 101) would need 4 at 100, where only 2 are free
  REQUIRE(p.earliest_start(2, 200) == 0);    // 4 in [0,100), 2 in [100,150), 10 after
  REQUIRE(p.earliest_start(3, 100) == 0);    // [0, 100) ends where the squeeze begins
  REQUIRE(p.earliest_start(3, 101) == 150);
  REQUIRE_THROWS_AS(p.reserve(120, 10, 3), InvariantError);
  p.release(100, 50, 8);  // undoing the reservation restores the profile
  REQUIRE(p.earliest_start(5, 1) == 100);
  REQUIRE(p.free_at(120) == 10);
}

TEST_CASE("fcfs: starts in order while the head fits, then stops", "[unit][policy]") {
  FcfsPolicy fcfs;
  // 10 nodes, 6 free. J1 (6) starts; J2 (2) does not fit in 0; J3 (1) would, but FCFS stops.
  const PassDecision d = run_pass(fcfs, 0, 10, {{9, 4, 0, 100}}, {job(1, 6, 50), job(2, 2, 10), job(3, 1, 10)});
  REQUIRE(d.start_now == std::vector<JobId>{1});
  const PassDecision empty = run_pass(fcfs, 0, 10, {{9, 10, 0, 100}}, {job(1, 1, 5)});
  REQUIRE(empty.start_now.empty());
}

TEST_CASE("easy: backfill by ending before the shadow time", "[unit][policy]") {
  EasyBackfillPolicy easy;
  // 10 nodes; R (6 nodes) runs until 100, 4 free. Head H needs 8: shadow 100, extra 10-8 = 2.
  // B1 (4 nodes, 100 s) ends at 100 <= shadow: starts. B2 (1 node) finds no free node.
  const PassDecision d = run_pass(easy, 0, 10, {{9, 6, 0, 100}}, {job(1, 8, 50), job(2, 4, 100), job(3, 1, 10)});
  REQUIRE(d.start_now == std::vector<JobId>{2});
  REQUIRE(reservation_of(d, 1) == 100);
}

TEST_CASE("easy: backfill on the nodes the head will not need", "[unit][policy]") {
  EasyBackfillPolicy easy;
  // As above, but B1 (4 nodes, 150 s) would run past the shadow on more than the 2 extra nodes:
  // it waits. B2 (2 nodes, 500 s) fits in the extra nodes: starts (extra 0). B3 (1 node, 20 s)
  // ends by the shadow: starts. B4 (1 node, 500 s) no longer has extra nodes: waits.
  const PassDecision d = run_pass(easy, 0, 10, {{9, 6, 0, 100}},
                                  {job(1, 8, 50), job(2, 4, 150), job(3, 2, 500), job(4, 1, 20), job(5, 1, 500)});
  REQUIRE(d.start_now == std::vector<JobId>{3, 4});
  REQUIRE(reservation_of(d, 1) == 100);
  // Depth 3 hides jobs 4 and 5 from the pass.
  const PassDecision shallow =
      run_pass(easy, 0, 10, {{9, 6, 0, 100}}, {job(1, 8, 50), job(2, 4, 150), job(3, 2, 500), job(4, 1, 20)}, 3);
  REQUIRE(shallow.start_now == std::vector<JobId>{3});
}

TEST_CASE("easy: jobs that fit start in order first; a job past its requested end frees now", "[unit][policy]") {
  EasyBackfillPolicy easy;
  // At t=200, R's requested end (100) has passed, so the profile counts its nodes free now: H
  // (8 nodes) still does not fit in the 4 actually free, shadow = now.
  const PassDecision d = run_pass(easy, 200, 10, {{9, 6, 0, 100}}, {job(1, 2, 10), job(2, 8, 10), job(3, 2, 1000)});
  REQUIRE(d.start_now == std::vector<JobId>{1});  // 2 free left; job 3 would delay H (shadow 200)
  REQUIRE(reservation_of(d, 2) == 200);
}

TEST_CASE("conservative: every job reserved in order; only jobs reserved at now start", "[unit][policy]") {
  ConservativeBackfillPolicy conservative;
  // 10 nodes; R (6) until 100; 4 free.
  //   H  (8, 50 s):  earliest 100 -> [100,150): free becomes 4|2|10 over [0,100)|[100,150)|[150,..)
  //   J2 (4, 150 s): needs 4 for 150 s: not at 0 (2 at 100), so 150 -> free 4|2|6 (until 300)|10
  //   J3 (2, 100 s): [0,100) has 4: starts now -> 2|2|6|10
  //   J4 (2, 120 s): [0,100) 2, [100,150) 2: starts now -> 0 in [0,100), 0 in [100,120), 2 in [120,150)
  //   J5 (1, 10 s):  first room at 120
  const PassDecision d = run_pass(conservative, 0, 10, {{9, 6, 0, 100}},
                                  {job(1, 8, 50), job(2, 4, 150), job(3, 2, 100), job(4, 2, 120), job(5, 1, 10)});
  REQUIRE(d.start_now == std::vector<JobId>{3, 4});
  REQUIRE(reservation_of(d, 1) == 100);
  REQUIRE(reservation_of(d, 2) == 150);
  REQUIRE(reservation_of(d, 3) == 0);
  REQUIRE(reservation_of(d, 4) == 0);
  REQUIRE(reservation_of(d, 5) == 120);
}

TEST_CASE("conservative: reservations persist; an early end compresses them in order, never later", "[unit][policy]") {
  ConservativeBackfillPolicy conservative;
  // 10 nodes. R1 (5 nodes) may run until 100, R2 (5 nodes) until 200; none free.
  //   A (10 nodes, 100 s): earliest 200, [200,300).
  //   B (5 nodes, 50 s): after R1 at 100 there are 5 free until 200: [100,150).
  const std::vector<QueuedJob> queue = {job(1, 10, 100), job(2, 5, 50)};
  PassDecision d = run_pass(conservative, 0, 10, {{8, 5, 0, 100}, {9, 5, 0, 200}}, queue);
  REQUIRE(reservation_of(d, 1) == 200);
  REQUIRE(reservation_of(d, 2) == 100);
  // R1 ended at 100 and B started then (a pass at 100, not shown); R2 ends early, at 120. At the
  // pass of 120 only B runs (5 nodes, until 150): A's reservation moves from 200 to 150.
  d = run_pass(conservative, 120, 10, {{2, 5, 100, 150}}, {job(1, 10, 100)});
  REQUIRE(reservation_of(d, 1) == 150);
  // Compression keeps everyone's slot while each job in turn moves earlier.
  ConservativeBackfillPolicy p2;
  // 4 nodes, R (4 nodes) until 100. X (4 nodes, 100 s) -> [100,200). Y (2 nodes, 30 s) -> [200,230).
  d = run_pass(p2, 0, 4, {{9, 4, 0, 100}}, {job(1, 4, 100), job(2, 2, 30)});
  REQUIRE(reservation_of(d, 1) == 100);
  REQUIRE(reservation_of(d, 2) == 200);
  // R ends early at 50: X moves to 50 ([50,150)), Y to 150 — both earlier, neither later.
  d = run_pass(p2, 50, 4, {}, {job(1, 4, 100), job(2, 2, 30)});
  REQUIRE(d.start_now == std::vector<JobId>{1});
  REQUIRE(reservation_of(d, 2) == 150);
}

TEST_CASE("conservative: a reservation whose start passed without a pass is kept from now on, if it still fits",
          "[unit][policy]") {
  ConservativeBackfillPolicy conservative;
  // 10 nodes, R (10) until 100. J1 (10 nodes, 50 s) -> [100,150); J2 (10 nodes, 50 s) -> [150,200).
  PassDecision d = run_pass(conservative, 0, 10, {{9, 10, 0, 100}}, {job(1, 10, 50), job(2, 10, 50)});
  REQUIRE(reservation_of(d, 1) == 100);
  REQUIRE(reservation_of(d, 2) == 150);
  // No pass until 120 (a scheduling tick); R is gone. J1's reservation is kept from now on,
  // [120,170), and overlaps J2's [150,200): J2's is broken and J2 placed afresh after J1.
  d = run_pass(conservative, 120, 10, {}, {job(1, 10, 50), job(2, 10, 50)});
  REQUIRE(d.broken_reservations == 1);
  REQUIRE(d.start_now == std::vector<JobId>{1});
  REQUIRE(reservation_of(d, 2) == 170);
  // Had the tick come at 100, both would have held: none broken.
  ConservativeBackfillPolicy on_time;
  run_pass(on_time, 0, 10, {{9, 10, 0, 100}}, {job(1, 10, 50), job(2, 10, 50)});
  d = run_pass(on_time, 100, 10, {}, {job(1, 10, 50), job(2, 10, 50)});
  REQUIRE(d.broken_reservations == 0);
  REQUIRE(d.start_now == std::vector<JobId>{1});
  REQUIRE(reservation_of(d, 2) == 150);
}

TEST_CASE("policies: jobs larger than the machine are refused loudly; names resolve", "[unit][policy]") {
  for (const BatchPolicyInfo& info : batch_policies()) {
    if (info.contiguous_only) continue;  // placement-aware: tested with its pattern (test_interval_policy.cpp)
    CAPTURE(info.name);
    BatchPolicy p = make_batch_policy(info.name, testing::TestedPolicy(info.name).settings);
    if (info.name == "python")  // the user's file raises: an error in the input, naming it
      REQUIRE_THROWS_AS(run_pass(p, 0, 4, {}, {job(1, 5, 10)}), InputError);
    else
      REQUIRE_THROWS_AS(run_pass(p, 0, 4, {}, {job(1, 5, 10)}), InvariantError);
  }
  std::string names;
  for (const std::string& name : batch_policy_names()) names += (names.empty() ? "" : ", ") + name;
  REQUIRE_THROWS_WITH(find_batch_policy("no-such-policy"), "unknown batch policy 'no-such-policy' (" + names + ")");
}

TEST_CASE("policy registry: every policy by name, its keys reach it, a bad value is refused naming the key",
          "[unit][policy]") {
  const std::vector<std::string> names = batch_policy_names();
  REQUIRE(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  for (const BatchPolicyInfo& info : batch_policies()) {
    REQUIRE(&find_batch_policy(info.name) == &info);
    CAPTURE(info.name);
    const BatchPolicy p = make_batch_policy(info.name, testing::TestedPolicy(info.name).settings);
    REQUIRE_FALSE(info.description.empty());
    REQUIRE(p.reads_wrsa() == (info.name.rfind("lwjf", 0) == 0 || info.name.rfind("wrsa-", 0) == 0));
    // Every key a policy declares is in the batch section, and among the policies' keys once.
    if (info.keys != nullptr)
      for (const ConfigKey& k : *info.keys) REQUIRE(find_config_key(policy_keys(), k.name) != nullptr);
  }
  PolicySettings s;
  s.set("wrsa_alpha", 2.0);
  REQUIRE(make_batch_policy("wrsa-or", s) == BatchPolicy(WrsaOneReservedPolicy({2.0, 0.3})));
  REQUIRE_FALSE(make_batch_policy("wrsa-or", s) == BatchPolicy(WrsaOneReservedPolicy{}));
  REQUIRE_FALSE(make_batch_policy("wrsa-ar", s) == make_batch_policy("wrsa-or", s));  // another class
  REQUIRE(make_batch_policy("wrsa-or", s).get<WrsaOneReservedPolicy>() != nullptr);
  REQUIRE(make_batch_policy("wrsa-or", s).get<WrsaAllReservedPolicy>() == nullptr);
  REQUIRE_THROWS_WITH(PolicySettings{}.set("batch.wrsa_alpha", 0.5),
                      "PolicySettings::set: batch.wrsa_alpha must be >= 1, got 0.5");
  REQUIRE_THROWS_AS(PolicySettings{}.set("interval_pattern", std::string("9q")), ConfigError);
}

TEST_CASE("profile: the shadow without building the profile equals the profile's, on random machines",
          "[unit][policy]") {
  RandomStream rng(5, 9);
  for (int trial = 0; trial < 2000; ++trial) {
    const Time now = from_seconds(static_cast<std::int64_t>(rng.below(100)));
    std::vector<RunningJob> running, started;
    for (std::uint64_t n = rng.below(12); n > 0; --n)  // some already past their requested end
      running.push_back({n, static_cast<std::uint32_t>(1 + rng.below(6)), 0,
                         from_seconds(static_cast<std::int64_t>(rng.below(300)))});
    for (std::uint64_t n = rng.below(3); n > 0; --n)
      started.push_back({100 + n, static_cast<std::uint32_t>(1 + rng.below(6)), now,
                         now + from_seconds(static_cast<std::int64_t>(1 + rng.below(300)))});
    if (rng.below(2) == 0)  // as models pass them (and, else, in any order)
      std::sort(running.begin(), running.end(), [](auto& a, auto& b) { return a.requested_end < b.requested_end; });
    const auto free_now = static_cast<std::uint32_t>(rng.below(4));
    const auto nodes = static_cast<std::uint32_t>(1 + rng.below(30));
    std::vector<RunningJob> all = running;
    all.insert(all.end(), started.begin(), started.end());
    const AvailabilityProfile profile(now, free_now, all);
    const Shadow s = shadow_of(now, free_now, running, started, nodes);
    const Time expected = profile.earliest_start(nodes, from_seconds(static_cast<std::int64_t>(1 + rng.below(500))));
    REQUIRE(s.start == expected);
    REQUIRE(s.free == profile.free_at(expected));
  }
}

TEST_CASE(
    "profile: reservations all at once leave what one by one leaves, or nothing when they overbook; "
    "each one's earliest start if taken out",
    "[unit][policy]") {
  RandomStream rng(6, 3);
  int overbooked = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Time now = static_cast<Time>(rng.below(50));
    std::vector<RunningJob> running;
    for (std::uint64_t n = rng.below(8); n > 0; --n)
      running.push_back({n, static_cast<std::uint32_t>(1 + rng.below(6)), 0, static_cast<Time>(rng.below(200))});
    std::sort(running.begin(), running.end(), [](auto& a, auto& b) { return a.requested_end < b.requested_end; });
    const auto free_now = static_cast<std::uint32_t>(rng.below(10));
    std::vector<AvailabilityProfile::Booking> bookings;
    for (std::uint64_t n = rng.below(10); n > 0; --n)  // some share a start or end; some never end
      bookings.push_back({now + static_cast<Time>(rng.below(20) * 10),
                          rng.below(10) == 0 ? kTimeInfinity : static_cast<Time>(1 + rng.below(10)) * 10,
                          static_cast<std::uint32_t>(1 + rng.below(5))});
    const AvailabilityProfile before(now, free_now, running);
    AvailabilityProfile at_once = before, one_by_one = before;
    bool all_fit = true;
    for (const auto& b : bookings) {
      if (!one_by_one.fits(b.start, b.duration, b.nodes)) {
        all_fit = false;
        break;
      }
      one_by_one.reserve(b.start, b.duration, b.nodes);
    }
    CAPTURE(trial);
    REQUIRE(at_once.reserve_all(bookings) == all_fit);
    const AvailabilityProfile& expected = all_fit ? one_by_one : before;
    const auto got = at_once.steps(), want = expected.steps();
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      REQUIRE(got[i].from == want[i].from);
      REQUIRE(got[i].free == want[i].free);
    }
    overbooked += all_fit ? 0 : 1;
    if (!all_fit) continue;
    for (const auto& b : bookings) {  // where each would go if it were taken out first
      AvailabilityProfile released = at_once;
      released.release(b.start, b.duration, b.nodes);
      REQUIRE(at_once.earliest_start_if_released(b) == released.earliest_start(b.nodes, b.duration));
    }
  }
  CHECK(overbooked > 100);  // both outcomes were exercised
  CHECK(overbooked < 1900);
}

namespace {
// The profile as a plain vector of steps, searched step by step: what the chunked profile must
// answer, in every case.
struct PlainProfile {
  std::vector<AvailabilityProfile::Step> steps;
  static Time end_of(Time start, Time d) { return d > kTimeInfinity - start ? kTimeInfinity : start + d; }
  std::size_t index(Time t) const {
    std::size_t i = 0;
    while (i + 1 < steps.size() && steps[i + 1].from <= t) ++i;
    return i;
  }
  std::size_t split(Time t) {
    const std::size_t i = index(t);
    if (steps[i].from == t) return i;
    steps.insert(steps.begin() + static_cast<std::ptrdiff_t>(i) + 1, {t, steps[i].free});
    return i + 1;
  }
  void add(Time start, Time d, std::int64_t delta) {
    if (start == kTimeInfinity) return;
    const Time end = end_of(start, d);
    const std::size_t first = split(start), last = end == kTimeInfinity ? steps.size() : split(end);
    for (std::size_t i = first; i < last; ++i) steps[i].free = static_cast<std::uint32_t>(steps[i].free + delta);
  }
  bool fits(Time start, Time d, std::uint32_t nodes) const {
    if (start == kTimeInfinity) return true;
    for (std::size_t i = index(start); i < steps.size() && steps[i].from < end_of(start, d); ++i)
      if (steps[i].free < nodes) return false;
    return true;
  }
  // The first step before `below` from which the window fits, counting `extra(j)` more free.
  template <class Extra>
  std::size_t first_fit(std::uint32_t nodes, Time d, std::size_t below, Extra extra) const {
    for (std::size_t i = 0; i < below; ++i) {
      if (steps[i].free + extra(i) < nodes) continue;
      bool ok = true;
      for (std::size_t j = i + 1; j < steps.size() && steps[j].from < end_of(steps[i].from, d); ++j)
        if (steps[j].free + extra(j) < nodes) ok = false;
      if (ok) return i;
    }
    return below;
  }
  Time earliest(std::uint32_t nodes, Time d) const {
    const std::size_t i = first_fit(nodes, d, steps.size(), [](std::size_t) { return 0u; });
    return i < steps.size() ? steps[i].from : kTimeInfinity;
  }
  Time earliest_if_released(const AvailabilityProfile::Booking& own) const {
    if (own.start == kTimeInfinity) return earliest(own.nodes, own.duration);
    const std::size_t first = index(own.start);
    const Time end = end_of(own.start, own.duration);
    const std::size_t i = first_fit(own.nodes, own.duration, first,
                                    [&](std::size_t j) { return j >= first && steps[j].from < end ? own.nodes : 0u; });
    return i < first ? steps[i].from : own.start;
  }
};
}  // namespace

TEST_CASE("profile: in chunks, every answer is the one a plain vector of steps gives", "[unit][policy]") {
  RandomStream rng(11, 5);
  for (int trial = 0; trial < 60; ++trial) {
    CAPTURE(trial);
    const Time now = static_cast<Time>(rng.below(100));
    std::vector<RunningJob> running;  // up to 600 release times: a dozen chunks and more
    for (std::uint64_t n = 1 + rng.below(600); n > 0; --n)
      running.push_back({n, static_cast<std::uint32_t>(1 + rng.below(8)), 0,
                         rng.below(50) == 0 ? kTimeInfinity : static_cast<Time>(rng.below(20000))});
    const auto free_now = static_cast<std::uint32_t>(rng.below(20));
    AvailabilityProfile profile(now, free_now, running);
    PlainProfile plain{profile.steps()};
    std::vector<AvailabilityProfile::Booking> held;
    for (int op = 0; op < 400; ++op) {
      const auto nodes = static_cast<std::uint32_t>(1 + rng.below(rng.below(4) == 0 ? 400 : 40));
      const Time duration = rng.below(20) == 0 ? kTimeInfinity : static_cast<Time>(1 + rng.below(3000));
      const Time at = now + static_cast<Time>(rng.below(25000));
      CAPTURE(op, nodes, duration, at);
      const Time earliest = plain.earliest(nodes, duration);
      REQUIRE(profile.earliest_start(nodes, duration) == earliest);
      // Searched from any time no later than the earliest start (a search of this shape earlier in a pass)
      REQUIRE(profile.earliest_start_from(nodes, duration, std::min(earliest, at)) == earliest);
      REQUIRE(profile.fits(at, duration, nodes) == plain.fits(at, duration, nodes));
      REQUIRE(profile.free_at(at) == plain.steps[plain.index(at)].free);
      if (!held.empty()) {
        const auto& own = held[rng.below(held.size())];
        REQUIRE(profile.earliest_start_if_released(own) == plain.earliest_if_released(own));
      }
      switch (rng.below(3)) {
        case 0: {  // a reservation where it fits: at its earliest start or at a random time
          const Time start = rng.below(2) == 0 ? plain.earliest(nodes, duration) : at;
          if (start != kTimeInfinity && plain.fits(start, duration, nodes)) {
            profile.reserve(start, duration, nodes);
            plain.add(start, duration, -std::int64_t{nodes});
            held.push_back({start, duration, nodes});
          }
          break;
        }
        case 1:
          if (!held.empty()) {  // one released
            const std::size_t k = rng.below(held.size());
            profile.release(held[k].start, held[k].duration, held[k].nodes);
            plain.add(held[k].start, held[k].duration, std::int64_t{held[k].nodes});
            held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
          }
          break;
        default:
          break;
      }
      const auto got = profile.steps();
      REQUIRE(got.size() == plain.steps.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        REQUIRE(got[i].from == plain.steps[i].from);
        REQUIRE(got[i].free == plain.steps[i].free);
      }
    }
  }
}

TEST_CASE("backfill: jobs of one shape are reserved one after another, each searched from the last", "[unit][policy]") {
  // 10 nodes; a running job holds 6 until 100. A (6 nodes, 50 s) waits for 100, then holds 6
  // until 150. B, C and D (8 nodes, 100 s each) have one shape: B fits from 150 (A's end), C once
  // B ends (250), D once C ends (350). Nothing else can start now (4 free, none asks 4 or fewer).
  ReservingBackfillPolicy every_job(0, 0);
  const PassDecision d =
      run_pass(every_job, 0, 10, {{9, 6, 0, 100}}, {job(1, 6, 50), job(2, 8, 100), job(3, 8, 100), job(4, 8, 100)});
  REQUIRE(d.start_now.empty());
  CHECK(reservation_of(d, 1) == 100);
  CHECK(reservation_of(d, 2) == 150);
  CHECK(reservation_of(d, 3) == 250);
  CHECK(reservation_of(d, 4) == 350);
}

TEST_CASE("backfill: reservations for the first K jobs, and none beyond the window", "[unit][policy]") {
  // 10 nodes; a running job holds 6 until 100, so 4 are free. Queue: A (6 nodes, 100 s),
  // B (7 nodes, 100 s), C (4 nodes, 250 s). A's earliest start is 100; B's, after A, 200. C fits
  // now on the 4 free nodes until 250 unless B is reserved: from 200 B leaves 3 free.
  const std::vector<RunningJob> running{{9, 6, 0, 100}};
  const std::vector<QueuedJob> queue{job(1, 6, 100), job(2, 7, 100), job(3, 4, 250)};
  const auto pass_with = [&](std::size_t reserved, Time window) {
    ReservingBackfillPolicy p(reserved, window);
    return run_pass(p, 0, 10, running, queue);
  };
  PassDecision d = pass_with(1, 0);  // EASY: only A reserved, C backfills
  REQUIRE(d.start_now == std::vector<JobId>{3});
  REQUIRE(reservation_of(d, 1) == 100);
  d = pass_with(2, 0);  // A and B reserved: C would delay B
  REQUIRE(d.start_now.empty());
  REQUIRE(reservation_of(d, 1) == 100);
  REQUIRE(reservation_of(d, 2) == 200);
  REQUIRE(reservation_of(d, 3) == -1);  // the third job: no reservation
  d = pass_with(0, 0);                  // every job: C after B, at 300
  REQUIRE(d.start_now.empty());
  REQUIRE(reservation_of(d, 3) == 300);
  d = pass_with(2, 150);  // B's 200 lies beyond a 150-s window: not reserved, C backfills
  REQUIRE(d.start_now == std::vector<JobId>{3});
  REQUIRE(reservation_of(d, 2) == -1);
}
