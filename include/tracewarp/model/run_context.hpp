// What every run gives its model besides the model's own keys: the seed (experiment.seed, each
// replication's own) and the series interval (output.series_interval_s). Read once, by
// run_context(), and held by each model's parameters as one member, never copied key by key.
#pragma once

#include <cstdint>

#include "tracewarp/core/config.hpp"
#include "tracewarp/core/time.hpp"

namespace tracewarp::model {

struct RunContext {
  std::uint64_t seed = 1;
  Time series_interval = 300 * kTicksPerSecond;  // > 0; PHOLD alone takes 0 for no series
};

// The run context of a resolved configuration.
RunContext run_context(const Config& config);

}  // namespace tracewarp::model
