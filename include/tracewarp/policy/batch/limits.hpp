// Per-user limits on what runs at once, under every batch policy: Maui's MAXJOB and MAXPROC,
// Slurm's MaxJobsPerUser and GrpTRES=cpu. A job whose start would take its user past a limit is
// held: the policy does not see it until one of the user's jobs ends. Limits hold within one
// resource group (a partition: batch.partitions), as a partition's limits do in Slurm.
//
// A plain class, tested without the engine; the scheduler LP owns one and saves its state.
#pragma once

#include <cstdint>
#include <map>

#include "tracewarp/core/params.hpp"
#include "tracewarp/core/persist.hpp"

namespace tracewarp::batch {

struct LimitSettings {
  std::uint32_t user_max_running_jobs = 0;  // 0 = no limit
  std::uint64_t user_max_units = 0;         // processors (or nodes), as the scheduler counts; 0 = no limit
  bool any() const { return user_max_running_jobs > 0 || user_max_units > 0; }
  bool operator==(const LimitSettings&) const = default;
};
// Keys batch.user_max_*.
const ParamTable<LimitSettings>& limit_params();

class UserLimits {
 public:
  UserLimits() = default;
  explicit UserLimits(LimitSettings settings) : settings_(settings) {}

  bool any() const { return settings_.any(); }
  // Whether a job of `units` is past the limits on its own (it could never start).
  bool exceeds_alone(std::uint32_t units) const {
    return settings_.user_max_units > 0 && units > settings_.user_max_units;
  }
  // Whether starting a job of `units` now would take `user` past a limit.
  bool holds(std::int32_t user, std::uint32_t units) const;
  void started(std::int32_t user, std::uint32_t units);
  void ended(std::int32_t user, std::uint32_t units);  // InvariantError if the user runs no such job

  bool operator==(const UserLimits&) const = default;
  TRACEWARP_PERSIST(running_)

 private:
  struct Running {
    std::uint32_t jobs = 0;
    std::uint64_t units = 0;
    bool operator==(const Running&) const = default;
    TRACEWARP_PERSIST(jobs, units)
  };
  LimitSettings settings_;
  std::map<std::int32_t, Running> running_;  // users with running jobs
};

}  // namespace tracewarp::batch
