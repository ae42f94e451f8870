// The batch policies the tests run, from the registry: a new policy is tested without editing a
// list.
#pragma once

#include <string>
#include <vector>

#include "tracewarp/policy/batch/priority.hpp"
#include "tracewarp/policy/batch/registry.hpp"

namespace tracewarp::testing {

// Every batch policy for which any free nodes will do (all but the placement-aware ones, which
// need contiguous allocation and a pattern of their own).
inline std::vector<std::string> any_node_policies() {
  std::vector<std::string> out;
  for (const batch::BatchPolicyInfo& info : batch::batch_policies())
    if (!info.contiguous_only) out.push_back(info.name);
  return out;
}

// A multifactor priority with every factor weighted (queues 0 and 2 listed, 1 not), periods short
// enough for a test's workload of hours.
inline batch::PrioritySettings every_factor_priority() {
  return {.order = "multifactor",
          .weight_age = 100,
          .weight_fairshare = 1000,
          .weight_job_size = 50,
          .weight_queue = 200,
          .weight_expansion = 10,
          .max_age = from_seconds(std::int64_t{3600}),
          .calc_period = from_seconds(std::int64_t{120}),
          .half_life = from_seconds(std::int64_t{1800}),
          .queue_priority = {{0, 1}, {2, 3}}};
}

}  // namespace tracewarp::testing
