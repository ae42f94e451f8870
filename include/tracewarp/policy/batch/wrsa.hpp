// Walltime-request accuracy (WRSA) and the policies that reward it — our reading of the WRSA
// study, kept in this one place so it can be changed (docs/studies.md#batch):
//
//  * Every user's score WRSA starts at 1.0 and is updated at each completion of one of the
//    user's jobs: WRSA <- beta * WRSA + (1 - beta) * WRA, where WRA = executed run time /
//    requested walltime, at most 1; a job killed at its walltime counts WRA = 1. beta = 0.3.
//  * The queue depth (SchedulingInput::depth, 100 in the study) is taken in each policy's own
//    order: the WRSA policies consider the first `depth` jobs of the *whole* queue in descending
//    WRSA of the submitter, ties in queue order (the study: "the first 100 jobs — in arrival
//    order for EASY, in descending WRSA for the two proposed methods"). Taking the first 100
//    arrivals and sorting them would see the same jobs as EASY and hide the effect under load.
//  * LWJF (largest WRSA job first; the study only names it): those jobs in descending WRSA,
//    scheduled like FCFS — each starts while it fits, the first that does not fit stops the pass;
//    no reservations, no backfill. With equal scores it is FCFS. The named variant `lwjf-fill`
//    starts every job that fits instead of stopping (our first reading).
//  * WRSA-OR (one reservation): EASY backfill over the considered jobs — the whole pass, head and
//    backfill candidates, sees only the top `depth` jobs by WRSA. Which of them is the reserved
//    head is a reading, one key (batch.wrsa_or_head): `earliest-arrived` (the default: those jobs
//    in arrival order start while they fit, as in EASY, and the first that does not is the head)
//    or `highest-wrsa` (the same in descending WRSA). The other considered jobs are backfill
//    candidates, tried in descending WRSA. A candidate whose user's WRSA is strictly greater than
//    the head user's may move the head's planned start later, up to T0 + (alpha - 1) x the head's
//    requested walltime, where T0 is the head's planned start when it was *first* reserved and
//    never moves, so delays do not compound over passes; any other candidate may not move it
//    later at all. alpha = 1.5. With equal scores for all users this is exactly EASY backfill.
//    OUR ASSUMPTION: the study's policy section is lost from the text we have. The alpha rule
//    (who may delay the head, and by how much) and T0 as the first reservation (its wording comes
//    from the study's Delay metric, "the time at which the job was first reserved to run") are
//    our reading, as is the head; WRSA-AR's bound below rests on the same assumption.
//  * WRSA-AR (all reserved): conservative backfill (backfill.hpp) over the considered jobs in
//    descending WRSA. Each job keeps a bound, fixed at its first reservation T0:
//    T0 + (alpha - 1) x its requested walltime. Reservations are compressed each pass and never
//    move later — except that a job placed for the first time may push back reservations of
//    jobs of users with strictly lower WRSA, each at most to its bound: the new job is placed in
//    the profile without those, they are put back at their earliest fits in order, and if any
//    would start after its bound the new job is placed as in conservative backfill instead.
//    With equal scores for all users this is exactly conservative backfill.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "tracewarp/core/persist.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {

struct WrsaSettings {
  enum class Head { earliest_arrived, highest_wrsa };  // WRSA-OR's reserved head (above)
  double alpha = 1.5;
  double beta = 0.3;
  Head or_head = Head::earliest_arrived;
  bool operator==(const WrsaSettings&) const = default;
};

class WrsaScores {
 public:
  explicit WrsaScores(WrsaSettings settings = {}) : settings_(settings) {}
  double score(std::int32_t user) const;
  // A job of `user` ended after running `executed` of its `requested` walltime.
  void on_completion(std::int32_t user, Time executed, Time requested, bool killed);
  bool operator==(const WrsaScores&) const = default;
  TRACEWARP_PERSIST(scores_)

 private:
  WrsaSettings settings_;
  std::map<std::int32_t, double> scores_;  // users seen; others have 1.0
};

class LwjfPolicy {
 public:
  enum class OnMisfit { stop, skip };  // lwjf: the first job that does not fit ends the pass; lwjf-fill: skip it
  explicit LwjfPolicy(OnMisfit on_misfit = OnMisfit::stop) : on_misfit_(on_misfit) {}
  Time longest_plannable() const { return kTimeInfinity; }
  bool reads_wrsa() const { return true; }
  PassDecision pass(const SchedulingInput& in);
  bool operator==(const LwjfPolicy&) const = default;
  TRACEWARP_PERSIST()  // configuration only

 private:
  OnMisfit on_misfit_;
};

class WrsaAllReservedPolicy {
 public:
  Time longest_plannable() const { return kTimeInfinity; }
  explicit WrsaAllReservedPolicy(WrsaSettings settings = {}) : settings_(settings) {}
  bool reads_wrsa() const { return true; }
  PassDecision pass(const SchedulingInput& in);
  bool operator==(const WrsaAllReservedPolicy&) const = default;
  TRACEWARP_PERSIST(reserved_)

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
  TRACEWARP_PERSIST(head_)

 private:
  struct HeadPlan {
    JobId id;
    Time t0;  // the head's planned start when it was first reserved
    bool operator==(const HeadPlan&) const = default;
  };
  WrsaSettings settings_;
  std::optional<HeadPlan> head_;
};

}  // namespace tracewarp::batch
