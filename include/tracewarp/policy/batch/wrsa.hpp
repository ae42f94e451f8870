// Walltime-request accuracy (WRSA) and the policies that reward it — our reading of the WRSA
// study, kept in this one place so it can be changed (batch.md):
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
//  * WRSA-AR (all reserved) is not implemented yet.
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

class LwjfPolicy final : public BatchPolicy {
 public:
  std::string name() const override { return "lwjf"; }
  bool reads_wrsa() const override { return true; }
  PassDecision pass(const SchedulingInput& in) override;
  bool operator==(const LwjfPolicy&) const = default;
};

class WrsaOneReservedPolicy final : public BatchPolicy {
 public:
  explicit WrsaOneReservedPolicy(WrsaSettings settings = {}) : settings_(settings) {}
  std::string name() const override { return "wrsa-or"; }
  bool reads_wrsa() const override { return true; }
  PassDecision pass(const SchedulingInput& in) override;
  bool operator==(const WrsaOneReservedPolicy&) const = default;

 private:
  WrsaSettings settings_;
};

}  // namespace tracewarp::batch
