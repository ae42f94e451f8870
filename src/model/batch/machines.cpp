#include "tracewarp/model/batch/machines.hpp"

#include "tracewarp/model/batch/batch_model.hpp"

#include "tracewarp/core/error.hpp"

#include <algorithm>
#include <sstream>

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

bool ResourceGroup::takes_partition(std::int32_t partition) const {
  return !by_partition() || other_partitions ||
         std::find(partitions.begin(), partitions.end(), partition) != partitions.end();
}

std::vector<ResourceGroup> parse_partitions(const std::string& spec, const std::string& key) {
  std::vector<ResourceGroup> groups;
  std::vector<std::int32_t> seen;
  std::istringstream in(spec);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    const auto fail = [&](const std::string& why) {
      return ConfigError(key + ": '" + item + "': " + why + " (NAME:SIZE:P+P+..., P a partition number or *)");
    };
    const std::size_t a = item.find(':'), b = a == std::string::npos ? a : item.find(':', a + 1);
    if (b == std::string::npos || a == 0) throw fail("not NAME:SIZE:PARTITIONS");
    ResourceGroup g{item.substr(0, a), 0, 1, 0};
    try {
      std::size_t used = 0;
      const long size = std::stol(item.substr(a + 1, b - a - 1), &used);
      if (used != b - a - 1 || size < 1 || size > kMaxBatchNodes) throw fail("SIZE must be a whole number >= 1");
      g.nodes = g.max_job_nodes = static_cast<std::uint32_t>(size);
      std::istringstream list(item.substr(b + 1));
      for (std::string p; std::getline(list, p, '+');) {
        if (p == "*") {
          if (std::any_of(groups.begin(), groups.end(), [](const ResourceGroup& o) { return o.other_partitions; }))
            throw fail("* is given twice");
          g.other_partitions = true;
          continue;
        }
        const long number = std::stol(p, &used);
        if (used != p.size() || number < -1 || number > INT32_MAX) throw fail("'" + p + "' is not a partition number");
        const auto n = static_cast<std::int32_t>(number);
        if (std::find(seen.begin(), seen.end(), n) != seen.end()) throw fail("partition " + p + " is listed twice");
        seen.push_back(n);
        g.partitions.push_back(n);
      }
    } catch (const std::logic_error&) {
      throw fail("SIZE and partitions must be numbers");
    }
    if (!g.by_partition()) throw fail("no partitions");
    groups.push_back(std::move(g));
  }
  return groups;
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
