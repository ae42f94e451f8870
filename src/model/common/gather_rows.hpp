// Rows (plain structs) from every rank of a communicator, on its rank 0 (internal to src/model/).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "tracewarp/core/memory.hpp"
#include "tracewarp/engine/communicator.hpp"

namespace tracewarp::model {

// Every rank's rows on rank 0, in rank order, with where each rank's rows begin there (one entry
// per rank, then the end). Elsewhere both are empty.
template <class Row>
struct RowsByRank {
  std::vector<Row> rows;
  std::vector<std::size_t> starts;
};

// Pass a collector's rows with std::move when they are no longer needed: on one rank they are
// then handed over without a copy (result tables run to tens of megabytes). On several, rank 0's
// table is made once and the rows arrive in it.
template <class Row>
RowsByRank<Row> gather_rows_by_rank(const Communicator& comm, std::vector<Row> mine) {
  static_assert(std::is_trivially_copyable_v<Row>);
  RowsByRank<Row> out;
  if (comm.size() == 1) {
    out.starts = {0, mine.size()};
    out.rows = std::move(mine);
    return out;
  }
  const std::uint64_t count = mine.size();
  const std::vector<std::uint64_t> counts = comm.all_gather(std::span(&count, 1));
  if (comm.rank() == 0) {
    out.starts.push_back(0);
    for (const std::uint64_t c : counts) out.starts.push_back(out.starts.back() + c);
    reserve_huge(out.rows, out.starts.back());
    out.rows.resize(out.starts.back());
  }
  comm.gather(std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(out.rows)), sizeof(Row));
  return out;
}

template <class Row>
std::vector<Row> gather_rows(const Communicator& comm, std::vector<Row> mine) {
  return gather_rows_by_rank(comm, std::move(mine)).rows;
}

// The rows of every rank on rank 0, ordered by `less`, which must order them totally (no two rows
// equivalent), so that the table is the same on any rank count. Each rank sorts its own rows, all
// at once, and rank 0 merges the ranks' runs, two by two, from one table into another.
template <class Row, class Less>
std::vector<Row> gather_sorted(const Communicator& comm, std::vector<Row> mine, Less less) {
  std::sort(mine.begin(), mine.end(), less);
  RowsByRank<Row> all = gather_rows_by_rank(comm, std::move(mine));
  if (all.starts.size() <= 2) return std::move(all.rows);  // one run, or not rank 0
  std::vector<Row> from = std::move(all.rows), to;
  reserve_huge(to, from.size());
  to.resize(from.size());
  std::vector<std::size_t> starts = std::move(all.starts), merged;
  const auto at = [](std::vector<Row>& rows, std::size_t i) { return rows.begin() + static_cast<std::ptrdiff_t>(i); };
  while (starts.size() > 2) {
    merged = {0};
    for (std::size_t r = 0; r + 1 < starts.size(); r += 2) {
      const std::size_t end = starts[std::min(r + 2, starts.size() - 1)];
      std::merge(at(from, starts[r]), at(from, starts[r + 1]), at(from, starts[r + 1]), at(from, end),
                 at(to, starts[r]), less);
      merged.push_back(end);
    }
    from.swap(to);
    starts.swap(merged);
  }
  return from;
}

}  // namespace tracewarp::model
