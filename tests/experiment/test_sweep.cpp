// Experiment orchestration: how ranks are grouped, what travels between them, and a whole sweep
// written to a file and read back.
#include <catch2/catch.hpp>

#include <hdf5.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/files.hpp"
#include "tracewarp/experiment/journal.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/experiment/sweep.hpp"
#include "tracewarp/model/phold/phold.hpp"
#include "tracewarp/results/file.hpp"

using namespace tracewarp;
using namespace tracewarp::experiment;

TEST_CASE("sweep layout: consecutive ranks form groups; the group size must divide the job", "[unit][sweep]") {
  const GroupLayout all = group_layout(4, 3, 0);  // 0 = one group of every rank
  CHECK(all.ranks_per_run == 4);
  CHECK(all.groups == 1);
  CHECK(all.group == 0);
  const GroupLayout pairs = group_layout(6, 3, 2);  // ranks 2-3 are group 1 of 3
  CHECK(pairs.groups == 3);
  CHECK(pairs.group == 1);
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

  const SerialisedOutput serialised = serialise(out);  // named: the parts view into it
  std::string bytes;
  for (const std::string_view part : serialised.parts()) bytes += part;
  const model::RunOutput back = deserialise(bytes, phold);
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
  // The rows follow the head uncopied; bytes cut short or lengthened are refused, not misread.
  CHECK(serialise(out).rows.at(0).data() == reinterpret_cast<const char*>(out.tables[0].rows.data()));
  CHECK_THROWS_AS(deserialise(std::string_view(bytes).substr(0, bytes.size() - 1), phold), InputError);
  CHECK_THROWS_AS(deserialise(bytes + "x", phold), InputError);
  CHECK_THROWS_AS(deserialise("12", phold), InputError);
}

TEST_CASE("sweep: every run of an experiment lands in the file, in run order", "[unit][sweep]") {
  const std::string path = "/tmp/tracewarp-test-sweep.h5";
  std::remove(path.c_str());
  const config::Experiment e =
      config::parse_experiment("[phold]\nlps = 8\nend = 5.0\n[sweep]\n\"phold.remote\" = [0.0, 1.0]\n", "sweep.toml",
                               {"experiment.replications=2"}, config_schema());
  SweepOptions o;
  o.output = path;
  std::vector<std::string> written;
  o.on_written = [&](const config::RunSpec& run, const model::RunOutput& out) {
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

namespace {

config::Experiment four_phold_runs(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> overrides = {"experiment.replications=2"};
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  return config::parse_experiment("[phold]\nlps = 8\nend = 5.0\n[sweep]\n\"phold.remote\" = [0.0, 1.0]\n", "sweep.toml",
                                  overrides, config_schema());
}

TEST_CASE("sweep: a key read once for the whole sweep cannot be swept, and the replications' seeds must fit",
          "[unit][sweep]") {
  for (const std::string key : {"experiment.model", "experiment.replications", "output.file", "engine.ranks_per_run"}) {
    const std::string text = "[sweep]\n\"" + key + "\" = [1, 2]\n";
    CHECK_THROWS_WITH(config::parse_experiment(text, "s.toml", {}, config_schema()),
                      Catch::Contains("sweep key '" + key + "' is read once for the whole sweep"));
  }
  const config::Experiment near_max = config::parse_experiment(
      "[experiment]\nseed = 9223372036854775806\nreplications = 3\n", "s.toml", {}, config_schema());
  CHECK_THROWS_WITH(near_max.runs(), Catch::Contains("experiment.seed + 2 (the replications' seeds) exceeds"));
}

SweepOptions options_for(const std::string& path) {
  SweepOptions o;
  o.output = path;
  o.file_attributes = {{"tool_version", std::string("test")}, {"git_revision", std::string("abc")}};
  return o;
}

std::map<std::string, std::uint64_t> table_digests(const std::string& path) {
  const results::Reader file(path);
  std::map<std::string, std::uint64_t> digests;
  for (const std::string& run : file.runs())
    for (const std::string& table : file.tables(run))
      if (table != "engine") digests[run + "/" + table] = file.table_digest(run, table);
  return digests;
}

struct Cleanup {
  std::vector<std::string> paths;
  ~Cleanup() {
    for (const std::string& p : paths) std::filesystem::remove_all(p);
  }
};

}  // namespace

TEST_CASE("sweep journal: the identity names what changed between two sweeps", "[unit][sweep]") {
  const SweepIdentity before = SweepIdentity::of(four_phold_runs(), "phold", "1.0", "abc");
  CHECK(SweepIdentity::parse(before.text()).difference_from(before).empty());
  CHECK(SweepIdentity::of(four_phold_runs({"phold.lps=16"}), "phold", "1.0", "abc").difference_from(before) ==
        "phold.lps: was 8, now 16");
  CHECK(SweepIdentity::of(four_phold_runs(), "phold", "1.0", "def").difference_from(before) ==
        "code revision: was abc, now def");
  CHECK(SweepIdentity::of(four_phold_runs({"experiment.replications=3"}), "phold", "1.0", "abc")
            .difference_from(before) == "number of runs: was 4, now 6");
}

TEST_CASE("sweep journal: a record is whole or absent, and a damaged or foreign one is not a finished run",
          "[unit][sweep]") {
  const std::string out = "/tmp/tracewarp-test-journal.h5";
  Cleanup cleanup{{SweepJournal::directory_of(out)}};
  const config::Experiment e = four_phold_runs();
  const std::vector<config::RunSpec> runs = e.runs();
  const SweepJournal journal(out, SweepIdentity::of(e, "phold", "1.0", "abc"));
  journal.start();
  journal.record(runs[0], "output zero");
  journal.record(runs[2], std::string("two\0bytes", 9));
  CHECK(journal.finished() == std::vector<std::size_t>{0, 2});
  CHECK(journal.load(2) == std::string("two\0bytes", 9));
  CHECK(std::filesystem::directory_iterator(journal.directory()) != std::filesystem::directory_iterator());
  {  // a record cut short (as a copy by hand might leave it) is not trusted
    std::ofstream cut(journal.directory() + "/run-000001.out", std::ios::binary);
    cut << "tracewarp-journal-run 1\n" << journal.identity().parameters_digest << "\n1\n100\nshort";
  }
  CHECK(journal.finished() == std::vector<std::size_t>{0, 2});
  {  // one flipped bit anywhere in a record (a disk fault) drops it, so that its run runs again
    const std::string path = journal.directory() + "/run-000002.out";
    const std::string whole = read_whole_file(path);
    std::size_t dropped = 0;
    for (std::size_t i = 0; i < whole.size(); ++i) {
      std::string flipped = whole;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << (i % 8)));
      std::ofstream(path, std::ios::binary) << flipped;
      if (journal.finished() == std::vector<std::size_t>{0}) ++dropped;
    }
    CHECK(dropped == whole.size());
    std::ofstream(path, std::ios::binary) << whole;
    CHECK(journal.finished() == std::vector<std::size_t>{0, 2});
  }
  {  // a damaged identity is never compared: the resume is refused, naming the file
    const std::string path = journal.directory() + "/identity";
    std::string text = read_whole_file(path);
    text[text.find("phold.lps = 8") + 12] = '9';
    std::ofstream(path, std::ios::binary) << text;
    CHECK_THROWS_WITH(journal.recorded_identity(), Catch::Contains("identity' is damaged (checksum mismatch)"));
  }
  const SweepJournal other(out, SweepIdentity::of(four_phold_runs({"phold.lps=16"}), "phold", "1.0", "abc"));
  CHECK_THROWS_WITH(other.load(0), Catch::Contains("recorded by another sweep"));
}

