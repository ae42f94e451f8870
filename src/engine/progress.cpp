// Progress reports for terminals: never part of the simulated state, so never in the results.
#include "kernel.hpp"

namespace tracewarp {

namespace detail {

ProgressTicker::ProgressTicker(const EngineConfig& config, bool reporting_rank)
    : config_(config),
      enabled_(reporting_rank && static_cast<bool>(config.progress)),
      start_(steady_seconds()),
      last_(start_) {}

void ProgressTicker::report(Time reached, std::uint64_t committed) {
  const double now = clock_.seconds();
  if (now - last_ < 0.5) return;
  last_ = now;
  config_.progress(Progress{reached, config_.end_time, committed, now - start_});
}
}  // namespace detail

}  // namespace tracewarp
