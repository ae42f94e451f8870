// Experiment orchestration: how ranks are grouped, what travels between them, and a whole sweep
// written to a file and read back.
#include <catch2/catch.hpp>

#include <hdf5.h>

#include <cstdio>

#include "tracewarp/core/error.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/experiment/sweep.hpp"
#include "tracewarp/model/phold/phold.hpp"

using namespace tracewarp;
using namespace tracewarp::experiment;

TEST_CASE("sweep layout: runs are dealt to groups in turn; the group size must divide the job", "[unit][sweep]") {
  const GroupLayout all = group_layout(4, 3, 0);  // 0 = one group of every rank
  CHECK(all.ranks_per_run == 4);
  CHECK(all.groups == 1);
  CHECK(all.runs(7));
  const GroupLayout pairs = group_layout(6, 3, 2);  // ranks 2-3 are group 1 of 3
  CHECK(pairs.groups == 3);
  CHECK(pairs.group == 1);
  CHECK(pairs.runs(1));
  CHECK(pairs.runs(4));
  CHECK_FALSE(pairs.runs(2));
  CHECK(pairs.leader_of(5) == 4);  // run 5 -> group 2, whose first rank is 4
  CHECK_THROWS_WITH(group_layout(3, 0, 2), "--ranks-per-run 2 must divide the 3 ranks of the job");
  CHECK_THROWS_AS(group_layout(2, 0, 4), UsageError);
}

TEST_CASE("sweep: a run's output survives serialisation whole", "[unit][sweep]") {
  const model::ModelInfo& phold = phold::phold_model();
  model::RunOutput out;
  out.summary = {{"committed", std::int64_t{-5}}, {"rate", 0.25}, {"checksum", std::string("0xabc")}};
  out.run_attributes = {{"workload.source", std::string("x.swf")}};
  out.measured = {{"pass_mean_us", 12.5}};
  out.stats.ranks = 2;
  out.stats.threads = 3;
  out.stats.wall_s = 1.5;
  out.stats.sync = "optimistic";
  out.stats.per_rank = {RankStats{1, 2, 3, 4, 5, 6, 7, 8}, RankStats{9, 10, 11, 12, 13, 14, 15, 16}};
  out.stats.total = RankStats{10, 12, 14, 16, 18, 20, 15, 16};
  const std::vector<std::byte> rows = {std::byte{1}, std::byte{0}, std::byte{255}, std::byte{7}};
  out.tables.push_back({phold.tables.at(0), rows});

  const model::RunOutput back = deserialise(serialise(out), phold);
  CHECK(back.summary == out.summary);
  CHECK(back.run_attributes == out.run_attributes);
  CHECK(back.measured == out.measured);
  CHECK(back.stats.sync == "optimistic");
  CHECK(back.stats.wall_s == 1.5);
  CHECK(back.stats.per_rank.at(1).peak_engine_bytes == 16);
  CHECK(back.stats.total.anti_messages == 16);
  REQUIRE(back.tables.size() == 1);
  CHECK(back.tables[0].schema == phold.tables.at(0));
  CHECK(back.tables[0].rows == rows);
}

TEST_CASE("sweep: every run of an experiment lands in the file, in run order", "[unit][sweep]") {
  const std::string path = "/tmp/tracewarp-test-sweep.h5";
  std::remove(path.c_str());
  const io::Experiment e = io::parse_experiment("[phold]\nlps = 8\nend = 5.0\n[sweep]\n\"phold.remote\" = [0.0, 1.0]\n",
                                                "sweep.toml", {"experiment.replications=2"}, config_schema());
  SweepOptions o;
  o.output = path;
  std::vector<std::string> written;
  o.on_written = [&](const io::RunSpec& run, const model::RunOutput& out) {
    written.push_back(run.id);
    CHECK(std::get<std::int64_t>(out.summary.at("committed")) > 0);
  };
  CHECK(run_sweep(Communicator::self(), e, o) == path);
  CHECK(written == std::vector<std::string>{"run-0000", "run-0001", "run-0002", "run-0003"});
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  for (const std::string& id : written) CHECK(H5Lexists(f, ("/runs/" + id).c_str(), H5P_DEFAULT) > 0);
  H5Fclose(f);
  std::remove(path.c_str());
}
