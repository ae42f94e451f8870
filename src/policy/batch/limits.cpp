#include "tracewarp/policy/batch/limits.hpp"

#include <string>

#include "tracewarp/core/error.hpp"

namespace tracewarp::batch {

const ParamTable<LimitSettings>& limit_params() {
  using P = LimitSettings;
  static const ParamTable<P> table =
      ParamTable<P>("batch")
          .integer("user_max_running_jobs", &P::user_max_running_jobs,
                   "jobs one user may run at once in a pool; later ones are held (Maui MAXJOB, Slurm "
                   "MaxJobsPerUser; 0 = no limit)")
          .integer("user_max_units", &P::user_max_units,
                   "processors (or nodes, as the scheduler counts) one user may hold at once in a pool (Maui "
                   "MAXPROC, Slurm GrpTRES=cpu; 0 = no limit)");
  return table;
}

bool UserLimits::holds(std::int32_t user, std::uint32_t units) const {
  if (!settings_.any()) return false;
  const auto it = running_.find(user);
  const Running now = it == running_.end() ? Running{} : it->second;
  return (settings_.user_max_running_jobs > 0 && now.jobs + 1 > settings_.user_max_running_jobs) ||
         (settings_.user_max_units > 0 && now.units + units > settings_.user_max_units);
}

void UserLimits::started(std::int32_t user, std::uint32_t units) {
  if (!settings_.any()) return;
  Running& r = running_[user];
  ++r.jobs;
  r.units += units;
}

void UserLimits::ended(std::int32_t user, std::uint32_t units) {
  if (!settings_.any()) return;
  const auto it = running_.find(user);
  if (it == running_.end() || it->second.jobs == 0 || it->second.units < units)
    throw InvariantError("user limits: user " + std::to_string(user) + " ended a job it was not running");
  if (--it->second.jobs == 0)
    running_.erase(it);
  else
    it->second.units -= units;
}

}  // namespace tracewarp::batch
