// The LAS model end to end: the study's example through central and node LPs, by hand, and
// invariants on random workloads.
#include <catch2/catch.hpp>

#include <set>

#include "../support/random_tasks.hpp"
#include "tracewarp/model/las/las_model.hpp"

using namespace tracewarp;
using namespace tracewarp::las;

namespace {
// One node of 4 cores / 8 GB. r0 (1, 1 GB) at 0, r1 (2, 4 GB) at 10, r2 (1, 3 GB) at 20, each
// needing 1000 s; t (2, 4 GB) at 100 needing 50 s. The node is full when t arrives.
workload::Workload example() {
  workload::Workload w;
  const double spec[4][4] = {{0, 1000, 1, 1}, {10, 1000, 2, 4}, {20, 1000, 1, 3}, {100, 50, 2, 4}};
  for (std::uint64_t i = 0; i < 4; ++i) {
    workload::Job j;
    j.id = i;
    j.submit = from_seconds(spec[i][0]);
    j.run = from_seconds(spec[i][1]);
    j.cpus = static_cast<float>(spec[i][2]);
    j.memory = static_cast<float>(spec[i][3]);
    w.jobs.push_back(j);
  }
  return w;
}

LasResult run_example(const std::string& scheduler, SyncMode sync = SyncMode::sequential) {
  LasParams p;
  p.nodes = 1;
  p.capacity = {4, 8};
  p.scheduler = scheduler;
  p.min_run = 0;
  EngineConfig e;
  e.sync = sync;
  return run_las(Communicator::self(), example(), p, e);
}
}  // namespace

TEST_CASE("las model: the study's example, proposed — only r1 is preempted", "[unit][model][las]") {
  // The central LP finds no free room (the node is full) and falls back to the least-loaded node
  // below L: load sqrt(1^2 + 1^2) = 1.41 < 1.5. The node preempts r1 (90 s attained); t runs
  // 100-150; r1 resumes at 150 and needs 910 s more: it ends at 1060 (wait 50, slowdown 1.05).
  const LasResult r = run_example("proposed");
  REQUIRE(r.tasks.size() == 4);
  REQUIRE(r.tasks[0].end_s == 1000);
  REQUIRE(r.tasks[1].first_start_s == 10);
  REQUIRE(r.tasks[1].end_s == 1060);
  REQUIRE(r.tasks[1].preemptions == 1);
  REQUIRE(r.tasks[1].wait_s == 50);
  REQUIRE(r.tasks[1].slowdown == Approx(1.05));
  REQUIRE(r.tasks[2].end_s == 1020);
  REQUIRE(r.tasks[3].first_start_s == 100);
  REQUIRE(r.tasks[3].end_s == 150);
  REQUIRE(r.preemptions == 1);
}

TEST_CASE("las model: the study's example, Kairos — r0 and r1 are preempted", "[unit][model][las]") {
  // Greedy preemption takes r0 (not enough) then r1. At 150 both resume (r1 first: less
  // attained): r0 ends at 150 + 900 = 1050, r1 at 150 + 910 = 1060.
  const LasResult r = run_example("kairos");
  REQUIRE(r.tasks[0].end_s == 1050);
  REQUIRE(r.tasks[0].preemptions == 1);
  REQUIRE(r.tasks[1].end_s == 1060);
  REQUIRE(r.tasks[3].end_s == 150);
  REQUIRE(r.preemptions == 2);
  const io::Attributes s = las_summary(r);
  REQUIRE(s.at("preemptions") == io::AttrValue{std::int64_t{2}});
}

TEST_CASE("las model: both schedulers pass the rollback check", "[unit][model][las][rollback-check]") {
  for (const char* scheduler : {"proposed", "kairos"}) {
    CAPTURE(scheduler);
    const LasResult reference = run_example(scheduler);
    const LasResult checked = run_example(scheduler, SyncMode::rollback_check);
    REQUIRE(checked.tasks.size() == reference.tasks.size());
    for (std::size_t i = 0; i < reference.tasks.size(); ++i)
      REQUIRE(checked.tasks[i].end_s == reference.tasks[i].end_s);
  }
  LasParams p;
  p.nodes = 8;
  EngineConfig e;
  e.sync = SyncMode::rollback_check;
  const workload::Workload w = testing::random_tasks(3, 300, 2.0);
  REQUIRE(run_las(Communicator::self(), w, p, e).tasks.size() == w.jobs.size());
}

TEST_CASE("las model: invariants on random workloads", "[unit][model][las]") {
  for (const char* scheduler : {"proposed", "kairos"}) {
    CAPTURE(scheduler);
    const workload::Workload w = testing::random_tasks(5, 3000, 0.5);
    LasParams p;
    p.nodes = 16;
    p.scheduler = scheduler;
    p.min_run = from_seconds(std::int64_t{5});
    p.interval = from_seconds(std::int64_t{60});
    const LasResult r = run_las(Communicator::self(), w, p, EngineConfig{});
    REQUIRE(r.tasks.size() == w.jobs.size());  // every task completes exactly once
    std::set<std::uint64_t> seen;
    for (const TaskRow& t : r.tasks) {
      REQUIRE(seen.insert(t.index).second);
      REQUIRE(t.first_start_s >= t.submit_s);
      REQUIRE(t.end_s >= t.first_start_s + t.run_s);  // attained service never exceeds run time
      REQUIRE(t.slowdown >= 1.0);
      REQUIRE(t.node < 16);
    }
    for (const IntervalRow& i : r.intervals) {  // never over-allocated
      REQUIRE(i.cpu_utilisation <= 1.0 + 1e-9);
      REQUIRE(i.memory_utilisation <= 1.0 + 1e-9);
    }
    REQUIRE(las_summary(r).count("slowdown_p99") == 1);
    const std::vector<CdfRow> cdf = slowdown_cdf(r.tasks);
    REQUIRE(cdf.size() == 1001);
    REQUIRE(cdf.front().slowdown >= 1.0);
    for (std::size_t k = 1; k < cdf.size(); ++k) REQUIRE(cdf[k].slowdown >= cdf[k - 1].slowdown);
  }
}

TEST_CASE("las model: tasks larger than a node are refused with their id", "[unit][model][las]") {
  workload::Workload w = example();
  w.jobs[2].cpus = 5;
  LasParams p;
  p.nodes = 1;
  p.capacity = {4, 8};
  REQUIRE_THROWS_WITH(run_las(Communicator::self(), w, p, EngineConfig{}), Catch::Contains("task 2 needs more"));
}
