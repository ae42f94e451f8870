#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "tracewarp/config/experiment.hpp"
#include "tracewarp/config/settings.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/workload/configured.hpp"
#include "tracewarp/workload/transforms.hpp"

using namespace tracewarp;
using namespace tracewarp::config;
using namespace tracewarp::workload;

namespace {
// The experiment file's own sections and the workload's: all that load_configured reads.
const ConfigSchema& workload_keys() {
  static const ConfigSchema keys = [] {
    ConfigSchema all;
    for (const ConfigSchema* part : {&experiment_params().schema(), &source_params().schema(),
                                     &transform_params().schema(), &output_params().schema()})
      all.insert(all.end(), part->begin(), part->end());
    return all;
  }();
  return keys;
}
workload::Workload five_jobs() {
  workload::Workload w;
  w.max_nodes = 100;
  const std::int64_t submit[] = {100, 110, 130, 160, 200};
  const std::int64_t run[] = {50, 200, 80, 300, 90};
  const std::uint32_t nodes[] = {1, 10, 33, 100, 50};
  for (int i = 0; i < 5; ++i) {
    workload::Job j;
    j.id = static_cast<std::uint64_t>(i + 1);
    j.submit = from_seconds(submit[i]);
    j.run = from_seconds(run[i]);
    j.requested = from_seconds(std::int64_t{1000});
    j.nodes = nodes[i];
    w.jobs.push_back(j);
  }
  return w;
}
}  // namespace

TEST_CASE("transforms: each does what the studies need, and is recorded", "[unit][io][transforms]") {
  workload::Workload w = five_jobs();
  w.unix_start_time = 1000;
  Transforms t;
  t.min_run_s = 90;       // drops jobs 1 (50 s) and 3 (80 s)
  t.window_start = 1;     // skips job 2
  t.window_jobs = 5;      // keeps 4 and 5
  t.wra = 0.5;            // requested = 2 x run
  t.iat_scale = 0.5;      // gap 40 s -> 20 s
  t.scale_nodes_to = 10;  // 100 nodes -> 10, 50 -> 5
  apply_transforms(w, t);
  REQUIRE(w.jobs.size() == 2);
  REQUIRE(w.jobs[0].id == 4);
  REQUIRE(w.jobs[0].submit == 0);  // a window starts at 0
  REQUIRE(w.jobs[1].submit == from_seconds(std::int64_t{20}));
  REQUIRE(w.jobs[0].requested == from_seconds(std::int64_t{600}));
  REQUIRE(w.jobs[0].nodes == 10);
  REQUIRE(w.jobs[1].nodes == 5);
  REQUIRE(w.transforms.size() == 5);
  REQUIRE(w.transforms[0] == "drop_short_jobs(min_run_s=90, dropped=2)");
  REQUIRE(w.transforms[1] == "window(start=1, count=2, shifted_by_s=160)");
  REQUIRE(w.unix_start_time == 1160);  // absolute times are unchanged by the shift
  REQUIRE(w.transforms[4] == "scale_nodes(from=100, to=10)");
}

TEST_CASE("transforms: node scaling rounds up and keeps at least one node", "[unit][io][transforms]") {
  workload::Workload w = five_jobs();
  scale_nodes(w, 82944, 768);  // the K computer's scaled machine
  REQUIRE(w.jobs[0].nodes == 1);
  REQUIRE(w.jobs[2].nodes == 1);  // ceil(33 * 768 / 82944) = 1
  workload::Workload big;
  workload::Job j;
  j.nodes = 36864;
  big.jobs.push_back(j);
  scale_nodes(big, 82944, 768);
  REQUIRE(big.jobs[0].nodes == 342);  // ceil(36864 * 768 / 82944) = ceil(341.33)
}

TEST_CASE("transforms: bad parameters are configuration errors", "[unit][io][transforms]") {
  workload::Workload w = five_jobs();
  REQUIRE_THROWS_AS(set_request_accuracy(w, 0), ConfigError);
  REQUIRE_THROWS_AS(set_request_accuracy(w, 1.5), ConfigError);
  REQUIRE_THROWS_AS(scale_interarrival(w, -1), ConfigError);
  REQUIRE_THROWS_AS(take_window(w, 9, 1), ConfigError);
  workload::Workload no_size = five_jobs();
  no_size.max_nodes = -1;
  Transforms t;
  t.scale_nodes_to = 10;
  REQUIRE_THROWS_WITH(apply_transforms(no_size, t), Catch::Contains("workload.machine_nodes"));
}

#include <cstdlib>

#include "../support/temp_file.hpp"
#include "tracewarp/config/experiment.hpp"
#include "tracewarp/config/settings.hpp"

