// What the machine hands a job (batch.resources), and the logged schedule beside the simulated
// one, on hand-made SWF logs read the way a run reads them.
//
// The machine: 2 nodes of 4 cores (MaxNodes 2, MaxProcs 8). Jobs, all submitted at 0, 100 s
// run and requested, logged waits 5, 0, 30 and 7 s:
//   A: 3 processors   B: 1 processor   C: 3 processors   D: 2 processors
// processors:       A takes processors 0-2, B 3, C 4-6; D needs 2 of the 1 left and starts at
//                   100 (processors 0-1). No job has nodes: the machine is a pool.
// exclusive-nodes:  every job takes one whole node: A node 0, B node 1; C and D start at 100.
// shared-nodes:     A takes cores 0-2 of node 0 and B its last core (they share node 0); C
//                   takes 3 cores of node 1; D finds 1 free core and starts at 100 on node 0.
#include <catch2/catch.hpp>

#include "../support/batch_policies.hpp"
#include "../support/temp_file.hpp"
#include "tracewarp/config/experiment.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/model/batch/batch_model.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/results/file.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {

const char* kLog =
    "; MaxNodes: 2\n"
    "; MaxProcs: 8\n"
    "1 0 5 100 3 -1 -1 3 100 -1 1 1 1 -1 1 -1 -1 -1\n"
    "2 0 0 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n"
    "3 0 30 100 3 -1 -1 3 100 -1 1 2 1 -1 1 -1 -1 -1\n"
    "4 0 7 100 2 -1 -1 2 100 -1 1 2 1 -1 1 -1 -1 -1\n";

struct Ran {
  std::vector<JobRow> jobs;
  Attributes summary, attributes;
};

// One run of the batch model on `trace` as `tracewarp run` makes it, with these keys set.
Ran run_log(const std::string& trace, const std::vector<std::pair<std::string, std::string>>& sets,
            SyncMode sync = SyncMode::sequential) {
  Config c(experiment::config_schema());
  c.set("experiment.model", std::string("batch"), "test");
  c.set("workload.trace", trace, "test");
  c.set("batch.policy", std::string("easy"), "test");
  for (const auto& [key, value] : sets) c.set_from_text(key, value, "test");
  EngineConfig engine;
  engine.sync = sync;
  model::RunOutput out = model::find_model("batch").run(Communicator::self(), c, engine);
  Ran r{{}, out.summary, out.run_attributes};
  const model::Table& t = out.tables.at(0);
  r.jobs.resize(t.rows.size() / sizeof(JobRow));
  std::memcpy(r.jobs.data(), t.rows.data(), t.rows.size());
  return r;
}

struct Placed {
  double start;
  std::uint32_t first_node, nodes;
};

void check_placements(const Ran& r, const std::vector<Placed>& expected) {
  REQUIRE(r.jobs.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(r.jobs[i].start_s == expected[i].start);
    CHECK(r.jobs[i].first_node == expected[i].first_node);
    CHECK(r.jobs[i].nodes == expected[i].nodes);
  }
}

}  // namespace

TEST_CASE("batch resources: an SWF log is replayed as a pool of processors by default", "[unit][model][batch]") {
  const testing::TempFile log(kLog);
  const Ran r = run_log(log.path(), {});
  check_placements(r, {{0, 0, 0}, {0, 3, 0}, {0, 4, 0}, {100, 0, 0}});
  REQUIRE(r.jobs[0].procs == 3);
  REQUIRE(r.attributes.at("machine.resources") == AttrValue{std::string("processors")});
  REQUIRE(r.attributes.at("machine.unit") == AttrValue{std::string("processor")});
  REQUIRE(r.attributes.at("machine.cores_per_node") == AttrValue{std::int64_t{4}});
  // 8 processors for 4 x 100 s... of 9 processor-hundred-seconds: (3+1+3+2) x 100 over 8 x 200.
  REQUIRE(std::get<double>(r.summary.at("utilisation")) == Approx(900.0 / 1600.0));
}

