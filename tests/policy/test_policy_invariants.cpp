// Invariants of the batch policies over whole workloads (random here; real traces in the
// validation label): capacity never exceeded, no start before submission, FCFS never reorders,
// EASY never delays its head's reservation, conservative never delays any reservation, interval
// plans lie on interval boundaries inside the horizon; no policy ever books a node twice.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <utility>

#include "../support/random_jobs.hpp"
#include "replay.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/policy/batch/backfill.hpp"
#include "tracewarp/policy/batch/interval.hpp"
#include "tracewarp/policy/batch/wrsa.hpp"
#include "tracewarp/traces/trace.hpp"

using namespace tracewarp;
using namespace tracewarp::testing;

namespace {

void check_common(const ReplayResult& r, std::uint32_t machine, std::size_t jobs) {
  REQUIRE(r.peak_used <= machine);
  REQUIRE(r.double_booked == 0);
  REQUIRE(r.start_order.size() == jobs);  // everything ran
  for (const auto& [id, rec] : r.jobs) {
    REQUIRE(rec.start >= rec.submit);
    REQUIRE(rec.end > rec.start);
  }
}

bool non_increasing(const std::vector<Time>& v) {
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[i - 1]) return false;
  return true;
}

void check_policy_invariants(const std::vector<workload::Job>& jobs, std::uint32_t machine, std::size_t depth) {
  {
    batch::FcfsPolicy fcfs;
    const ReplayResult r = replay(jobs, machine, fcfs, depth);
    check_common(r, machine, jobs.size());
    for (std::size_t i = 1; i < r.start_order.size(); ++i) REQUIRE(r.start_order[i] > r.start_order[i - 1]);
  }
  {
    batch::EasyBackfillPolicy easy;
    const ReplayResult r = replay(jobs, machine, easy, depth);
    check_common(r, machine, jobs.size());
    for (const auto& [id, rec] : r.jobs) {
      CAPTURE(id);
      REQUIRE(non_increasing(rec.head_reservations));  // backfilling never pushed the head back
      if (!rec.head_reservations.empty()) REQUIRE(rec.start <= rec.head_reservations.front());
    }
  }
  {  // Slurm's backfill: with one reservation and no window, EASY start for start
    batch::EasyBackfillPolicy easy;
    batch::ReservingBackfillPolicy one(1, 0);
    const ReplayResult a = replay(jobs, machine, easy, depth), b = replay(jobs, machine, one, depth);
    check_common(b, machine, jobs.size());
    REQUIRE(a.start_order == b.start_order);
    for (const auto& [id, rec] : a.jobs) REQUIRE(b.jobs.at(id).start == rec.start);
    for (const auto& [reserved, window] : {std::pair<std::size_t, double>{0, 0}, {3, 0}, {3, 600}, {0, 300}}) {
      CAPTURE(reserved, window);
      batch::ReservingBackfillPolicy k(reserved, from_seconds(window));
      check_common(replay(jobs, machine, k, depth), machine, jobs.size());
    }
  }
  {
    batch::ConservativeBackfillPolicy conservative;
    const ReplayResult r = replay(jobs, machine, conservative, depth);
    check_common(r, machine, jobs.size());
    REQUIRE(r.broken_reservations == 0);
    for (const auto& [id, rec] : r.jobs) {
      CAPTURE(id);
      if (depth == 0) REQUIRE(non_increasing(rec.reservations));  // no reservation is ever delayed
      if (!rec.reservations.empty()) REQUIRE(rec.start <= rec.reservations.front());
    }
  }
  for (const char* name : {"A", "B", "C"}) {  // interval plans: on boundaries, inside the horizon
    CAPTURE(name);
    batch::IntervalPolicy interval(batch::parse_interval_pattern(name));
    std::set<Time> boundaries;
    Time at = 0;
    for (const Time length : interval.pattern().lengths) boundaries.insert(std::exchange(at, at + length));
    std::vector<workload::Job> plannable;  // (the model rejects longer jobs at submission)
    std::copy_if(jobs.begin(), jobs.end(), std::back_inserter(plannable),
                 [&](const workload::Job& j) { return j.requested <= interval.pattern().horizon(); });
    const ReplayResult r = replay(plannable, machine, interval, depth);
    check_common(r, machine, plannable.size());
    for (const auto& [id, rec] : r.jobs)
      for (const Time ahead : rec.planned_ahead) {
        CAPTURE(id, ahead);
        REQUIRE(boundaries.count(ahead) == 1);
        REQUIRE(ahead < interval.pattern().horizon());
      }
  }
}

}  // namespace

TEST_CASE("batch policies: invariants on random workloads with ties and kills", "[unit][policy]") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    check_policy_invariants(random_jobs(seed, 400, 16), 16, 0);
  }
  check_policy_invariants(random_jobs(4, 400, 16), 16, 5);
}

TEST_CASE("batch policies: invariants on KTH-SP2 (full) and RICC (first 50,000 jobs)", "[validation][policy]") {
  const char* env = std::getenv("TRACEWARP_DATA");
  const std::string traces = std::string(env ? env : TRACEWARP_DEFAULT_DATA) + "/traces/";
  if (!std::filesystem::exists(traces + "KTH-SP2-1996-2.1-cln.swf.gz")) {
    WARN("SKIPPED: traces not found under " + traces + "; set TRACEWARP_DATA");
    return;
  }
  const workload::Workload kth = traces::load_workload(traces + "KTH-SP2-1996-2.1-cln.swf.gz", {});
  check_policy_invariants(kth.jobs, 100, 0);
  {  // WRSA-OR with every user's WRSA equal is EASY, start for start
    batch::EasyBackfillPolicy easy;
    batch::WrsaOneReservedPolicy wrsa_or;
    const ReplayResult a = replay(kth.jobs, 100, easy), b = replay(kth.jobs, 100, wrsa_or);
    REQUIRE(a.start_order == b.start_order);
    for (const auto& [id, rec] : a.jobs) REQUIRE(b.jobs.at(id).start == rec.start);
  }
  workload::Workload ricc = traces::load_workload(traces + "RICC-2010-2.swf.gz", {});
  ricc.jobs.resize(50000);
  check_policy_invariants(ricc.jobs, 1024, 100);
}
