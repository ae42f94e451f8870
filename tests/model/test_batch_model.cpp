// The batch model end to end on a schedule worked out by hand.
//
// 8 nodes in 2 node blocks of 4. Jobs (submit, actual run, requested, nodes):
//   0: t=0,   100 s, 100 s, 4      1: t=0 (tie), 50 s, 200 s, 4 (ends early)
//   2: t=10,  300 s, 100 s, 8 (killed at its walltime)
//   3: t=20,   30 s,  40 s, 2      4: t=100 (the instant job 0 ends), 10 s, 10 s, 1
// EASY: 0 and 1 start at 0 (nodes 0-3, 4-7). At 10 job 2 is the head, shadow 200 (job 1's
// requested end): T0 = 200. At 50 job 1 ends: shadow becomes 100 (job 0's requested end) with
// no extra nodes; job 3 ends by 100, so it backfills at 50 on nodes 4-5 and ends at 80. At 100
// job 0 ends, job 4 arrives, the pass starts job 2 on all 8 nodes (killed at 200) and plans
// job 4 at 200 (T0 = 200); job 4 runs 200-210 on node 0.
#include <catch2/catch.hpp>
#include <cstring>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <map>
#include <tuple>

#include "../policy/replay.hpp"
#include "../support/batch_policies.hpp"
#include "../support/random_jobs.hpp"
#include "../support/temp_file.hpp"
#include "tracewarp/model/batch/batch_model.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {

// Jobs 100, 101, ... from (submit, actual run, requested, nodes) rows, in seconds.
workload::Workload jobs_from(std::initializer_list<std::array<std::int64_t, 4>> spec, std::int32_t user) {
  workload::Workload w;
  for (const auto& [submit, run, requested, nodes] : spec) {
    workload::Job j;
    j.id = 100 + w.jobs.size();
    j.submit = from_seconds(submit);
    j.run = from_seconds(run);
    j.requested = from_seconds(requested);
    j.nodes = static_cast<std::uint32_t>(nodes);
    j.user = user;
    w.jobs.push_back(j);
  }
  return w;
}

workload::Workload hand_workload() {
  return jobs_from({{0, 100, 100, 4}, {0, 50, 200, 4}, {10, 300, 100, 8}, {20, 30, 40, 2}, {100, 10, 10, 1}}, 7);
}

BatchResult run_hand(const testing::TestedPolicy& policy, SyncMode sync = SyncMode::sequential,
                     Resources resources = Resources::exclusive_nodes) {
  BatchParams p;
  p.nodes = 8;
  p.block_nodes = 4;
  policy.apply(p);
  workload::Workload w = hand_workload();
  if (resources != Resources::exclusive_nodes) {  // the same jobs sized in processors, 4 per node
    p.resources = resources;
    p.cores_per_node = 4;
    p.allocation = resources == Resources::shared_nodes ? Allocation::packed : Allocation::any;
    for (workload::Job& j : w.jobs) j.procs = j.nodes * 4;
  }
  EngineConfig e;
  e.sync = sync;
  return run_batch(Communicator::self(), w, p, e);
}

struct Expect {
  double start, end, t0;
  std::uint32_t first_node;
  JobStatus status;
};

void check(const BatchResult& r, const std::vector<Expect>& expected) {
  REQUIRE(r.jobs.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    const JobRow& row = r.jobs[i];
    REQUIRE(row.index == i);
    REQUIRE(row.id == 100 + i);
    REQUIRE(row.start_s == expected[i].start);
    REQUIRE(row.end_s == expected[i].end);
    REQUIRE(row.t0_s == expected[i].t0);
    REQUIRE(row.first_node == expected[i].first_node);
    REQUIRE(row.status == static_cast<std::int16_t>(expected[i].status));
    if (expected[i].status == JobStatus::rejected) continue;
    REQUIRE(row.wait_s == row.start_s - row.submit_s);
    REQUIRE(row.delay_s == std::max(0.0, row.start_s - row.t0_s));
  }
}

}  // namespace

