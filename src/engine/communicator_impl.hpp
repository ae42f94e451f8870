#pragma once

#include <mpi.h>

#include "tracewarp/engine/communicator.hpp"

namespace tracewarp {

struct Communicator::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  bool owned = false;  // created by split: freed with the last copy
  ~Impl() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owned && !finalized) MPI_Comm_free(&comm);
  }
};

}  // namespace tracewarp
