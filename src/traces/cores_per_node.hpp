// A machine's cores per node as the jobs of a trace show it (internal to src/traces/): each job
// that gives both its CPUs and its nodes shows a ratio; when every one is the same whole number
// (Mira 16, Theta 64) that is the machine's, else 1 (the machine is then counted in processors).
#pragma once

#include <cstdint>

namespace tracewarp::traces::detail {

class CoresPerNode {
 public:
  void note(double cpus, double nodes) {
    const double ratio = cpus / nodes;
    const auto whole = static_cast<std::uint32_t>(ratio);
    if (ratio != whole || whole == 0 || (seen_ > 0 && seen_ != whole)) mixed_ = true;
    seen_ = whole;
  }
  std::uint32_t value() const { return mixed_ || seen_ == 0 ? 1 : seen_; }

 private:
  std::uint32_t seen_ = 0;
  bool mixed_ = false;
};

}  // namespace tracewarp::traces::detail