TEST_CASE("batch model: EASY on the hand-worked schedule", "[unit][model][batch]") {
  const BatchResult r = run_hand("easy");
  check(r, {{0, 100, 0, 0, JobStatus::completed},
            {0, 50, 0, 4, JobStatus::completed},
            {100, 200, 200, 0, JobStatus::killed},
            {50, 80, 50, 4, JobStatus::completed},
            {200, 210, 200, 0, JobStatus::completed}});
  REQUIRE(r.jobs[2].run_s == 100);  // executed: min(300, 100)
  // busy node-seconds, from the node blocks: 4*100 + 4*50 + 8*100 + 2*30 + 1*10
  REQUIRE(r.busy_node_seconds == 1470);
  // samples every 300 s, after each instant's pass: t=0 (8 nodes, 2 running), then t=300, all done
  REQUIRE(r.series.size() == 2);
  REQUIRE(r.series[0].used_nodes == 8);
  REQUIRE(r.series[0].running == 2);
  REQUIRE(r.series[1].used_nodes == 0);
}

TEST_CASE("batch model: conservative on the hand-worked schedule", "[unit][model][batch]") {
  // As EASY, but job 3 gets a plan when it arrives: [20,100) has no free node, [100,200) has 4
  // (job 2 holds [200,300)), so T0 = 100. At 50 compression moves job 2 to 100 and job 3 to now.
  check(run_hand("conservative"), {{0, 100, 0, 0, JobStatus::completed},
                                   {0, 50, 0, 4, JobStatus::completed},
                                   {100, 200, 200, 0, JobStatus::killed},
                                   {50, 80, 100, 4, JobStatus::completed},
                                   {200, 210, 200, 0, JobStatus::completed}});
}

TEST_CASE("batch model: FCFS on the hand-worked schedule", "[unit][model][batch]") {
  // Job 2 blocks the queue until it starts at 100; jobs 3 and 4 start when it ends, at 200
  // (nodes 0-1 and 2). FCFS makes no plans, so T0 is the start.
  check(run_hand("fcfs"), {{0, 100, 0, 0, JobStatus::completed},
                           {0, 50, 0, 4, JobStatus::completed},
                           {100, 200, 100, 0, JobStatus::killed},
                           {200, 230, 200, 0, JobStatus::completed},
                           {200, 210, 200, 2, JobStatus::completed}});
}

TEST_CASE("batch model: jobs of whole nodes' processors keep the hand-worked schedules in every mode",
          "[unit][model][batch]") {
  // Counting processors (4 per node) or packing cores onto nodes changes nothing for jobs of
  // whole nodes: the same starts, ends and plans, on the same nodes (first processor = 4 x node).
  for (const char* policy : {"fcfs", "easy", "conservative"}) {
    CAPTURE(policy);
    const BatchResult nodes = run_hand(policy);
    for (const Resources mode : {Resources::processors, Resources::shared_nodes}) {
      CAPTURE(to_string(mode));
      const BatchResult r = run_hand(policy, SyncMode::sequential, mode);
      REQUIRE(r.jobs.size() == nodes.jobs.size());
      for (std::size_t i = 0; i < r.jobs.size(); ++i) {
        CAPTURE(i);
        REQUIRE(r.jobs[i].start_s == nodes.jobs[i].start_s);
        REQUIRE(r.jobs[i].end_s == nodes.jobs[i].end_s);
        REQUIRE(r.jobs[i].t0_s == nodes.jobs[i].t0_s);
        REQUIRE(r.jobs[i].first_node == (mode == Resources::processors ? 4 : 1) * nodes.jobs[i].first_node);
      }
      REQUIRE(r.busy_node_seconds == 4 * nodes.busy_node_seconds);  // processor-seconds
    }
  }
}

