#include "tracewarp/policy/las/registry.hpp"

#include "tracewarp/core/named.hpp"

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

std::vector<std::string> las_scheduler_names() { return names_of(las_schedulers()); }

const LasSchedulerInfo& find_las_scheduler(const std::string& name) {
  return find_named(las_schedulers(), name, "LAS scheduler");
}

}  // namespace tracewarp::las
