// Which rank owns each LP: block, round-robin, or read from a partition file
// (format: partitions/README.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/config.hpp"
#include "tracewarp/engine/event.hpp"

namespace tracewarp {

class Partition {
 public:
  static Partition block(LpId lps, int ranks);
  static Partition round_robin(LpId lps, int ranks);
  static Partition from_file(const std::string& path, LpId lps, int ranks);  // throws InputError
  static Partition make(const Placement& placement, LpId lps, int ranks);
  // A placement's file read as a run on `ranks` ranks would read it, before the model has said
  // how many LPs it has (its own "lps" line stands in): every error but a wrong LP count, before
  // any file of a sweep is made. InputError naming the file, line and field.
  static void check_file(const Placement& placement, int ranks);

  int rank_of(LpId lp) const {
    switch (kind_) {
      case PlacementKind::block:
        return lp < big_ * (quota_ + 1) ? static_cast<int>(lp / (quota_ + 1))
                                        : static_cast<int>(big_ + (lp - big_ * (quota_ + 1)) / quota_);
      case PlacementKind::round_robin:
        return static_cast<int>(lp % static_cast<LpId>(ranks_));
      case PlacementKind::file:
        break;
    }
    return owner_[lp];
  }
  LpId lp_count() const { return lps_; }
  int ranks() const { return ranks_; }
  PlacementKind kind() const { return kind_; }
  // Block placement: the first LP of `rank` (lp_count() for rank == ranks()).
  LpId first_of(int rank) const {
    const auto r = static_cast<LpId>(rank);
    return r < big_ ? r * (quota_ + 1) : big_ * (quota_ + 1) + (r - big_) * quota_;
  }

 private:
  PlacementKind kind_ = PlacementKind::block;
  LpId lps_ = 0;
  int ranks_ = 1;
  LpId quota_ = 0;  // block: LPs per rank, the first `big_` ranks get one more
  LpId big_ = 0;
  std::vector<std::int32_t> owner_;  // file: owner of every LP
};

}  // namespace tracewarp
