#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "engine/local_index.hpp"

using namespace tracewarp;

namespace {

// The reference: an LP's index is how many LPs of its rank come before it.
void require_counts_of(const Partition& partition) {
  for (int rank = 0; rank < partition.ranks(); ++rank) {
    const detail::LocalIndex index(partition, rank);
    std::uint32_t next = 0;
    for (LpId id = 0; id < partition.lp_count(); ++id) {
      if (partition.rank_of(id) == rank)
        REQUIRE(index[id] == next++);
      else
        REQUIRE(index[id] == detail::kNotLocal);
    }
  }
}

}  // namespace

TEST_CASE("local index: computed from the placement, it counts each rank's LPs in id order", "[unit][engine]") {
  SECTION("block, ranks with one LP more first") { require_counts_of(Partition::block(103, 4)); }
  SECTION("block, fewer LPs than ranks") { require_counts_of(Partition::block(3, 5)); }
  SECTION("round-robin") { require_counts_of(Partition::round_robin(103, 4)); }
  SECTION("one rank") {
    require_counts_of(Partition::block(10, 1));
    require_counts_of(Partition::round_robin(10, 1));
  }
  SECTION("a partition file keeps its table") {
    const auto path = std::filesystem::temp_directory_path() / "tracewarp-test-local-index.txt";
    std::ofstream(path) << "lps 10\nranks 3\n0 2 1\n3 3 0\n4 8 2\n9 9 0\n";
    require_counts_of(Partition::from_file(path.string(), 10, 3));
    std::filesystem::remove(path);
  }
}
