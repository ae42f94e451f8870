// Run under mpirun on 1, 2, 3, 4 and 8 ranks: result rows gathered on rank 0.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/common/gather_rows.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/random.hpp"

using namespace tracewarp;

namespace {

struct Row {
  std::uint64_t id;
  double value;
  std::uint32_t rank;
  bool operator==(const Row&) const = default;
};

// Rows with distinct ids, dealt to the ranks unevenly (rank 1 gets none, rank 0 twice its share),
// out of order.
std::vector<Row> rows_of(int rank, int ranks, std::uint64_t total) {
  std::vector<Row> mine;
  RandomStream rng(11, 0);
  for (std::uint64_t id = 0; id < total; ++id) {
    int owner = static_cast<int>(rng.below(static_cast<std::uint64_t>(ranks)));
    if (owner == 1) owner = 0;
    if (owner == rank)
      mine.push_back({id * 7919 % total, 0.5 * static_cast<double>(id), static_cast<std::uint32_t>(rank)});
  }
  std::reverse(mine.begin(), mine.end());
  return mine;
}

}  // namespace

TEST_CASE("gather_sorted: rank 0 holds every rank's rows in order, whatever the rank count", "[mpi][gather]") {
  const Communicator world = Communicator::world();
  constexpr std::uint64_t kTotal = 10007;  // prime: id * 7919 % kTotal is a permutation
  const auto by_id = [](const Row& a, const Row& b) { return a.id < b.id; };
  const std::vector<Row> sorted = model::gather_sorted(world, rows_of(world.rank(), world.size(), kTotal), by_id);
  const model::RowsByRank<Row> by_rank = model::gather_rows_by_rank(world, rows_of(world.rank(), world.size(), kTotal));
  if (world.rank() != 0) {
    CHECK(sorted.empty());
    CHECK(by_rank.rows.empty());
    return;
  }
  REQUIRE(sorted.size() == kTotal);
  for (std::uint64_t i = 0; i < kTotal; ++i) REQUIRE(sorted[i].id == i);
  // Gathered as they were, each rank's rows in its own stretch.
  REQUIRE(by_rank.starts.size() == static_cast<std::size_t>(world.size()) + 1);
  for (int r = 0; r < world.size(); ++r) {
    const std::vector<Row> expected = rows_of(r, world.size(), kTotal);
    const auto from = by_rank.rows.begin() + static_cast<std::ptrdiff_t>(by_rank.starts[static_cast<std::size_t>(r)]);
    REQUIRE(by_rank.starts[static_cast<std::size_t>(r) + 1] - by_rank.starts[static_cast<std::size_t>(r)] ==
            expected.size());
    CHECK(std::equal(expected.begin(), expected.end(), from));
  }
}

TEST_CASE("Communicator::gather refuses room that does not match what arrives", "[mpi][gather]") {
  const Communicator world = Communicator::world();
  const std::vector<std::uint64_t> mine(3, 1);
  std::vector<std::uint64_t> all(world.rank() == 0 ? 3 * static_cast<std::size_t>(world.size()) : 0);
  world.gather(std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)), sizeof(std::uint64_t));
  if (world.rank() == 0) CHECK(std::count(all.begin(), all.end(), 1u) == static_cast<long>(all.size()));
  // A part that is not whole elements is refused on the rank that passes it, before any message.
  const std::vector<std::byte> ragged(5);
  CHECK_THROWS_AS(world.gather(ragged, {}, sizeof(std::uint64_t)), InvariantError);
}
