// Optimism that adapts (engine.tune_optimism): the optimism window and the GVT interval of an
// optimistic run, tuned while it runs by probing neighbours and keeping what raises the rate at
// which the whole run commits events.
//
// Why a global throughput rule: the settings that pay depend on the model, the rank count and the
// machine (the replication model gained 1.16x on 16 ranks with no window and 2.98x with a wide
// one; on 2 ranks a window of 0.1 ms took 2.7x longer than one of 0.1 s), and rules from one
// rank's own signals (its share rolled back, its own rate) were built and removed: the rate a
// rank sees rewards widening before the rollbacks it causes come back, on other ranks.
// What every setting is finally judged by is the rate at which the whole run commits events, and
// that is known to every rank at the end of each GVT round: the round's reduction carries the sum
// of the ranks' committed counts and the largest of their clocks. Every rank feeds the same values
// to the same tuner, so every rank takes the same decisions, with no message of its own.
//
// The rule: probe, and keep what clearly pays. Time is cut into epochs of at least `epoch_s` of
// wall time (and 2 rounds). An epoch at the current settings measures their rate; the next one
// probes a neighbour, one setting moved by a power of 2. A probe at least 5% faster becomes the
// current settings, and the next probe goes the same way, further (x2, x4, then x16: a run that
// starts far from its best setting gets there in a few steps). A probe that is not is undone, the
// next probe of that setting goes the other way, the other setting takes its turn, and the current
// settings are measured again first (the rate also moves with the model's phases: each probe is
// judged against a fresh measurement). So on a flat landscape the settings stay where they are and
// half the epochs run one step away; on a steep one they climb. A run with no window (window 0)
// starts from the GVT advance of its first epoch, a window about as wide as none at all.
//
// Only speed depends on the tuner: what is committed does not (the determinism suite runs with it
// on, deciding at every round).
#pragma once

#include <algorithm>
#include <cstdint>

#include "tracewarp/core/time.hpp"

namespace tracewarp::detail {

class OptimismTuner {
 public:
  struct Settings {
    Time window = 0;                 // 0: none
    std::uint64_t gvt_interval = 0;  // events a rank executes between GVT rounds
  };
  static constexpr std::uint64_t kFewestEventsPerRound = 32;
  static constexpr std::uint64_t kMostEventsPerRound = 1u << 16;

  OptimismTuner(Settings start, double epoch_s) : base_(start), now_(start), epoch_s_(epoch_s) {}

  // At the end of a GVT round, with what every rank agreed on: the largest clock (seconds since
  // the start), the sum of committed events and GVT. True when the settings changed.
  bool on_round(double wall_s, std::uint64_t committed, Time gvt) {
    ++rounds_in_epoch_;
    if (!started_) {
      started_ = true;
      open_epoch(wall_s, committed, gvt);
      return false;
    }
    const double span = wall_s - epoch_wall_;
    if (span < epoch_s_ || rounds_in_epoch_ < 2 || span <= 0) return false;
    const double rate = static_cast<double>(committed - epoch_committed_) / span;
    const Time advance = gvt - epoch_gvt_;
    open_epoch(wall_s, committed, gvt);
    if (base_.window == 0) {  // no window: a finite one as wide as the first epoch's GVT advance
      if (advance <= 0 || gvt >= kTimeInfinity) return false;
      base_.window = now_.window = advance;
      ++changes_;
      return true;
    }
    if (!probing_) {
      base_rate_ = rate;
      probe();
    } else if (rate > base_rate_ * (1 + kClearGain)) {
      base_ = now_;  // the probe pays: keep it, and probe further the same way
      base_rate_ = rate;
      lengthen(course(turn_));
      probe();
    } else {
      now_ = base_;  // it does not: undo it, and measure the settings again before the next probe
      probing_ = false;
      reverse(course(turn_));
      turn_ = turn_ == Turn::window ? Turn::interval : Turn::window;
    }
    ++changes_;
    return true;
  }

  const Settings& settings() const { return now_; }
  std::uint64_t changes() const { return changes_; }

  static constexpr double kClearGain = 0.05;  // a probe must be this much faster to be kept

 private:
  enum class Turn { window, interval };
  // Where one setting's next probe goes: up or down, by 2^shift.
  struct Course {
    bool up = true;
    int shift = 1;
  };
  static constexpr int kLongestShift = 4;

  void open_epoch(double wall_s, std::uint64_t committed, Time gvt) {
    epoch_wall_ = wall_s;
    epoch_committed_ = committed;
    epoch_gvt_ = gvt;
    rounds_in_epoch_ = 0;
  }
  Course& course(Turn t) { return t == Turn::window ? window_course_ : interval_course_; }
  static void lengthen(Course& c) { c.shift = std::min(c.shift * 2, kLongestShift); }
  static void reverse(Course& c) {
    c.up = !c.up;
    c.shift = 1;
  }
  template <class T>
  static T stepped(T value, const Course& c, T lo, T hi) {
    const T bound = c.up ? hi >> c.shift : lo << c.shift;  // the step stays inside [lo, hi]
    if (c.up) return value >= bound ? hi : value << c.shift;
    return value <= bound ? lo : value >> c.shift;
  }
  // Moves the current settings one step from base_ along the course of turn_'s setting (turned
  // round at a bound, where that course could not move it).
  void probe() {
    probing_ = true;
    for (int tries = 0; tries < 2; ++tries) {
      now_ = base_;
      if (turn_ == Turn::window)
        now_.window = stepped<Time>(base_.window, window_course_, 1, kTimeInfinity / 4);
      else
        now_.gvt_interval =
            stepped<std::uint64_t>(base_.gvt_interval, interval_course_, kFewestEventsPerRound, kMostEventsPerRound);
      if (now_.window != base_.window || now_.gvt_interval != base_.gvt_interval) return;
      reverse(course(turn_));
    }
  }

  Settings base_;  // the settings kept so far
  Settings now_;   // in force: base_, or a probe one step from it
  double epoch_s_;
  bool started_ = false;
  double epoch_wall_ = 0;
  std::uint64_t epoch_committed_ = 0;
  Time epoch_gvt_ = 0;
  std::uint64_t rounds_in_epoch_ = 0;
  bool probing_ = false;
  double base_rate_ = 0;  // of base_, measured in the last epoch that ran it
  Turn turn_ = Turn::window;
  Course window_course_;
  Course interval_course_;
  std::uint64_t changes_ = 0;
};

}  // namespace tracewarp::detail