TEST_CASE("sweep resume: runs finished before an interruption are kept, the rest run, the data is identical",
          "[unit][sweep]") {
  const std::string whole = "/tmp/tracewarp-test-whole.h5", cut = "/tmp/tracewarp-test-cut.h5";
  Cleanup cleanup{{whole, cut, cut + ".partial", SweepJournal::directory_of(cut)}};
  run_sweep(Communicator::self(), four_phold_runs(), options_for(whole));

  SweepOptions interrupted = options_for(cut);
  int written = 0;
  interrupted.on_written = [&](const config::RunSpec&, const model::RunOutput&) {
    if (++written == 2) throw RunError("killed");  // as if the job died after two runs
  };
  CHECK_THROWS_WITH(run_sweep(Communicator::self(), four_phold_runs(), interrupted), "killed");
  CHECK_FALSE(std::filesystem::exists(cut));
  CHECK_FALSE(results::Reader(cut + ".partial").complete());

  SECTION("without --resume the journal is not overwritten") {
    CHECK_THROWS_WITH(run_sweep(Communicator::self(), four_phold_runs(), options_for(cut)),
                      Catch::Contains("add --resume to keep them"));
  }
  SECTION("with a changed configuration resuming is refused, naming the change") {
    SweepOptions resume = options_for(cut);
    resume.resume = true;
    CHECK_THROWS_AS(run_sweep(Communicator::self(), four_phold_runs({"phold.end=6.0"}), resume), UsageError);
    CHECK_THROWS_WITH(run_sweep(Communicator::self(), four_phold_runs({"phold.end=6.0"}), resume),
                      Catch::Contains("phold.end: was 5.0, now 6.0"));
  }
  SECTION("resumed, only the rest runs and the file equals the uninterrupted one") {
    SweepOptions resume = options_for(cut);
    resume.resume = true;
    std::size_t kept = 0;
    std::vector<std::string> order;
    resume.on_resumed = [&](std::size_t k, std::size_t, std::size_t) { kept = k; };
    resume.on_written = [&](const config::RunSpec& run, const model::RunOutput&) { order.push_back(run.id); };
    run_sweep(Communicator::self(), four_phold_runs(), resume);
    CHECK(kept == 2);
    CHECK(order == std::vector<std::string>{"run-0000", "run-0001", "run-0002", "run-0003"});
    CHECK(results::Reader(cut).complete());
    CHECK(table_digests(cut) == table_digests(whole));
    CHECK_FALSE(std::filesystem::exists(SweepJournal::directory_of(cut)));
  }
}