TEST_CASE("transforms: the workload.* keys build the workload, data path expanded", "[unit][io][transforms]") {
  const tracewarp::testing::TempFile f(
      "; MaxNodes: 8\n; MaxProcs: 64\n"
      "1 0 0 100 16 -1 -1 16 200 -1 1 1 1 -1 1 -1 -1 -1\n"
      "2 50 0 30 8 -1 -1 8 200 -1 1 1 1 -1 1 -1 -1 -1\n"
      "3 90 0 120 64 -1 -1 64 200 -1 1 1 1 -1 1 -1 -1 -1\n");
  const std::string dir = f.path().substr(0, f.path().rfind('/'));
  const std::string name = f.path().substr(f.path().rfind('/') + 1);
  setenv("TRACEWARP_DATA", dir.c_str(), 1);
  REQUIRE(expand_data_path("${TRACEWARP_DATA}/x") == dir + "/x");
  const Experiment e = parse_experiment(
      "[workload]\ntrace = \"${TRACEWARP_DATA}/" + name + "\"\nmin_run_s = 90.0\nwra = 1.0\nscale_nodes_to = 4\n",
      "w.toml", {}, workload_keys());
  const workload::Workload w = load_configured(e.base);
  unsetenv("TRACEWARP_DATA");
  REQUIRE(w.jobs.size() == 2);    // job 2 ran 30 s
  REQUIRE(w.jobs[0].nodes == 1);  // 16 procs / 8 cores = 2 nodes of 8 -> scaled to 4: 1
  REQUIRE(w.jobs[1].nodes == 4);
  REQUIRE(w.jobs[1].requested == w.jobs[1].run);  // wra = 1
  REQUIRE(w.transforms.size() == 3);
}

TEST_CASE("transforms: keep = completed keeps status 1; completed-within-request also needs a kept request",
          "[unit][io][transforms]") {
  // Status (field 11): 1 completed, 0 failed, 5 cancelled. Requested time is field 9.
  const tracewarp::testing::TempFile f(
      "; MaxNodes: 8\n; MaxProcs: 8\n"
      "1 0 0 100 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n"     // completed within its request: kept
      "2 10 0 100 1 -1 -1 1 200 -1 0 1 1 -1 1 -1 -1 -1\n"    // failed
      "3 20 0 50 1 -1 -1 1 200 -1 5 1 1 -1 1 -1 -1 -1\n"     // cancelled
      "4 30 0 300 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n"    // completed but ran over its request
      "5 40 0 100 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n"     // no requested time: not a valid request
      "6 50 0 200 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n");  // exactly its request: kept
  const auto kept = [&](const std::string& keep) {
    const Experiment e = parse_experiment("[workload]\ntrace = \"" + f.path() + "\"\nkeep = \"" + keep + "\"\n",
                                          "w.toml", {}, workload_keys());
    return load_configured(e.base);
  };
  const workload::Workload within = kept("completed-within-request");
  REQUIRE(within.jobs.size() == 2);
  REQUIRE(within.jobs[0].id == 1);
  REQUIRE(within.jobs[1].id == 6);
  REQUIRE(within.transforms.front() ==
          "keep_jobs(completed-within-request, dropped_not_completed=2, dropped_no_request=1, dropped_overran=1)");
  const workload::Workload completed = kept("completed");  // the WRSA study's reading (with min_run_s)
  REQUIRE(completed.jobs.size() == 4);
  REQUIRE(completed.jobs[2].id == 5);
  REQUIRE(completed.transforms.front() == "keep_jobs(completed, dropped_not_completed=2)");
  REQUIRE(kept("all").jobs.size() == 6);
}

TEST_CASE("transforms: the WRSA study's Original on the whole RICC log is its Table 1", "[validation][transforms]") {
  const char* env = std::getenv("TRACEWARP_DATA");
  const std::string ricc = std::string(env ? env : TRACEWARP_DEFAULT_DATA) + "/traces/RICC-2010-2.swf.gz";
  if (!std::filesystem::exists(ricc)) {
    WARN("SKIPPED: " + ricc + " not found; set TRACEWARP_DATA");
    return;
  }
  const Experiment e = parse_experiment(
      "[workload]\ntrace = \"" + ricc + "\"\nkeep = \"completed\"\nmin_run_s = 90.0\n", "w.toml", {}, workload_keys());
  const workload::Workload w = load_configured(e.base);
  REQUIRE(w.jobs.size() == 337'272);
  double wra = 0;
  for (const workload::Job& j : w.jobs) wra += static_cast<double>(j.run) / static_cast<double>(j.requested);
  REQUIRE(wra / static_cast<double>(w.jobs.size()) == Approx(0.143).margin(0.0005));
}