TEST_CASE("batch resources: exclusive nodes give each job whole nodes of its own", "[unit][model][batch]") {
  const testing::TempFile log(kLog);
  const Ran r = run_log(log.path(), {{"batch.resources", "exclusive-nodes"}});
  check_placements(r, {{0, 0, 1}, {0, 1, 1}, {100, 0, 1}, {100, 1, 1}});
  REQUIRE(r.attributes.at("machine.unit") == AttrValue{std::string("node")});
  REQUIRE(std::get<double>(r.summary.at("utilisation")) == Approx(400.0 / 400.0));
}

TEST_CASE("batch resources: shared nodes pack jobs' cores onto nodes that jobs share", "[unit][model][batch]") {
  const testing::TempFile log(kLog);
  const Ran r = run_log(log.path(), {{"batch.resources", "shared-nodes"}});
  check_placements(r, {{0, 0, 1}, {0, 0, 1}, {0, 1, 1}, {100, 0, 1}});
  // Only here do two jobs (A and B) run on one node at once.
  REQUIRE(r.jobs[0].first_node == r.jobs[1].first_node);
  REQUIRE(r.jobs[0].start_s == r.jobs[1].start_s);
}

TEST_CASE("batch resources: every mode passes the rollback check and gives the sequential tables",
          "[unit][model][batch][rollback-check]") {
  const testing::TempFile log(kLog);
  for (const char* mode : {"processors", "exclusive-nodes", "shared-nodes"}) {
    CAPTURE(mode);
    for (const testing::TestedPolicy& policy : testing::any_node_policies()) {
      CAPTURE(policy);
      std::vector<std::pair<std::string, std::string>> sets{{"batch.resources", mode}, {"batch.policy", policy.name}};
      sets.insert(sets.end(), policy.keys.begin(), policy.keys.end());
      const Ran reference = run_log(log.path(), sets);
      const Ran checked = run_log(log.path(), sets, SyncMode::rollback_check);
      REQUIRE(checked.jobs.size() == reference.jobs.size());
      REQUIRE(std::memcmp(checked.jobs.data(), reference.jobs.data(), reference.jobs.size() * sizeof(JobRow)) == 0);
    }
  }
}

TEST_CASE("batch resources: what a mode cannot do is refused by name", "[unit][model][batch]") {
  const testing::TempFile log(kLog);
  // Interval scheduling plans contiguous ranges of whole nodes.
  REQUIRE_THROWS_WITH(run_log(log.path(), {{"batch.policy", "interval"}, {"batch.allocation", "contiguous"}}),
                      Catch::Contains("batch.resources = \"exclusive-nodes\""));
  REQUIRE_NOTHROW(run_log(
      log.path(),
      {{"batch.policy", "interval"}, {"batch.allocation", "contiguous"}, {"batch.resources", "exclusive-nodes"}}));
  // Shared nodes place cores by their own rule.
  REQUIRE_THROWS_WITH(run_log(log.path(), {{"batch.resources", "shared-nodes"}, {"batch.allocation", "contiguous"}}),
                      Catch::Contains("packs cores by its own rule"));
}