TEST_CASE("batch model: a walltime grace lets jobs run past their walltime by that much", "[unit][model][batch]") {
  // Job 2 (300 s, requested 100 s) with a grace of 50 s runs 150 s and is still killed; the others
  // end within their requests.
  BatchParams p;
  p.nodes = 8;
  p.walltime_grace = from_seconds(50.0);
  const BatchResult r = run_batch(Communicator::self(), hand_workload(), p, EngineConfig{});
  REQUIRE(r.jobs[2].run_s == 150);
  REQUIRE(r.jobs[2].status == static_cast<std::int16_t>(JobStatus::killed));
  p.walltime_grace = from_seconds(200.0);  // 300 s fits in 100 + 200: completed
  const BatchResult longer = run_batch(Communicator::self(), hand_workload(), p, EngineConfig{});
  REQUIRE(longer.jobs[2].run_s == 300);
  REQUIRE(longer.jobs[2].status == static_cast<std::int16_t>(JobStatus::completed));
}

TEST_CASE("batch model: every policy passes the rollback check; oversized jobs are rejected",
          "[unit][model][batch][rollback-check]") {
  for (const testing::TestedPolicy& policy : testing::any_node_policies()) {
    CAPTURE(policy);
    const BatchResult reference = run_hand(policy);
    const BatchResult checked = run_hand(policy, SyncMode::rollback_check);
    REQUIRE(checked.jobs.size() == reference.jobs.size());
    for (std::size_t i = 0; i < reference.jobs.size(); ++i) REQUIRE(checked.jobs[i].end_s == reference.jobs[i].end_s);
  }
  workload::Workload w = hand_workload();
  w.jobs[3].nodes = 9;  // larger than the machine
  BatchParams p;
  p.nodes = 8;
  const BatchResult r = run_batch(Communicator::self(), w, p, EngineConfig{});
  REQUIRE(r.jobs[3].status == static_cast<std::int16_t>(JobStatus::rejected));
  REQUIRE(r.jobs[3].start_s == -1);
  REQUIRE(batch_summary(r, p).at("rejected") == AttrValue{std::int64_t{1}});
}

namespace {
// Two resource groups on 8 nodes: small = nodes 0-3 for jobs of 1-2 nodes, large = nodes 4-7
// for jobs of 3-4 nodes; interval scheduling with four 100-s intervals. Jobs (submit, run,
// requested, nodes):
//   A: 0, 150, 150, 3 (large)  B: 0, 50, 100, 2 (small)  C: 10, 100, 100, 4 (large)
//   D: 20, 10, 10, 5 (no group takes it: rejected)       E: 20, 30, 60, 1 (small)
// Large group: A starts at 0 on its first node (machine node 4). At 10, A holds the intervals
// beginning at 10 and 110 (before its requested end 150), so C is planned at 210 (T0); at 150 A
// ends and C starts, on node 4, until 250. Small group: B starts at 0 on nodes 0-1; at 20 B holds
// only the first interval and E starts on node 2, until 50.
workload::Workload grouped_workload() {
  return jobs_from({{0, 150, 150, 3}, {0, 50, 100, 2}, {10, 100, 100, 4}, {20, 10, 10, 5}, {20, 30, 60, 1}}, 3);
}

std::vector<ResourceGroup> two_groups() {
  std::vector<ResourceGroup> groups(2);
  groups[0] = {std::string("small"), 4, 1, 2};
  groups[1] = {std::string("large"), 4, 3, 4};
  return groups;
}

BatchResult run_grouped(SyncMode sync = SyncMode::sequential) {
  BatchParams p;
  p.nodes = 8;
  p.groups = two_groups();
  p.allocation = Allocation::contiguous;
  p.policy = "interval";
  p.policy_settings.set("interval_pattern", std::string("100s:400s"));
  p.block_nodes = 2;
  EngineConfig e;
  e.sync = sync;
  return run_batch(Communicator::self(), grouped_workload(), p, e);
}
}  // namespace

