// Where each LP this rank owns sits among its LPs (KernelSetup::lps, in increasing id order),
// computed from the placement rather than looked up: a table of every LP's index (4 bytes an
// LP) is 400 KB at 10^5 LPs, and a send to a random LP missed it in the cache at almost every
// event (docs/performance-history.md, replication model). Only a placement read from a file keeps the
// table.
#pragma once

#include <cstdint>
#include <vector>

#include "tracewarp/engine/partition.hpp"

namespace tracewarp::detail {

inline constexpr std::uint32_t kNotLocal = ~0u;

class LocalIndex {
 public:
  LocalIndex() = default;
  LocalIndex(const Partition& partition, int rank)
      : kind_(partition.kind()), ranks_(static_cast<LpId>(partition.ranks())), rank_(static_cast<LpId>(rank)) {
    switch (kind_) {
      case PlacementKind::block:
        first_ = partition.first_of(rank);
        count_ = partition.first_of(rank + 1) - first_;
        break;
      case PlacementKind::round_robin:
        break;
      case PlacementKind::file:
        table_.assign(partition.lp_count(), kNotLocal);
        for (LpId id = 0, next = 0; id < partition.lp_count(); ++id)
          if (partition.rank_of(id) == rank) table_[id] = next++;
        break;
    }
  }

  // The local index of `id`, or kNotLocal if another rank owns it; id < lp_count().
  std::uint32_t operator[](LpId id) const {
    switch (kind_) {
      case PlacementKind::block:
        return id - first_ < count_ ? static_cast<std::uint32_t>(id - first_) : kNotLocal;
      case PlacementKind::round_robin: {
        const LpId quotient = id / ranks_;
        return id - quotient * ranks_ == rank_ ? static_cast<std::uint32_t>(quotient) : kNotLocal;
      }
      case PlacementKind::file:
        break;
    }
    return table_[id];
  }

 private:
  PlacementKind kind_ = PlacementKind::block;
  LpId ranks_ = 1;
  LpId rank_ = 0;
  LpId first_ = 0;  // block: this rank's first LP and how many it owns
  LpId count_ = 0;
  std::vector<std::uint32_t> table_;  // file: every LP's index, or kNotLocal
};

}  // namespace tracewarp::detail
