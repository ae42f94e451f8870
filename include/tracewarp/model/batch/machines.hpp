// The machines of the batch studies, in one place (docs/studies.md#batch "Machine"):
//   kcomputer      82,944 nodes (864 racks x 96) as two resource groups with their own queue
//                  and scheduler: small = nodes 0-9,215 for jobs of 1-384 nodes, large = nodes
//                  9,216-82,943 for jobs of 385-36,864 nodes; contiguous allocation.
//   kcomputer-768  the study's scaled-down machine: 768 nodes, one group; job node counts scaled
//                  by 768/82,944, rounded up, at least 1 (workload.scale_nodes_to = 768 with
//                  workload.machine_nodes = 82,944); contiguous. Its generated mix is the
//                  large-group mix only: the study built its mixes from the large group's log.
//   ricc           1,024 nodes x 8 cores, any free nodes (the WRSA study).
// A group's job-size range decides where a job goes; a job that fits no group is rejected
// (reported in the job table with status 2). Groups may instead be a log's partitions
// (batch.partitions: SWF field 16): then a job goes to the group that lists its partition, or
// to the one that takes every other partition, and is rejected where there is none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tracewarp/policy/batch/node_pool.hpp"

namespace tracewarp::batch {

struct ResourceGroup {
  std::string name;
  std::uint32_t nodes;          // nodes of the group (units: processors when the scheduler counts them);
                                // groups lie side by side on the node line
  std::uint32_t min_job_nodes;  // the group takes jobs of min..max nodes
  std::uint32_t max_job_nodes;
  std::vector<std::int32_t> partitions = {};  // a partition group: the trace partitions it takes
  bool other_partitions = false;              // a partition group that takes every unlisted partition

  bool by_partition() const { return other_partitions || !partitions.empty(); }
  bool takes_partition(std::int32_t partition) const;
};

// Partition groups from "NAME:SIZE:P+P+...,..." (SIZE in the scheduler's units; P a partition
// number of the trace, or * for every partition not listed); ConfigError naming `key`.
std::vector<ResourceGroup> parse_partitions(const std::string& spec, const std::string& key);

struct MachinePreset {
  std::string name;
  std::uint32_t nodes = 0;
  std::vector<ResourceGroup> groups;  // empty: one group of the whole machine
  Allocation allocation = Allocation::any;
  std::uint32_t cores_per_node = 1;
  std::uint32_t scale_jobs_from = 0;  // > 0: job nodes scaled from a machine of this many nodes
  bool mix_has_small_group = true;    // for the K computer mix generator
};

// "kcomputer", "kcomputer-768", "ricc"; ConfigError otherwise.
MachinePreset machine_preset(const std::string& name);
// The names machine_preset knows, for batch.machine.
std::vector<std::string> machine_preset_names();

// The groups of a machine of `nodes` nodes: the given ones (checked: they must add up to the
// machine), or one group of all of them taking every job size.
std::vector<ResourceGroup> resolve_groups(std::uint32_t nodes, const std::vector<ResourceGroup>& groups);

}  // namespace tracewarp::batch