TEST_CASE("batch model: interval scheduling in two resource groups, by hand", "[unit][model][batch][interval]") {
  const BatchResult r = run_grouped();
  check(r, {{0, 150, 0, 4, JobStatus::completed},
            {0, 50, 0, 0, JobStatus::completed},
            {150, 250, 210, 4, JobStatus::completed},
            {-1, -1, -1, 0, JobStatus::rejected},
            {20, 50, 20, 2, JobStatus::completed}});
  REQUIRE(r.jobs[0].group == 1);
  REQUIRE(r.jobs[1].group == 0);
  REQUIRE(r.jobs[3].group == 1);
  // Samples at 0 and 300 for each group (1 = small, 2 = large) and the machine (0).
  REQUIRE(r.series.size() == 6);
  REQUIRE(r.series[0].group == 0);
  REQUIRE(r.series[0].used_nodes == 5);
  REQUIRE(r.series[1].group == 1);
  REQUIRE(r.series[1].used_nodes == 2);
  REQUIRE(r.series[2].group == 2);
  REQUIRE(r.series[2].used_nodes == 3);
  REQUIRE(r.series[3].used_nodes == 0);
  REQUIRE(r.busy_node_seconds == 3 * 150 + 2 * 50 + 4 * 100 + 30);
  // One pass-cost row per committed pass, with a measured wall time.
  REQUIRE(r.pass_costs.size() == r.passes);
  for (const PassCostRow& p : r.pass_costs) REQUIRE(p.wall_us >= 0);
  BatchParams p;
  p.nodes = 8;
  p.groups = two_groups();
  const Attributes summary = batch_summary(r, p);
  REQUIRE(summary.count("utilisation_small") == 1);
  REQUIRE(summary.at("rejected") == AttrValue{std::int64_t{1}});
}

TEST_CASE("batch model: interval scheduling and resource groups pass the rollback check",
          "[unit][model][batch][rollback-check]") {
  const BatchResult reference = run_grouped();
  const BatchResult checked = run_grouped(SyncMode::rollback_check);
  REQUIRE(checked.jobs.size() == reference.jobs.size());
  for (std::size_t i = 0; i < reference.jobs.size(); ++i) REQUIRE(checked.jobs[i].start_s == reference.jobs[i].start_s);
}

TEST_CASE("batch model: interval scheduling needs contiguous allocation; bad patterns are refused",
          "[unit][model][batch]") {
  BatchParams p;
  p.nodes = 8;
  p.policy = "interval";
  REQUIRE_THROWS_WITH(run_batch(Communicator::self(), grouped_workload(), p, EngineConfig{}),
                      Catch::Contains("contiguous"));
  p.allocation = Allocation::contiguous;
  // A bad pattern is refused where it is set, before any run.
  REQUIRE_THROWS_WITH(p.policy_settings.set("interval_pattern", std::string("7m:1h")), Catch::Contains("whole number"));
  p.policy_settings.set("interval_pattern", std::string("A"));
  p.groups = two_groups();
  p.groups[1].nodes = 5;
  REQUIRE_THROWS_WITH(run_batch(Communicator::self(), grouped_workload(), p, EngineConfig{}),
                      Catch::Contains("groups have 9 nodes"));
}

TEST_CASE("batch model: a job longer than the interval horizon is rejected, not queued forever",
          "[unit][model][batch][interval]") {
  workload::Workload w = grouped_workload();
  w.jobs[4].requested = from_seconds(std::int64_t{401});  // E: the horizon is 400 s
  w.jobs[4].run = from_seconds(std::int64_t{30});
  BatchParams p;
  p.nodes = 8;
  p.groups = two_groups();
  p.allocation = Allocation::contiguous;
  p.policy = "interval";
  p.policy_settings.set("interval_pattern", std::string("100s:400s"));
  const BatchResult r = run_batch(Communicator::self(), w, p, EngineConfig{});
  REQUIRE(r.jobs[4].status == static_cast<std::int16_t>(JobStatus::rejected));
  REQUIRE(r.jobs[2].start_s == 150);  // the others as before
}