TEST_CASE("batch resources: the logged waits read back exactly beside the simulated ones", "[unit][model][batch]") {
  const testing::TempFile log(kLog);
  const Ran r = run_log(log.path(), {{"batch.resources", "exclusive-nodes"}});
  const double logged[] = {5, 0, 30, 7};
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    REQUIRE(r.jobs[i].logged_wait_s == logged[i]);
    REQUIRE(r.jobs[i].logged_start_s == logged[i]);  // submitted at 0
  }
  // Simulated waits 0, 0, 100, 100 against logged 5, 0, 30, 7: differences 5, 0, 70, 93 (median
  // 37.5); all within 10 minutes; ranks (1.5, 1.5, 3.5, 3.5) against (2, 1, 4, 3): rho = 0.894.
  const Attributes& s = r.summary;
  REQUIRE(s.at("logged_jobs") == AttrValue{std::int64_t{4}});
  REQUIRE(std::get<double>(s.at("logged_mean_wait_s")) == 10.5);
  REQUIRE(std::get<double>(s.at("logged_median_wait_s")) == 6);
  REQUIRE(std::get<double>(s.at("compared_mean_wait_s")) == 50);
  REQUIRE(std::get<double>(s.at("compared_median_wait_s")) == 50);
  REQUIRE(std::get<double>(s.at("wait_median_abs_difference_s")) == 37.5);
  REQUIRE(std::get<double>(s.at("wait_rank_correlation")) == Approx(0.894427).epsilon(1e-5));
  REQUIRE(std::get<double>(s.at("wait_close_share")) == 1.0);
  // The null model (every wait 0) is within 10 minutes of every logged wait here; requested
  // times (all equal) rank nothing.
  REQUIRE(std::get<double>(s.at("null_close_share")) == 1.0);
  REQUIRE(std::get<double>(s.at("null_median_abs_difference_s")) == 6);
  REQUIRE(std::get<double>(s.at("requested_wait_rank_correlation")) == 0);
}

TEST_CASE("batch resources: the null model and the requested times beside the replay", "[unit][model][batch]") {
  // Logged waits 0, 100, 5,000, 20,000 with requests 60, 600, 3,600, 36,000: the null model is
  // within 10 minutes of the first two (1/2), its median absolute difference the logged median
  // (2,550), and the requests rank the waits exactly (correlation 1).
  std::vector<JobRow> jobs(4, JobRow{});
  const double logged[4] = {0, 100, 5'000, 20'000}, requested[4] = {60, 600, 3'600, 36'000};
  for (std::size_t i = 0; i < 4; ++i) {
    jobs[i].logged_wait_s = logged[i];
    jobs[i].requested_s = requested[i];
    jobs[i].wait_s = 0;
  }
  const Attributes s = logged_comparison(jobs);
  REQUIRE(std::get<double>(s.at("null_close_share")) == 0.5);
  REQUIRE(std::get<double>(s.at("wait_close_share")) == 0.5);  // this replay is the null model
  REQUIRE(std::get<double>(s.at("null_median_abs_difference_s")) == 2'550);
  REQUIRE(std::get<double>(s.at("requested_wait_rank_correlation")) == Approx(1.0));
  // Judged from 150 s on (batch.compare_from_s), submitted at 0, 100, 200, 300: the last two.
  for (std::size_t i = 0; i < 4; ++i) jobs[i].submit_s = 100.0 * static_cast<double>(i);
  const Attributes later = logged_comparison(jobs, 150);
  REQUIRE(later.at("logged_jobs") == AttrValue{std::int64_t{2}});
  REQUIRE(std::get<double>(later.at("logged_mean_wait_s")) == 12'500);
  REQUIRE(std::get<double>(later.at("null_close_share")) == 0);
}

TEST_CASE("batch resources: the close share counts 10 minutes or 10% of the logged wait", "[unit][model][batch]") {
  std::vector<JobRow> jobs(3, JobRow{});
  // logged 0 vs 600 (within 10 minutes), 10,000 vs 11,000 (within 10%), 10,000 vs 11,001 (not)
  const double pairs[3][2] = {{0, 600}, {10'000, 11'000}, {10'000, 11'001}};
  for (std::size_t i = 0; i < 3; ++i) {
    jobs[i].logged_wait_s = pairs[i][0];
    jobs[i].wait_s = pairs[i][1];
  }
  REQUIRE(std::get<double>(logged_comparison(jobs).at("wait_close_share")) == Approx(2.0 / 3));
  jobs[0].logged_wait_s = jobs[1].logged_wait_s = jobs[2].logged_wait_s = -1;  // none logged: no figures
  REQUIRE(logged_comparison(jobs).empty());
}
