// The LAS study's schedulers by name: the one place a name, its description and the rules it
// combines are declared (placement.hpp, node_scheduler.hpp hold the rules).
#pragma once

#include <string>
#include <vector>

#include "tracewarp/policy/las/node_scheduler.hpp"

namespace tracewarp::las {

enum class PlacementRule { similarity, fewest_tasks };

struct LasSchedulerInfo {
  std::string name;
  std::string description;
  PlacementRule placement;
  Preemption preemption;
};
const std::vector<LasSchedulerInfo>& las_schedulers();
std::vector<std::string> las_scheduler_names();
const LasSchedulerInfo& find_las_scheduler(const std::string& name);  // throws ConfigError

}  // namespace tracewarp::las
