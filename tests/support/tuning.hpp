// The determinism suite runs half of its optimistic runs with engine.tune_optimism judging a step
// at every GVT round (two rounds at least): the window and GVT interval then change all through
// the run, as often as they ever can, and what is committed must not change at all.
#pragma once

#include "tracewarp/engine/config.hpp"

namespace tracewarp::testing {

inline EngineConfig tuning_at_every_round(EngineConfig c, bool on = true) {
  c.tune_optimism = on;
  c.tune_epoch_s = 0;
  return c;
}

}  // namespace tracewarp::testing
