// The classic space-sharing policies, with any free nodes allowed (placement is the model's:
// lowest-numbered free nodes).
//   FcfsPolicy          start jobs in queue order while the head fits; stop at the first that
//                       does not.
//   EasyBackfillPolicy  FCFS, then the head gets a reservation at its shadow time (the earliest
//                       start the running jobs' requested ends allow) and a later job (within the
//                       queue depth) starts now if it fits now and either ends by the shadow time
//                       or uses only nodes the head will not need (the "extra" nodes).
//   ConservativeBackfillPolicy  every job within the depth gets a reservation at its earliest fit in
//                       the availability profile, and keeps it from pass to pass. Each pass
//                       compresses the schedule in queue order (Mu'alem & Feitelson): a job's
//                       reservation is taken out and put back at the earliest fit while every other
//                       reservation stays in the profile, so it can only move earlier — no job, of
//                       higher or lower priority, can ever delay it. Jobs reserved at now start.
//   ReservingBackfillPolicy  Slurm's backfill: each pass plans from scratch in queue (priority)
//                       order; a job that fits now in the profile starts, the first K that do not
//                       get a reservation at their earliest fit (none beyond the window), and the
//                       others start only if they fit around those. K = 1 is EASY (the same
//                       starts), K = 0 reserves for every job (conservative backfill replanned
//                       each pass, as Slurm's bf_max_job_test covering the queue; the kept and
//                       compressed reservations of ConservativeBackfillPolicy are another reading).
#pragma once

#include <map>

#include "tracewarp/core/persist.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {

class FcfsPolicy {
 public:
  bool reads_wrsa() const { return false; }
  Time longest_plannable() const { return kTimeInfinity; }
  PassDecision pass(const SchedulingInput& in);
  bool operator==(const FcfsPolicy&) const = default;
  TRACEWARP_PERSIST()  // no state
};

class EasyBackfillPolicy {
 public:
  bool reads_wrsa() const { return false; }
  Time longest_plannable() const { return kTimeInfinity; }
  PassDecision pass(const SchedulingInput& in);
  bool operator==(const EasyBackfillPolicy&) const = default;
  TRACEWARP_PERSIST()  // no state
};

class ConservativeBackfillPolicy {
 public:
  bool reads_wrsa() const { return false; }
  Time longest_plannable() const { return kTimeInfinity; }
  PassDecision pass(const SchedulingInput& in);
  bool operator==(const ConservativeBackfillPolicy&) const = default;
  TRACEWARP_PERSIST(reserved_)

 private:
  std::map<JobId, Time> reserved_;  // planned start of every queued job that has a reservation
};

class ReservingBackfillPolicy {
 public:
  // reserved: how many jobs get a reservation per pass (0 = all); window: none starts later than
  // now + window (0 = no window).
  explicit ReservingBackfillPolicy(std::size_t reserved = 1, Time window = 0) : reserved_(reserved), window_(window) {}
  bool reads_wrsa() const { return false; }
  Time longest_plannable() const { return kTimeInfinity; }
  PassDecision pass(const SchedulingInput& in);
  bool operator==(const ReservingBackfillPolicy&) const = default;
  TRACEWARP_PERSIST()  // configuration only: every pass plans from scratch

 private:
  std::size_t reserved_;
  Time window_;
};

}  // namespace tracewarp::batch
