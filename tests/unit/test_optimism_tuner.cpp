#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "engine/optimism_tuner.hpp"
#include "tracewarp/core/random.hpp"

using namespace tracewarp;
using detail::OptimismTuner;

namespace {
// One epoch of two GVT rounds, half a second apart, ending at `wall_s` with `committed` events.
bool epoch(OptimismTuner& t, double wall_s, std::uint64_t committed, Time gvt = 0) {
  REQUIRE_FALSE(t.on_round(wall_s - 0.5, committed, gvt));
  return t.on_round(wall_s, committed, gvt);
}
}  // namespace

TEST_CASE("optimism tuner: a run with no window starts from the GVT advance of its first epoch", "[unit][engine]") {
  OptimismTuner t({0, 512}, 1.0);
  REQUIRE_FALSE(t.on_round(0, 0, 100));  // the first round opens the first epoch
  REQUIRE_FALSE(t.on_round(0.5, 50, 120));
  REQUIRE(t.on_round(1.0, 100, 140));
  CHECK(t.settings().window == 40);
  CHECK(t.settings().gvt_interval == 512);
  CHECK(t.changes() == 1);
}

TEST_CASE("optimism tuner: a probe clearly faster is kept and the next goes further; one that is not is undone",
          "[unit][engine]") {
  OptimismTuner t({1000, 512}, 1.0);
  REQUIRE_FALSE(t.on_round(0, 0, 0));
  // Epoch 1 measures the settings (100/s); epoch 2 probes the window, up x2.
  REQUIRE(epoch(t, 1, 100));
  CHECK(t.settings().window == 2000);
  CHECK(t.settings().gvt_interval == 512);
  // The probe ran at 120/s, more than 5% faster: kept, and the next probe goes up x4.
  REQUIRE(epoch(t, 2, 220));
  CHECK(t.settings().window == 8000);
  // 110/s: not faster than 120: undone. The settings are measured again before the interval's probe.
  REQUIRE(epoch(t, 3, 330));
  CHECK(t.settings().window == 2000);
  CHECK(t.settings().gvt_interval == 512);
  REQUIRE(epoch(t, 4, 530));  // 200/s at {2000, 512}; the interval's probe: up x2
  CHECK(t.settings().window == 2000);
  CHECK(t.settings().gvt_interval == 1024);
  // 205/s is within 5% of 200: undone; the interval's next probe will go down.
  REQUIRE(epoch(t, 5, 735));
  CHECK(t.settings().gvt_interval == 512);
  // The window's turn again, and after its undone step up it probes down, x2.
  REQUIRE(epoch(t, 6, 835));  // 100/s: the current settings, measured
  CHECK(t.settings().window == 1000);
  REQUIRE(epoch(t, 7, 1135));  // 300/s: kept; the next probe goes down x4
  CHECK(t.settings().window == 250);
  CHECK(t.settings().gvt_interval == 512);
  CHECK(t.changes() == 7);
}

TEST_CASE("optimism tuner: an epoch lasts its wall time and two rounds at least", "[unit][engine]") {
  OptimismTuner t({1000, 512}, 1.0);
  REQUIRE_FALSE(t.on_round(0, 0, 0));
  REQUIRE_FALSE(t.on_round(0.9, 90, 0));  // too soon
  REQUIRE(t.on_round(1.1, 110, 0));
  OptimismTuner every_round({1000, 512}, 0);
  REQUIRE_FALSE(every_round.on_round(0, 0, 0));
  REQUIRE_FALSE(every_round.on_round(0.001, 10, 0));  // one round is not an epoch
  REQUIRE(every_round.on_round(0.002, 20, 0));
}

TEST_CASE(
    "optimism tuner: the settings stay inside their bounds, and a rate that keeps rising drives the window up "
    "to its bound",
    "[unit][engine]") {
  OptimismTuner rising({3, 64}, 0);
  double wall = 0;
  std::uint64_t committed = 0;
  REQUIRE_FALSE(rising.on_round(wall, committed, 0));
  Time widest = 0;
  for (int i = 1; i <= 40; ++i) {
    committed += static_cast<std::uint64_t>(1000 * std::pow(1.5, i));  // every epoch 50% faster
    wall += 1;
    epoch(rising, wall, committed);
    widest = std::max(widest, rising.settings().window);
  }
  CHECK(widest == kTimeInfinity / 4);

  // Rates at random: whatever the tuner does, it stays inside the bounds.
  OptimismTuner wandering({1, 32}, 0);
  RandomStream rng(3, 3);
  wall = 0;
  committed = 0;
  REQUIRE_FALSE(wandering.on_round(wall, committed, 0));
  for (int i = 0; i < 2000; ++i) {
    committed += rng.below(1000000);
    wall += 1;
    epoch(wandering, wall, committed);
    REQUIRE(wandering.settings().window >= 1);
    REQUIRE(wandering.settings().window <= kTimeInfinity / 4);
    REQUIRE(wandering.settings().gvt_interval >= OptimismTuner::kFewestEventsPerRound);
    REQUIRE(wandering.settings().gvt_interval <= OptimismTuner::kMostEventsPerRound);
  }
}
