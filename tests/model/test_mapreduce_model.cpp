// The MapReduce model end to end: progress integrated by hand, invariants, the study's
// robustness finding in small, and the rollback check.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <map>

#include "tracewarp/model/mapreduce/mapreduce_model.hpp"

using namespace tracewarp;
using namespace tracewarp::mapreduce;

namespace {
MapReduceParams small(const std::string& detector, std::uint64_t seed = 1) {
  MapReduceParams p;
  p.detector = detector;
  p.workers = 6;
  p.maps = 120;
  p.reduces = 20;
  p.state_change_at = from_seconds(std::int64_t{40});
  p.context.seed = seed;
  return p;
}
const AttemptRow& only_completed(const MapReduceResult& r, std::uint32_t job, std::uint32_t task) {
  for (const AttemptRow& a : r.attempts)
    if (a.job == job && a.task == task && a.outcome == 0) return a;
  FAIL("no completed attempt");
  return r.attempts.front();
}
}  // namespace

TEST_CASE("mapreduce: progress is shared exactly when cores drop mid-task", "[unit][mapreduce]") {
  // One worker, 4 cores, two maps of 10 core-s start at 1 ms at rate 1 each; at 5 s the cores
  // drop to 1: each goes on at 0.5. Done by then: 4.999; the remaining 5.001 take 10.002 s.
  MapReduceParams p = small("hadoop");
  p.workers = 1;
  p.maps = 2;
  p.reduces = 0;
  p.state_change_at = from_seconds(std::int64_t{5});
  p.speculation_slow_sigma = 1e9;
  const MapReduceResult r = run_mapreduce(Communicator::self(), p, EngineConfig{});
  REQUIRE(r.attempts.size() == 2);
  for (std::uint32_t t = 0; t < 2; ++t) CHECK(only_completed(r, 0, t).end_s == Approx(15.002).epsilon(1e-9));
}

TEST_CASE("mapreduce: an attempt waits its start-up, using no core, and then works", "[unit][mapreduce]") {
  // One worker, 1 core. Map 0 launches at 0.001 s; with a 3-s start-up it works from 3.001 and
  // ends at 13.001; map 1 launches with it, so both share the core once working: each at 0.5
  // from 3.001, 10 core-s -> 23.001. Without the start-up: 20.001. Exactly 3 s later.
  MapReduceParams p = small("hadoop");
  p.workers = 1;
  p.cores = 1;
  p.maps = 2;
  p.reduces = 0;
  p.state_change = false;
  p.speculation_slow_sigma = 1e9;
  const MapReduceResult plain = run_mapreduce(Communicator::self(), p, EngineConfig{});
  p.startup = from_seconds(std::int64_t{3});
  const MapReduceResult started = run_mapreduce(Communicator::self(), p, EngineConfig{});
  for (std::uint32_t t = 0; t < 2; ++t) {
    CHECK(only_completed(plain, 0, t).end_s == Approx(20.001).epsilon(1e-9));
    CHECK(only_completed(started, 0, t).end_s == Approx(23.001).epsilon(1e-9));
  }
  // While one attempt starts up the other has the core alone: job 1's map joins at 4 s.
  p.maps = 1;
  p.jobs = 2;
  p.job_interval = from_seconds(std::int64_t{4});
  const MapReduceResult staggered = run_mapreduce(Communicator::self(), p, EngineConfig{});
  // Job 0: works alone 3.001-7.001 (4 done), then shares with job 1's map (working from 7.001):
  // 6 left at 0.5 -> 19.001. Job 1: 6 done by then, 4 left alone -> 23.001.
  CHECK(only_completed(staggered, 0, 0).end_s == Approx(19.001).epsilon(1e-9));
  CHECK(only_completed(staggered, 1, 0).end_s == Approx(23.001).epsilon(1e-9));
}

TEST_CASE("mapreduce: a second task on the node halves the first one's rate", "[unit][mapreduce]") {
  // One core. Job 0's map runs alone from 0.001 s at rate 1; job 1's map joins at 4.001 s and
  // both go on at 0.5: job 0's has 6 core-s left (12 s) -> 16.001 s; job 1's did 6 by then and
  // finishes its last 4 alone at rate 1 -> 20.001 s.
  MapReduceParams p = small("hadoop");
  p.workers = 1;
  p.cores = 1;
  p.maps = 1;
  p.reduces = 0;
  p.jobs = 2;
  p.job_interval = from_seconds(std::int64_t{4});
  p.state_change = false;
  p.speculation_slow_sigma = 1e9;
  const MapReduceResult r = run_mapreduce(Communicator::self(), p, EngineConfig{});
  CHECK(only_completed(r, 0, 0).end_s == Approx(16.001).epsilon(1e-9));
  CHECK(only_completed(r, 1, 0).end_s == Approx(20.001).epsilon(1e-9));
  REQUIRE(r.job_completion_s.size() == 2);
  CHECK(r.job_completion_s[1] == Approx(16.001).epsilon(1e-9));  // from its submission at 4 s
}

