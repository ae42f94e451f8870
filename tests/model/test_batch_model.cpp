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

#include "tracewarp/model/batch/batch_model.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {

io::Workload hand_workload() {
  io::Workload w;
  const std::int64_t spec[5][4] = {
      {0, 100, 100, 4}, {0, 50, 200, 4}, {10, 300, 100, 8}, {20, 30, 40, 2}, {100, 10, 10, 1}};
  for (std::uint64_t i = 0; i < 5; ++i) {
    io::Job j;
    j.id = 100 + i;
    j.submit = from_seconds(spec[i][0]);
    j.run = from_seconds(spec[i][1]);
    j.requested = from_seconds(spec[i][2]);
    j.nodes = static_cast<std::uint32_t>(spec[i][3]);
    j.user = 7;
    w.jobs.push_back(j);
  }
  return w;
}

BatchResult run_hand(const std::string& policy, SyncMode sync = SyncMode::sequential) {
  BatchParams p;
  p.nodes = 8;
  p.block_nodes = 4;
  p.policy = policy;
  EngineConfig e;
  e.sync = sync;
  return run_batch(Communicator::self(), hand_workload(), p, e);
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
    REQUIRE(row.status == static_cast<std::int32_t>(expected[i].status));
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

TEST_CASE("batch model: every policy passes the rollback check; oversized jobs are rejected",
          "[unit][model][batch][rollback-check]") {
  for (const char* policy : {"fcfs", "easy", "conservative", "lwjf", "wrsa-or"}) {
    CAPTURE(policy);
    const BatchResult reference = run_hand(policy);
    const BatchResult checked = run_hand(policy, SyncMode::rollback_check);
    REQUIRE(checked.jobs.size() == reference.jobs.size());
    for (std::size_t i = 0; i < reference.jobs.size(); ++i) REQUIRE(checked.jobs[i].end_s == reference.jobs[i].end_s);
  }
  io::Workload w = hand_workload();
  w.jobs[3].nodes = 9;  // larger than the machine
  BatchParams p;
  p.nodes = 8;
  const BatchResult r = run_batch(Communicator::self(), w, p, EngineConfig{});
  REQUIRE(r.jobs[3].status == static_cast<std::int32_t>(JobStatus::rejected));
  REQUIRE(r.jobs[3].start_s == -1);
  REQUIRE(batch_summary(r, p).at("rejected") == io::AttrValue{std::int64_t{1}});
}
