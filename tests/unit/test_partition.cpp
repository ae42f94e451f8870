#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>

#include <fstream>

#include "tracewarp/engine/partition.hpp"

using namespace tracewarp;

namespace {
std::string write_temp(const std::string& text) {
  char name[] = "/tmp/tracewarp-partition-XXXXXX";
  const int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(name) << text;
  return name;
}
}  // namespace

TEST_CASE("partition: block gives contiguous, balanced ranges", "[unit][partition]") {
  const Partition p = Partition::block(10, 3);  // 4 + 3 + 3
  std::vector<int> owners;
  for (LpId i = 0; i < 10; ++i) owners.push_back(p.rank_of(i));
  REQUIRE(owners == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 2, 2, 2});
  REQUIRE(Partition::block(2, 4).rank_of(1) == 1);
}

TEST_CASE("partition: round-robin deals LPs in turn", "[unit][partition]") {
  const Partition p = Partition::round_robin(7, 3);
  REQUIRE(p.rank_of(0) == 0);
  REQUIRE(p.rank_of(4) == 1);
  REQUIRE(p.rank_of(5) == 2);
}

TEST_CASE("partition file: ranges are read, errors name file, line and field", "[unit][partition]") {
  const std::string good = write_temp("# test\nlps 6\nranks 2\n0 1 1\n2 5 0  # rest\n");
  const Partition p = Partition::from_file(good, 6, 2);
  REQUIRE(p.rank_of(0) == 1);
  REQUIRE(p.rank_of(5) == 0);

  const auto error_of = [](const std::string& text, LpId lps, int ranks) {
    const std::string path = write_temp(text);
    try {
      Partition::from_file(path, lps, ranks);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  REQUIRE(error_of("lps 6\nranks 2\n0 2 0\n4 5 1\n", 6, 2) == ":4: field 'first': range must start at LP 3");
  REQUIRE(error_of("lps 6\nranks 2\n0 5 2\n", 6, 2) == ":3: field 'rank': rank out of range");
  REQUIRE(error_of("lps 5\nranks 2\n", 6, 2).find(":1: field 'lps'") == 0);
  REQUIRE(error_of("lps 6\nranks 2\n0 x 0\n", 6, 2) == ":3: field 'last': expected an LP id");
  REQUIRE(error_of("lps 6\nranks 2\n0 3 0\n", 6, 2).find("ranges end at LP 4") != std::string::npos);
  REQUIRE_THROWS_AS(Partition::from_file("/nonexistent/partition", 6, 2), InputError);
}