TEST_CASE("batch model: the Python examples give their C++ twins' schedules, under any priority and depth",
          "[unit][model][batch]") {
  workload::Workload w;
  w.jobs = testing::random_jobs(17, 1200, 32, {.max_gap_s = 30, .overrun_fraction = 0.2, .users = 5});
  for (std::size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].id = i;
  const std::string examples = std::string(TRACEWARP_SOURCE_DIR) + "/examples/policies/";
  for (const auto& [cpp, file] : {std::pair<const char*, const char*>{"easy", "easy_backfill.py"},
                                  std::pair<const char*, const char*>{"sjf", "sjf_backfill.py"}})
    for (const char* priority : {"arrival", "multifactor"})
      for (const std::size_t depth : {std::size_t{0}, std::size_t{20}}) {
        CAPTURE(cpp, priority, depth);
        BatchParams p;
        p.nodes = 32;
        p.policy = cpp;
        p.queue_depth = depth;
        p.priority.order = priority;
        p.priority.weight_fairshare = 1000;
        const BatchResult reference = run_batch(Communicator::self(), w, p, EngineConfig{});
        p.policy = "python";
        p.policy_settings.set("python_policy", examples + file);
        const BatchResult python = run_batch(Communicator::self(), w, p, EngineConfig{});
        REQUIRE(python.jobs.size() == reference.jobs.size());
        REQUIRE(std::memcmp(python.jobs.data(), reference.jobs.data(), reference.jobs.size() * sizeof(JobRow)) == 0);
      }
}

TEST_CASE("batch model: a policy sees each queued job's trace record and priority factors", "[unit][model][batch]") {
  // The Python policy checks what it is shown and, once it has checked 50 jobs, stops the run
  // with a message the test expects: an error that proves the checks ran.
  const testing::TempFile policy(R"(
class Policy:
    def __init__(self):
        self.checked = 0
    def schedule(self, view):
        for job in view.queue:
            record, f = view.record(job), view.factors(job)
            assert record.partition == record.trace_id % 3 and record.procs == 4 * record.nodes, record
            assert record.requested == job.requested and record.submit == job.submit
            assert all(0 <= v <= 1 for v in f.values()), f
            assert abs(job.priority - (100 * f["age"] + 1000 * f["fairshare"])) < 1e-9, (job.priority, f)
            self.checked += 1
            if self.checked == 50:
                raise RuntimeError("ok: 50 jobs checked")
        return [job.id for job in view.queue][:1] if view.queue and view.queue[0].nodes <= view.free_nodes else []
)",
                                 ".py");
  workload::Workload w;
  w.jobs = testing::random_jobs(23, 300, 16, {.max_gap_s = 20, .users = 4});
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    w.jobs[i].id = i;
    w.jobs[i].partition = static_cast<std::int32_t>(i % 3);
    w.jobs[i].procs = 4 * w.jobs[i].nodes;
  }
  BatchParams p;
  p.nodes = 16;
  p.policy = "python";
  p.policy_settings.set("python_policy", policy.path());
  p.priority.order = "multifactor";
  p.priority.weight_age = 100;
  p.priority.weight_fairshare = 1000;
  p.priority.calc_period = 0;  // recomputed at each pass: the priorities are the factors' sum now
  REQUIRE_THROWS_WITH(run_batch(Communicator::self(), w, p, EngineConfig{}), Catch::Contains("ok: 50 jobs checked"));
}

TEST_CASE("batch model: EASY and FCFS through the model start every job when the plain replay does",
          "[unit][model][batch]") {
  // The model skips jobs the previous pass settled (ArrivalOrderHints::settled_below) and leaves started
  // jobs marked in its queue; the test replay does neither. Same workload, same starts, queue depth or not.
  for (const std::size_t depth : {std::size_t{0}, std::size_t{20}})
    for (const char* policy : {"easy", "fcfs"}) {
      CAPTURE(depth, policy);
      workload::Workload w;
      w.jobs = testing::random_jobs(11, 1500, 32, {.max_gap_s = 30, .overrun_fraction = 0.2});
      for (std::size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].id = i;  // model rows by index
      BatchParams p;
      p.nodes = 32;
      p.policy = policy;
      p.queue_depth = depth;
      const BatchResult r = run_batch(Communicator::self(), w, p, EngineConfig{});
      BatchPolicy reference = make_batch_policy(policy);
      const testing::ReplayResult replayed = testing::replay(w.jobs, 32, reference, depth);
      for (const JobRow& row : r.jobs) {
        CAPTURE(row.index);
        REQUIRE(row.start_s == to_seconds(replayed.jobs.at(row.index).start));
      }
    }
}

