// Run under mpirun on 1, 2, 3, 4 and 8 ranks: a sweep's runs go to whichever group is free.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <numeric>
#include <vector>

#include "experiment/run_dealer.hpp"
#include "model/common/gather_rows.hpp"
#include "tracewarp/engine/communicator.hpp"

using namespace tracewarp;

TEST_CASE("sweep dealing: every run is taken exactly once, by whichever rank asks first", "[mpi][sweep]") {
  const Communicator world = Communicator::world();
  constexpr std::size_t kRuns = 20;
  experiment::RunDealer dealer(MPI_COMM_WORLD, kRuns);
  std::vector<std::uint64_t> mine;
  const auto take_all = [&] {
    for (std::size_t i = dealer.take(); i < kRuns; i = dealer.take()) mine.push_back(i);
  };
  // Rank 0 takes one run before anyone else asks (the first barrier) and is busy with it until
  // every other rank has taken the rest (the second).
  if (world.rank() == 0) mine.push_back(dealer.take());
  world.barrier();
  if (world.rank() != 0) take_all();
  world.barrier();
  if (world.rank() == 0) take_all();
  CHECK(dealer.take() == kRuns);  // nothing left, and asking again stays so
  world.barrier();
  dealer.finish();

  // A rank may have been dealt no run at all.
  const std::vector<std::uint64_t> all = model::gather_sorted(world, mine, std::less<>());
  if (world.rank() != 0) return;
  std::vector<std::uint64_t> expected(kRuns);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(all == expected);
  CHECK(mine.size() == (world.size() == 1 ? kRuns : 1));  // the others took what rank 0 could not
}