TEST_CASE("mapreduce: invariants for every detector and action", "[unit][mapreduce]") {
  for (const char* detector : {"hadoop", "proposed", "conventional"})
    for (const char* action : {"kill", "copy"})
      for (const double p_abnormal : {0.0, 0.3}) {
        CAPTURE(detector, action, p_abnormal);
        MapReduceParams p = small(detector, 7);
        p.action = action;
        p.abnormal_probability = p_abnormal;
        const MapReduceResult r = run_mapreduce(Communicator::self(), p, EngineConfig{});
        std::map<std::uint32_t, int> completed;
        double last_map_end = 0, first_reduce_start = 1e300;
        std::map<std::uint32_t, std::vector<std::pair<double, double>>> by_node;
        for (const AttemptRow& a : r.attempts) {
          REQUIRE(a.end_s >= a.start_s);
          if (a.outcome == 0) ++completed[a.task];
          if (a.kind == 0 && a.outcome == 0) last_map_end = std::max(last_map_end, a.end_s);
          if (a.kind == 1) first_reduce_start = std::min(first_reduce_start, a.start_s);
          by_node[a.node].push_back({a.start_s, a.end_s});
        }
        // Every task completes exactly once; a killed attempt produces no output.
        REQUIRE(completed.size() == p.maps + p.reduces);
        for (const auto& [task, n] : completed) REQUIRE(n == 1);
        // Reduces never start before the last map ends.
        REQUIRE(first_reduce_start >= last_map_end);
        // Containers never exceed a node's memory: at most 8 maps (1.5 GB of 12) at once.
        for (auto& [node, spans] : by_node) {
          std::vector<std::pair<double, int>> edges;
          for (const auto& [s, e] : spans) edges.push_back({s, 1}), edges.push_back({e, -1});
          std::sort(edges.begin(), edges.end());
          int open = 0;
          for (const auto& [t, d] : edges) REQUIRE((open += d) <= 8);
        }
      }
}

TEST_CASE("mapreduce: a short window judges far fewer healthy tasks than a long one under a state change",
          "[unit][mapreduce]") {
  // The study's cluster and job (the defaults): cores 4 -> 1 at 90 s, no abnormal task.
  MapReduceParams study;
  study.detector = "proposed";
  const MapReduceResult proposed = run_mapreduce(Communicator::self(), study, EngineConfig{});
  study.detector = "conventional";
  const MapReduceResult conventional = run_mapreduce(Communicator::self(), study, EngineConfig{});
  const auto judged = [](const MapReduceResult& r) {
    return std::get<std::int64_t>(mapreduce_summary(r).at("false_judgements"));
  };
  CHECK(judged(conventional) > 10 * std::max<std::int64_t>(1, judged(proposed)));
  // Acting only after many abnormal checks in a row suppresses every judgement.
  MapReduceParams patient = study;
  patient.consecutive = 100000;
  CHECK(judged(run_mapreduce(Communicator::self(), patient, EngineConfig{})) == 0);
}

TEST_CASE("mapreduce: Hadoop's speculation keeps its cap of copies in flight and waits after a copy",
          "[unit][mapreduce]") {
  // Cores drop to 1 of 4 at 40 s: most running maps fall below mean - 1 sigma and want copies.
  MapReduceParams p = small("hadoop", 3);
  p.speculation_minimum_allowed = 2;  // at most 2 copies in flight (the shares give 0 here)
  p.speculation_cap_total = 0;
  p.speculation_cap_running = 0;
  const MapReduceResult r = run_mapreduce(Communicator::self(), p, EngineConfig{});
  std::vector<std::pair<double, double>> copies;  // (start, end) of each speculative attempt
  for (const AttemptRow& a : r.attempts)
    if (a.speculative) copies.push_back({a.start_s, a.end_s});
  REQUIRE(copies.size() >= 3);  // the cap binds, not the lack of candidates
  std::sort(copies.begin(), copies.end());
  for (std::size_t i = 0; i < copies.size(); ++i) {
    CAPTURE(i);
    int in_flight = 0;  // copies running when this one was launched, itself included
    for (const auto& [start, end] : copies) in_flight += start <= copies[i].first && copies[i].first < end;
    REQUIRE(in_flight <= 2);
    // One check launches at most one copy per task kind; the next check is 15 s later.
    if (i > 0 && copies[i].first != copies[i - 1].first) REQUIRE(copies[i].first - copies[i - 1].first >= 15.0);
  }
  // Without the wait (0 s) and with a larger cap, copies come at consecutive 1-s checks.
  p.speculation_retry_after_copy = 0;
  p.speculation_minimum_allowed = 100;
  const MapReduceResult eager = run_mapreduce(Communicator::self(), p, EngineConfig{});
  std::size_t eager_copies = 0;
  for (const AttemptRow& a : eager.attempts) eager_copies += a.speculative;
  REQUIRE(eager_copies > copies.size());
}

TEST_CASE("mapreduce: every LP type passes the rollback check", "[unit][mapreduce]") {
  for (const std::int64_t startup_s : {0, 3}) {  // with and without start-ups
    CAPTURE(startup_s);
    MapReduceParams p = small("conventional");
    p.abnormal_probability = 0.2;
    p.startup = from_seconds(startup_s);
    const MapReduceResult reference = run_mapreduce(Communicator::self(), p, EngineConfig{});
    EngineConfig e;
    e.sync = SyncMode::rollback_check;
    const MapReduceResult checked = run_mapreduce(Communicator::self(), p, e);
    REQUIRE(checked.attempts.size() == reference.attempts.size());
    REQUIRE(std::memcmp(checked.attempts.data(), reference.attempts.data(),
                        reference.attempts.size() * sizeof(AttemptRow)) == 0);
  }
}
