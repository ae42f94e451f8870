// Time integrals of counts over fixed buckets (internal to src/model/): each interval [begin,
// end) adds its overlap with every bucket it crosses to one series, in integer ticks, so sums are
// exact and independent of the order intervals arrive in (commit order differs by rank count).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "gather_rows.hpp"
#include "tracewarp/core/persist.hpp"
#include "tracewarp/core/time.hpp"
#include "tracewarp/engine/communicator.hpp"

namespace tracewarp::model {

template <std::size_t Series>
class TickBuckets {
 public:
  using Sums = std::array<std::int64_t, Series>;
  explicit TickBuckets(Time interval = 1) : interval_(interval) {}

  void add(Time begin, Time end, std::size_t series) {
    for (Time t = begin; t < end;) {
      const std::int64_t bucket = t / interval_;
      const Time stop = std::min(end, (bucket + 1) * interval_);
      sums_[bucket][series] += stop - t;
      t = stop;
    }
  }
  // Every rank's buckets added up, on the communicator's rank 0.
  std::map<std::int64_t, Sums> gathered(const Communicator& comm) const {
    struct Row {
      std::int64_t bucket;
      Sums ticks;
    };
    std::vector<Row> mine;
    for (const auto& [bucket, ticks] : sums_) mine.push_back({bucket, ticks});
    std::map<std::int64_t, Sums> all;
    for (const Row& r : gather_rows(comm, mine))
      for (std::size_t k = 0; k < Series; ++k) all[r.bucket][k] += r.ticks[k];
    return all;
  }
  // The time average of a series over a bucket.
  double average(const Sums& sums, std::size_t series) const {
    return static_cast<double>(sums[series]) / static_cast<double>(interval_);
  }
  const std::map<std::int64_t, Sums>& sums() const { return sums_; }
  Time interval() const { return interval_; }
  TRACEWARP_PERSIST(sums_)

 private:
  Time interval_;
  std::map<std::int64_t, Sums> sums_;
};

}  // namespace tracewarp::model
