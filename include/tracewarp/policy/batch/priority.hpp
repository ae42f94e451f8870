// The priority layer under every batch queue policy: the order in which a policy reads its
// queue (docs/studies.md#batch "Priorities"). Production schedulers order their queues by a
// priority, not by arrival; this is that priority, in Slurm's multifactor form:
//
//   priority = w_age x age + w_fairshare x fairshare + w_job_size x job_size
//            + w_queue x queue + w_expansion x expansion,        each factor in [0, 1]
//
//   age        min(wait / max_age, 1)                           Slurm PriorityMaxAge
//   fairshare  2^(-U / S)                                       Slurm's classic formula
//              U = the account's decayed usage (processor-seconds, halved every half-life)
//                  over every account's;  S = its share: 1 / accounts (equal shares)
//   job_size   requested units / machine units, or 1 minus it   Slurm PriorityFavorSmall
//   queue      the job's queue's priority / the highest queue priority
//   expansion  1 - request / (wait + request) = 1 - 1 / XF      Maui's expansion factor XF
//
// Ties go to the earlier arrival. Priorities are recomputed every calc period (Slurm's
// PriorityCalcPeriod, 5 minutes by default; 0 = at every pass), a job's own at its arrival.
// Usage accrues for running jobs at each recomputation and for the rest of a job at its end.
//
// A plain class, tested without the engine; the scheduler LP owns one and saves its state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tracewarp/core/params.hpp"
#include "tracewarp/core/persist.hpp"
#include "tracewarp/core/time.hpp"

namespace tracewarp::batch {

struct QueuedJob;

struct PrioritySettings {
  std::string order = "arrival";  // arrival | multifactor
  double weight_age = 0;
  double weight_fairshare = 0;
  double weight_job_size = 0;
  double weight_queue = 0;
  double weight_expansion = 0;
  Time max_age = from_seconds(std::int64_t{7 * 86'400});    // Slurm's PriorityMaxAge default
  Time calc_period = from_seconds(std::int64_t{300});       // Slurm's PriorityCalcPeriod default
  Time half_life = from_seconds(std::int64_t{7 * 86'400});  // Slurm's PriorityDecayHalfLife default
  std::string fairshare_by = "user";                        // user | group: whose usage a job is charged to
  bool favor_small = false;                                 // Slurm's PriorityFavorSmall
  std::map<std::int32_t, double> queue_priority;            // by queue number; unlisted queues 0

  bool by_arrival() const { return order == "arrival"; }
  // The account a job's usage is charged to: its user or its group (fairshare_by).
  std::int32_t account_of(std::int32_t user, std::int32_t group) const {
    return fairshare_by == "group" ? group : user;
  }
  bool operator==(const PrioritySettings&) const = default;
};
// Keys batch.priority*, batch.fairshare_*, batch.queue_priorities.
const ParamTable<PrioritySettings>& priority_params();

// The factors of one job at one time, each in [0, 1] (see the header).
struct PriorityFactors {
  double age = 0;
  double fairshare = 0;
  double job_size = 0;
  double queue = 0;
  double expansion = 0;
};

class PriorityLayer {
 public:
  PriorityLayer() = default;
  // `machine_units`: the machine in the scheduler's units; `accounts`: how many users (or
  // groups) share it, for equal shares.
  PriorityLayer(PrioritySettings settings, std::uint64_t machine_units, std::uint64_t accounts);

  bool by_arrival() const { return arrival_; }
  bool tracks_usage() const { return !by_arrival() && settings_.weight_fairshare > 0; }
  // Whether the queue's priorities are due to be recomputed at `now`; begin_computation(now)
  // first, then priority() of each job.
  bool due(Time now) const { return !by_arrival() && now >= next_calc_; }
  // Starts a recomputation at `now`, once the usage has been brought up to now: the fair-share
  // factors are taken from the usage as it is now and kept until the next one, which is due a
  // calc period later.
  void begin_computation(Time now);

  PriorityFactors factors(const QueuedJob& job, Time now) const;
  double priority(const QueuedJob& job, Time now) const;

  // Usage, in unit-seconds (processor- or node-seconds, as the scheduler counts): decay_to
  // halves every account's at the half-life rate up to `now`; charge adds to one account.
  void decay_to(Time now);
  void charge(std::int32_t account, double unit_seconds);
  double usage(std::int32_t account) const;  // decayed
  std::int32_t account_of(std::int32_t user, std::int32_t group) const { return by_group_ ? group : user; }

  bool operator==(const PriorityLayer&) const = default;
  TRACEWARP_PERSIST(usage_, total_usage_, decayed_at_, next_calc_, fairshare_)

 private:
  double fairshare_factor(const QueuedJob& job) const;
  double queue_factor(const QueuedJob& job) const;
  double job_size_factor(const QueuedJob& job) const;

  PrioritySettings settings_;
  // settings_'s two choices, read for every queued job at each recomputation: kept as flags
  // rather than compared as strings there.
  bool arrival_ = true;
  bool by_group_ = false;
  double machine_units_ = 1;
  double share_ = 1;  // each account's normalised share S
  double top_queue_priority_ = 0;
  std::map<std::int32_t, double> usage_;  // decayed usage by account
  double total_usage_ = 0;                // their sum, kept with them
  Time decayed_at_ = 0;
  Time next_calc_ = 0;
  // The fair-share factor of every account with usage, by account, as of the last computation
  // (the others' is 1): one exp2 per account rather than per job.
  std::vector<std::pair<std::int32_t, double>> fairshare_;
};

}  // namespace tracewarp::batch