namespace {
BatchParams multifactor_params(const testing::TestedPolicy& policy, std::uint32_t nodes) {
  BatchParams p;
  p.nodes = nodes;
  p.block_nodes = 4;
  policy.apply(p);
  p.priority.order = "multifactor";
  return p;
}
}  // namespace

TEST_CASE("batch model: a multifactor priority of age alone orders the queue as arrival does",
          "[unit][model][batch][priority]") {
  // Age grows with waiting and ties at its cap go to the earlier arrival: the same order as
  // arrival at every pass, so the same tables, for every policy (only the shortcuts differ).
  workload::Workload w;
  w.jobs = testing::random_jobs(5, 800, 32, {.max_gap_s = 30, .overrun_fraction = 0.2, .users = 4});
  for (const char* policy : {"fcfs", "easy", "conservative", "wrsa-or"}) {
    CAPTURE(policy);
    BatchParams arrival = multifactor_params(policy, 32);
    arrival.priority.order = "arrival";
    BatchParams by_age = multifactor_params(policy, 32);
    by_age.priority.weight_age = 1000;
    by_age.priority.max_age = from_seconds(2000.0);  // some jobs reach the cap
    by_age.priority.calc_period = 0;
    const BatchResult a = run_batch(Communicator::self(), w, arrival, EngineConfig{});
    const BatchResult b = run_batch(Communicator::self(), w, by_age, EngineConfig{});
    REQUIRE(a.jobs.size() == b.jobs.size());
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
      CAPTURE(i);
      REQUIRE(a.jobs[i].start_s == b.jobs[i].start_s);
      REQUIRE(a.jobs[i].t0_s == b.jobs[i].t0_s);
    }
  }
}

TEST_CASE("batch model: fair share starts the light user's job before the heavy user's older one",
          "[unit][model][batch][priority]") {
  // 4 nodes. User 1's job 100 (4 nodes, 100 s) runs from 0; user 1's job 101 (4 nodes) arrives
  // at 10, user 2's job 102 (4 nodes) at 20. At 100 job 100 ends: user 1 has used 400
  // node-seconds, all of the machine's usage, so with two accounts (share 1/2 each) its factor
  // is 2^(-1 / 0.5) = 0.25 against user 2's 2^0 = 1. FCFS by arrival starts 101 at 100 and 102
  // at 200; by fair share, 102 at 100 and 101 at 200.
  workload::Workload w = jobs_from({{0, 100, 100, 4}, {10, 100, 100, 4}, {20, 100, 100, 4}}, 1);
  w.jobs[2].user = 2;
  BatchParams p = multifactor_params("fcfs", 4);
  p.priority.order = "arrival";
  const BatchResult arrival = run_batch(Communicator::self(), w, p, EngineConfig{});
  CHECK(arrival.jobs[1].start_s == 100);
  CHECK(arrival.jobs[2].start_s == 200);
  p.priority.order = "multifactor";
  p.priority.weight_fairshare = 1000;
  p.priority.calc_period = 0;
  for (const SyncMode sync : {SyncMode::sequential, SyncMode::rollback_check}) {
    EngineConfig e;
    e.sync = sync;
    const BatchResult fair = run_batch(Communicator::self(), w, p, e);
    CHECK(fair.jobs[2].start_s == 100);
    CHECK(fair.jobs[1].start_s == 200);
  }
}

TEST_CASE("batch model: every policy passes the rollback check under a multifactor priority",
          "[unit][model][batch][priority][rollback-check]") {
  workload::Workload w;
  w.jobs = testing::random_jobs(9, 120, 16, {.max_gap_s = 60, .overrun_fraction = 0.2, .users = 5});
  for (std::size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].queue = static_cast<std::int32_t>(i % 3);
  for (const testing::TestedPolicy& policy : testing::any_node_policies()) {
    CAPTURE(policy);
    BatchParams p = multifactor_params(policy, 16);
    p.priority = testing::every_factor_priority();
    const BatchResult reference = run_batch(Communicator::self(), w, p, EngineConfig{});
    EngineConfig e;
    e.sync = SyncMode::rollback_check;
    const BatchResult checked = run_batch(Communicator::self(), w, p, e);
    REQUIRE(checked.jobs.size() == reference.jobs.size());
    for (std::size_t i = 0; i < reference.jobs.size(); ++i)
      REQUIRE(checked.jobs[i].start_s == reference.jobs[i].start_s);
  }
}

