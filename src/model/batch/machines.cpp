#include "tracewarp/model/batch/machines.hpp"

#include "tracewarp/model/batch/batch_model.hpp"

#include "tracewarp/core/error.hpp"

namespace tracewarp::batch {

Resources parse_resources(const std::string& name) {
  if (name == "processors") return Resources::processors;
  if (name == "exclusive-nodes") return Resources::exclusive_nodes;
  if (name == "shared-nodes") return Resources::shared_nodes;
  throw ConfigError("unknown resources '" + name + "' (processors, exclusive-nodes or shared-nodes)");
}

std::string to_string(Resources resources) {
  switch (resources) {
    case Resources::processors:
      return "processors";
    case Resources::exclusive_nodes:
      return "exclusive-nodes";
    case Resources::shared_nodes:
      return "shared-nodes";
  }
  return "?";
}

std::vector<std::string> machine_preset_names() { return {"kcomputer", "kcomputer-768", "ricc"}; }

MachinePreset machine_preset(const std::string& name) {
  if (name == "kcomputer")
    return {.name = name,
            .nodes = 82'944,
            .groups = {{"small", 9'216, 1, 384}, {"large", 73'728, 385, 36'864}},
            .allocation = Allocation::contiguous,
            .cores_per_node = 8};
  if (name == "kcomputer-768")
    return {.name = name,
            .nodes = 768,
            .groups = {},
            .allocation = Allocation::contiguous,
            .cores_per_node = 8,
            .scale_jobs_from = 82'944,
            .mix_has_small_group = false};
  if (name == "ricc")
    return {.name = name, .nodes = 1'024, .groups = {}, .allocation = Allocation::any, .cores_per_node = 8};
  throw ConfigError("unknown machine preset '" + name + "' (kcomputer, kcomputer-768, ricc)");
}

std::vector<ResourceGroup> resolve_groups(std::uint32_t nodes, const std::vector<ResourceGroup>& groups) {
  if (groups.empty()) return {{"all", nodes, 1, nodes}};
  std::uint64_t sum = 0;
  for (const ResourceGroup& g : groups) {
    if (g.nodes == 0 || g.min_job_nodes == 0 || g.min_job_nodes > g.max_job_nodes || g.max_job_nodes > g.nodes)
      throw ConfigError("resource group " + g.name + ": needs nodes > 0 and 1 <= min job nodes <= max <= nodes");
    sum += g.nodes;
  }
  if (sum != nodes)
    throw ConfigError("resource groups have " + std::to_string(sum) + " nodes, the machine " + std::to_string(nodes));
  return groups;
}

}  // namespace tracewarp::batch
