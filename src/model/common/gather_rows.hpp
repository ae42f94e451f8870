// Rows (plain structs) from every rank of a communicator, on its rank 0, in rank order
// (internal to src/model/).
#pragma once

#include <cstring>
#include <vector>

#include "tracewarp/engine/communicator.hpp"

namespace tracewarp::model {

// Pass a collector's rows with std::move when they are no longer needed: on one rank they are
// then handed over without a copy (result tables run to tens of megabytes).
template <class Row>
std::vector<Row> gather_rows(const Communicator& comm, std::vector<Row> mine) {
  if (comm.size() == 1) return mine;
  std::vector<std::byte> bytes(mine.size() * sizeof(Row));
  if (!mine.empty()) std::memcpy(bytes.data(), mine.data(), bytes.size());
  const std::vector<std::byte> all = comm.gather(bytes);
  std::vector<Row> rows(all.size() / sizeof(Row));
  if (!rows.empty()) std::memcpy(rows.data(), all.data(), all.size());
  return rows;
}

}  // namespace tracewarp::model