TEST_CASE("batch model: a user limit holds a job back while nodes are free", "[unit][model][batch][limits]") {
  // 8 nodes. User 1 submits three 2-node jobs of 100 s at 0, user 2 one at 10. With at most two
  // running jobs per user, user 1's third job waits for its first to end (100) although 4 nodes
  // are free; user 2's starts at once.
  workload::Workload w = jobs_from({{0, 100, 100, 2}, {0, 100, 100, 2}, {0, 100, 100, 2}, {10, 100, 100, 2}}, 1);
  w.jobs[3].user = 2;
  for (const char* policy : {"fcfs", "easy", "conservative"}) {
    CAPTURE(policy);
    BatchParams p = multifactor_params(policy, 8);
    p.priority.order = "arrival";
    p.limits.user_max_running_jobs = 2;
    for (const SyncMode sync : {SyncMode::sequential, SyncMode::rollback_check}) {
      EngineConfig e;
      e.sync = sync;
      const BatchResult r = run_batch(Communicator::self(), w, p, e);
      CHECK(r.jobs[0].start_s == 0);
      CHECK(r.jobs[1].start_s == 0);
      CHECK(r.jobs[2].start_s == 100);
      CHECK(r.jobs[3].start_s == 10);
    }
  }
  // A job larger than the processor limit on its own could never start: it is rejected.
  BatchParams p = multifactor_params("easy", 8);
  p.priority.order = "arrival";
  p.limits.user_max_units = 1;
  const BatchResult r = run_batch(Communicator::self(), w, p, EngineConfig{});
  CHECK(r.jobs[0].status == static_cast<std::int16_t>(JobStatus::rejected));
}

TEST_CASE("batch model: a partition fills while another is idle", "[unit][model][batch][partitions]") {
  // Partitions a (4 nodes, trace partition 1) and b (4 nodes, every other partition). Two
  // 4-node jobs of partition 1 at 0: the second waits for the first (100) although b is idle;
  // a job of partition 7 at 10 runs on b at once; a 5-node job of partition 1 cannot fit a:
  // rejected.
  workload::Workload w = jobs_from({{0, 100, 100, 4}, {0, 100, 100, 4}, {10, 50, 50, 4}, {20, 10, 10, 5}}, 1);
  for (const std::size_t i : {0, 1, 3}) w.jobs[i].partition = 1;
  w.jobs[2].partition = 7;
  BatchParams p = multifactor_params("easy", 8);
  p.priority.order = "arrival";
  p.groups = parse_partitions("a:4:1, b:4:*", "batch.partitions");
  for (const SyncMode sync : {SyncMode::sequential, SyncMode::rollback_check}) {
    EngineConfig e;
    e.sync = sync;
    const BatchResult r = run_batch(Communicator::self(), w, p, e);
    CHECK(r.jobs[1].start_s == 100);
    CHECK(r.jobs[2].start_s == 10);
    CHECK(r.jobs[2].first_node == 4);  // b lies after a on the node line
    CHECK(r.jobs[2].group == 1);
    CHECK(r.jobs[2].partition == 7);
    // Where each job ran, range by range on the whole machine's line; the rejected job nowhere.
    REQUIRE(r.allocations.size() == 3);
    const auto range = [&](std::size_t i) {
      return std::array<std::uint64_t, 3>{r.allocations[i].index, r.allocations[i].first, r.allocations[i].count};
    };
    CHECK(range(0) == std::array<std::uint64_t, 3>{0, 0, 4});
    CHECK(range(1) == std::array<std::uint64_t, 3>{1, 0, 4});
    CHECK(range(2) == std::array<std::uint64_t, 3>{2, 4, 4});
    CHECK(r.jobs[3].status == static_cast<std::int16_t>(JobStatus::rejected));
  }
  CHECK_THROWS_WITH(parse_partitions("a:4:1, b:4:1", "batch.partitions"),
                    Catch::Contains("partition 1 is listed twice"));
  CHECK_THROWS_WITH(parse_partitions("a:4", "batch.partitions"), Catch::Contains("not NAME:SIZE:PARTITIONS"));
  CHECK_THROWS_WITH(parse_partitions("a:x:1", "batch.partitions"),
                    Catch::Contains("SIZE and partitions must be numbers"));
  CHECK_THROWS_WITH(parse_partitions("a:4:*,b:4:*", "batch.partitions"), Catch::Contains("* is given twice"));
}

