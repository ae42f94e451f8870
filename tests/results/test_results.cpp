#include <catch2/catch.hpp>

#include <hdf5.h>

#include <cstdio>
#include <filesystem>

#include "../support/temp_file.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/results/file.hpp"

using namespace tracewarp;
using namespace tracewarp::results;
using tracewarp::testing::TempFile;

namespace {
struct Row {
  std::uint64_t id;
  double wait_s;
  std::int32_t nodes;
  float slowdown;
};
const TableSchema kRows{
    "jobs",
    sizeof(Row),
    {TRACEWARP_COLUMN(Row, id, "", "job id"), TRACEWARP_COLUMN(Row, wait_s, "s", "wait"),
     TRACEWARP_COLUMN(Row, nodes, "nodes", "size"), TRACEWARP_COLUMN(Row, slowdown, "", "slowdown")},
    "test rows"};
}  // namespace

TEST_CASE("results: a written file reads back exactly, and is marked complete", "[unit][io][hdf5]") {
  const TempFile f = TempFile::empty_path(".h5");
  std::vector<Row> rows;
  for (std::uint64_t i = 0; i < 70000; ++i)  // more than one chunk
    rows.push_back({i, static_cast<double>(i) * 0.5, static_cast<std::int32_t>(i % 17), static_cast<float>(i) / 3});
  {
    Writer w(f.path(), {{"tool_version", std::string("test")}, {"ranks", std::int64_t{3}}});
    w.add_run("run-0000", {{"phold.remote", 0.25}, {"experiment.name", std::string("t")}});
    w.write_table("run-0000", kRows, rows);
    w.write_summary("run-0000", {{"jobs", std::int64_t{70000}}, {"mean_wait_s", 12.5}});
    RunStats stats;
    stats.per_rank.resize(2);
    stats.per_rank[1].committed = 99;
    stats.wall_s = 1.5;
    stats.sync = "optimistic";
    w.write_engine("run-0000", stats);
    w.add_run("run-0001", {});
    w.write_table("run-0001", kRows, std::vector<Row>{});  // an empty table is a table
    w.write_summary("run-0001", {});
    w.finish();
  }
  REQUIRE_FALSE(std::filesystem::exists(f.path() + ".partial"));
  const Reader r(f.path());
  REQUIRE(r.complete());
  REQUIRE(std::get<std::string>(r.file_attributes().at("tool_version")) == "test");
  REQUIRE(r.file_attributes().count("end_time") == 1);
  REQUIRE(r.runs() == std::vector<std::string>{"run-0000", "run-0001"});
  REQUIRE(std::get<double>(r.run_attributes("run-0000").at("phold.remote")) == 0.25);
  REQUIRE(std::get<std::int64_t>(r.summary("run-0000").at("jobs")) == 70000);
  REQUIRE(r.tables("run-0000") == std::vector<std::string>{"engine", "jobs"});
  const std::vector<std::byte> back = r.read_table("run-0000", kRows);
  REQUIRE(back.size() == rows.size() * sizeof(Row));
  const Row* got = reinterpret_cast<const Row*>(back.data());
  for (std::size_t i = 0; i < rows.size(); i += 997) {
    REQUIRE(got[i].id == rows[i].id);
    REQUIRE(got[i].wait_s == rows[i].wait_s);
    REQUIRE(got[i].nodes == rows[i].nodes);
    REQUIRE(got[i].slowdown == rows[i].slowdown);
  }
  REQUIRE(r.rows("run-0000", "engine") == 2);
  REQUIRE(r.rows("run-0001", "jobs") == 0);
}

TEST_CASE("results: an interrupted run leaves no file that looks complete", "[unit][io][hdf5]") {
  const TempFile f = TempFile::empty_path(".h5");
  {
    Writer w(f.path(), {});
    w.add_run("run-0000", {});
    // destroyed without finish(): what an exception or a crash between runs leaves behind
  }
  REQUIRE_FALSE(std::filesystem::exists(f.path()));
  const std::string partial = f.path() + ".partial";
  REQUIRE(std::filesystem::exists(partial));
  {
    const Reader r(partial);
    REQUIRE_FALSE(r.complete());
  }
  std::filesystem::remove(partial);
  REQUIRE_THROWS_AS(Reader("/nonexistent/results.h5"), InputError);
  REQUIRE_THROWS_AS(Writer("/nonexistent-dir/results.h5", {}), UsageError);
}
