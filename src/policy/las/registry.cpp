#include "tracewarp/policy/las/registry.hpp"

#include "tracewarp/core/error.hpp"

namespace tracewarp::las {

const std::vector<LasSchedulerInfo>& las_schedulers() {
  static const std::vector<LasSchedulerInfo> all = {
      {"proposed", "similarity placement (load threshold L) + minimal candidate-set preemption (W, N)",
       PlacementRule::similarity, Preemption::candidate_sets},
      {"kairos", "fewest unfinished tasks (cap Q) + greedy preemption of the longest attained service",
       PlacementRule::fewest_tasks, Preemption::greedy},
  };
  return all;
}

std::vector<std::string> las_scheduler_names() {
  std::vector<std::string> names;
  for (const LasSchedulerInfo& s : las_schedulers()) names.push_back(s.name);
  return names;
}

const LasSchedulerInfo& find_las_scheduler(const std::string& name) {
  for (const LasSchedulerInfo& s : las_schedulers())
    if (s.name == name) return s;
  throw ConfigError("las.scheduler must be proposed or kairos, got '" + name + "'");
}

}  // namespace tracewarp::las