TEST_CASE("batch model: a job scattered over free nodes has one allocation row per range", "[unit][model][batch]") {
  // 8 nodes, any free nodes. Jobs of 2 nodes at 0 (100 s), 2 at 0 (50 s), 2 at 0 (100 s) take
  // nodes 0-1, 2-3, 4-5; at 50 the second ends, and a 4-node job arriving at 60 takes the lowest
  // free nodes: 2-3 and 6-7, two ranges.
  workload::Workload w = jobs_from({{0, 100, 100, 2}, {0, 50, 50, 2}, {0, 100, 100, 2}, {60, 10, 10, 4}}, 1);
  BatchParams p;
  p.nodes = 8;
  p.block_nodes = 4;
  const BatchResult r = run_batch(Communicator::self(), w, p, EngineConfig{});
  std::vector<std::array<std::uint64_t, 3>> ranges;
  for (const AllocationRow& a : r.allocations) ranges.push_back({a.index, a.first, a.count});
  CHECK(ranges == std::vector<std::array<std::uint64_t, 3>>{{0, 0, 2}, {1, 2, 2}, {2, 4, 2}, {3, 2, 2}, {3, 6, 2}});
}

TEST_CASE("batch model: no user ever runs past its limits, under any policy", "[unit][model][batch][limits]") {
  workload::Workload w;
  w.jobs = testing::random_jobs(21, 600, 16, {.max_gap_s = 20, .overrun_fraction = 0.2, .users = 4});
  for (const testing::TestedPolicy& policy : testing::any_node_policies())
    for (const char* priority : {"arrival", "multifactor"}) {
      CAPTURE(policy, priority);
      BatchParams p = multifactor_params(policy, 16);
      p.priority.order = priority;
      p.priority.weight_age = 100;
      p.priority.weight_fairshare = 1000;
      p.limits = {.user_max_running_jobs = 3, .user_max_units = 10};
      const BatchResult r = run_batch(Communicator::self(), w, p, EngineConfig{});
      // Each user's running jobs and nodes over time, from the rows: +1 at a start, -1 at an end.
      std::map<std::int32_t, std::vector<std::tuple<double, int, int>>> steps;
      std::size_t ran = 0;
      for (const JobRow& j : r.jobs) {
        if (j.status == static_cast<std::int16_t>(JobStatus::rejected)) continue;
        ++ran;
        steps[j.user].emplace_back(j.start_s, 1, static_cast<int>(j.nodes));
        steps[j.user].emplace_back(j.end_s, -1, -static_cast<int>(j.nodes));
      }
      CHECK(ran > 500);  // (jobs of more than 10 nodes are rejected)
      for (auto& [user, events] : steps) {
        std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
          return std::get<0>(a) < std::get<0>(b) ||
                 (std::get<0>(a) == std::get<0>(b) && std::get<1>(a) < std::get<1>(b));
        });
        int jobs = 0, nodes = 0;
        for (const auto& [time, d_jobs, d_nodes] : events) {
          jobs += d_jobs;
          nodes += d_nodes;
          CAPTURE(user, time);
          REQUIRE(jobs <= 3);
          REQUIRE(nodes <= 10);
        }
      }
    }
}
