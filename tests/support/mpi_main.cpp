// Catch2 main for every test executable: MPI is initialised around the session, because the
// engine runs on communicators even on one rank. Only rank 0 prints Catch's report.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "tracewarp/engine/communicator.hpp"

int main(int argc, char** argv) {
  tracewarp::MpiSession mpi(argc, argv);
  const int rank = tracewarp::Communicator::world().rank();
  if (rank != 0) std::freopen("/dev/null", "w", stdout);
  const int failed = Catch::Session().run(argc, argv);
  // Every rank's verdict counts: a failure seen on one rank fails the test.
  std::uint64_t verdict[1] = {failed != 0 ? 1u : 0u};
  tracewarp::Communicator::world().max(verdict);
  if (verdict[0] != 0 && failed == 0 && rank == 0) std::fprintf(stderr, "a test failed on another rank\n");
  return verdict[0] != 0 ? 1 : 0;
}
