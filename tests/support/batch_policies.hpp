// The batch policies the tests run, from the registry: a new policy is tested without editing a
// list.
#pragma once

#include <string>
#include <vector>

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

}  // namespace tracewarp::testing
