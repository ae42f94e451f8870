#include "run_dealer.hpp"

#include <algorithm>

namespace tracewarp::experiment {

namespace {
int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}
}  // namespace

RunDealer::RunDealer(MPI_Comm world, std::size_t count, int group, int groups)
    : count_(count), group_(static_cast<std::uint64_t>(group)), groups_(static_cast<std::uint64_t>(groups)) {
  if (size_of(world) == 1) return;
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  const MPI_Aint bytes = rank == 0 ? sizeof(std::uint64_t) : 0;
  // A window may be refused (no one-sided component for these ranks): said, not fatal.
  MPI_Errhandler fatal = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(world, &fatal);
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  std::uint64_t* counter = nullptr;
  MPI_Win window = MPI_WIN_NULL;
  int made = MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, world, &counter, &window) == MPI_SUCCESS;
  MPI_Comm_set_errhandler(world, fatal);
  MPI_Errhandler_free(&fatal);
  MPI_Allreduce(MPI_IN_PLACE, &made, 1, MPI_INT, MPI_MIN, world);
  if (!made) return;  // a window made on some ranks only is left unused: freeing it is collective
  window_ = window;
  counter_ = counter;
  // One passive epoch for the whole sweep; the counter is zero before anyone takes from it.
  MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
  if (rank == 0) {
    *counter_ = 0;
    MPI_Win_sync(window_);
  }
  MPI_Barrier(world);
}

std::size_t RunDealer::take() {
  std::uint64_t taken = 0;
  if (window_ == MPI_WIN_NULL) {
    taken = group_ + groups_ * local_++;
  } else {
    const std::uint64_t one = 1;
    MPI_Fetch_and_op(&one, &taken, MPI_UINT64_T, 0, 0, MPI_SUM, window_);
    MPI_Win_flush(0, window_);
  }
  return static_cast<std::size_t>(std::min<std::uint64_t>(taken, count_));
}

void RunDealer::finish() {
  if (window_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(window_);
  MPI_Win_free(&window_);
}

}  // namespace tracewarp::experiment
