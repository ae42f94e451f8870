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

LasResult run_example(const std::string& scheduler, SyncMode sync = SyncMode::sequential, Time kairos_quantum = 0) {
  LasParams p;
  p.kairos_quantum = kairos_quantum;  // 0: the hand-worked schedules re-evaluate on arrivals and ends only
  p.closed_loop_load = 0;             // open loop: the example's submit times
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
  const Attributes s = las_summary(r);
  REQUIRE(s.at("preemptions") == AttrValue{std::int64_t{2}});
}

TEST_CASE("las model: both schedulers pass the rollback check", "[unit][model][las][rollback-check]") {
  for (const char* scheduler : {"proposed", "kairos"}) {
    CAPTURE(scheduler);
    for (const Time quantum : {Time{0}, kTicksPerSecond}) {  // Kairos's quantum off and on
      const LasResult reference = run_example(scheduler, SyncMode::sequential, quantum);
      const LasResult checked = run_example(scheduler, SyncMode::rollback_check, quantum);
      REQUIRE(checked.tasks.size() == reference.tasks.size());
      for (std::size_t i = 0; i < reference.tasks.size(); ++i)
        REQUIRE(checked.tasks[i].end_s == reference.tasks[i].end_s);
    }
  }
  for (const double loop : {kStudyClusterLoad, 0.0}) {  // closed and open loop
    LasParams p;
    p.nodes = 8;
    p.closed_loop_load = loop;
    EngineConfig e;
    e.sync = SyncMode::rollback_check;
    const workload::Workload w = testing::random_tasks(3, 300, 2.0);
    REQUIRE(run_las(Communicator::self(), w, p, e).tasks.size() == w.jobs.size());
  }
}

TEST_CASE("las model: the closed loop releases the next task exactly when the cluster load drops below the bound",
          "[unit][model][las]") {
  // One node (1, 1), bound 1.0; tasks of (0.5, 0.5) — each adds load sqrt(0.5) = 0.707 — with
  // submit times far away (ignored by the loop) and run times 100, 300, 50, 10 s.
  workload::Workload w;
  const double run[] = {100, 300, 50, 10};
  for (std::uint64_t i = 0; i < 4; ++i) {
    workload::Job j;
    j.id = i;
    j.submit = from_seconds(10000.0 * static_cast<double>(i + 1));
    j.run = from_seconds(run[i]);
    j.cpus = j.memory = 0.5F;
    w.jobs.push_back(j);
  }
  for (const char* scheduler : {"proposed", "kairos"}) {
    CAPTURE(scheduler);
    LasParams p;
    p.nodes = 1;
    p.closed_loop_load = 1.0;
    p.scheduler = scheduler;
    // At 0: load 0 < 1 releases task 0 (load 0.707 < 1), then task 1 (1.414): stop. Task 0 ends
    // at 100: load 0.707, task 2 is released at 100 and ends at 150, releasing task 3 (ends 160).
    const LasResult r = run_las(Communicator::self(), w, p, EngineConfig{});
    REQUIRE(r.tasks.size() == 4);
    const double submit[] = {0, 0, 100, 150}, end[] = {100, 300, 150, 160};
    for (std::size_t i = 0; i < 4; ++i) {
      CAPTURE(i);
      REQUIRE(r.tasks[i].submit_s == submit[i]);
      REQUIRE(r.tasks[i].first_start_s == submit[i]);
      REQUIRE(r.tasks[i].end_s == end[i]);
      REQUIRE(r.tasks[i].slowdown == 1.0);
    }
    REQUIRE(r.preemptions == 0);
  }
  SECTION("the default bound, sqrt 2, is not reached by two such tasks: load 1.41421356... is not below it") {
    LasParams p;
    p.nodes = 1;
    // Two tasks make exactly 2 x sqrt(0.5) = sqrt(2): the third is released only at 100.
    const LasResult r = run_las(Communicator::self(), w, p, EngineConfig{});
    REQUIRE(r.tasks[2].submit_s == 100);
  }
}

TEST_CASE("las model: invariants on random workloads", "[unit][model][las]") {
  for (const auto& [scheduler, loop] :
       {std::pair{"proposed", kStudyClusterLoad}, std::pair{"kairos", kStudyClusterLoad}, std::pair{"proposed", 0.0},
        std::pair{"kairos", 0.0}}) {
    CAPTURE(scheduler, loop);
    const workload::Workload w = testing::random_tasks(5, 3000, 0.5);
    LasParams p;
    p.closed_loop_load = loop;
    p.nodes = 16;
    p.scheduler = scheduler;
    p.min_run = from_seconds(std::int64_t{5});
    p.context.series_interval = from_seconds(std::int64_t{60});
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
