// Walltime-request accuracy (WRSA) and the policies that reward it — our reading of the WRSA
// study, kept in this one place so it can be changed (docs/studies.md#batch):
//
//  * Every user's score WRSA starts at 1.0 and is updated at each completion of one of the
//    user's jobs: WRSA <- beta * WRSA + (1 - beta) * WRA, where WRA = executed run time /
//    requested walltime, at most 1; a job killed at its walltime counts WRA = 1. beta = 0.3.
//  * LWJF (largest WRSA job first): the queue in descending WRSA of the submitter (ties: queue
//    order, i.e. submit time then id); every job that fits now starts, in that order; no
//    reservations.
//  * WRSA-OR (one reservation): EASY backfill whose head is the FCFS head; backfill candidates
//    are tried in descending WRSA (ties: queue order). A candidate whose user's WRSA is strictly
//    greater than the head user's may move the head's planned start later, up to
//    T0 + (alpha - 1) x the head's requested walltime, T0 being the head's planned start at the
//    beginning of the pass; any other candidate may not move it later at all. alpha = 1.5.
//    With equal scores for all users this is exactly EASY backfill.
//  * WRSA-AR (all reserved): conservative backfill (backfill.hpp) over the queue in descending
//    WRSA (ties: queue order). Each job keeps a bound, fixed at its first reservation T0:
//    T0 + (alpha - 1) x its requested walltime. Reservations are compressed each pass and never
//    move later — except that a job placed for the first time may push back reservations of
//    jobs of users with strictly lower WRSA, each at most to its bound: the new job is placed in
//    the profile without those, they are put back at their earliest fits in order, and if any
//    would start after its bound the new job is placed as in conservative backfill instead.
//    With equal scores for all users this is exactly conservative backfill.
#pragma once

#include <cstdint>
#include <map>

#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {

struct WrsaSettings {
  double alpha = 1.5;
  double beta = 0.3;
  bool operator==(const WrsaSettings&) const = default;
};

class WrsaScores {
 public:
  explicit WrsaScores(WrsaSettings settings = {}) : settings_(settings) {}
  double score(std::int32_t user) const;
  // A job of `user` ended after running `executed` of its `requested` walltime.
  void on_completion(std::int32_t user, Time executed, Time requested, bool killed);
  bool operator==(const WrsaScores&) const = default;

 private:
  WrsaSettings settings_;
  std::map<std::int32_t, double> scores_;  // users seen; others have 1.0
};

class LwjfPolicy {
 public:
  Time longest_plannable() const { return kTimeInfinity; }
  bool reads_wrsa() const { return true; }
  PassDecision pass(const SchedulingInput& in);
  bool operator==(const LwjfPolicy&) const = default;
};

class WrsaAllReservedPolicy {
 public:
  Time longest_plannable() const { return kTimeInfinity; }
  explicit WrsaAllReservedPolicy(WrsaSettings settings = {}) : settings_(settings) {}
  bool reads_wrsa() const { return true; }
  PassDecision pass(const SchedulingInput& in);
  bool operator==(const WrsaAllReservedPolicy&) const = default;

 private:
  struct Plan {
    Time start;  // current reservation
    Time bound;  // latest start a higher-WRSA job may push it to
    bool operator==(const Plan&) const = default;
  };
  WrsaSettings settings_;
  std::map<JobId, Plan> reserved_;
};

class WrsaOneReservedPolicy {
 public:
  Time longest_plannable() const { return kTimeInfinity; }
  explicit WrsaOneReservedPolicy(WrsaSettings settings = {}) : settings_(settings) {}
  bool reads_wrsa() const { return true; }
  PassDecision pass(const SchedulingInput& in);
  bool operator==(const WrsaOneReservedPolicy&) const = default;

 private:
  WrsaSettings settings_;
};

}  // namespace tracewarp::batch
