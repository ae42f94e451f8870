// The batch model as an experiment (experiment.model = "batch"): its keys, the K computer mix
// generator, its tables and summary.
#include <cstdio>
#include <optional>

#include "tracewarp/config/settings.hpp"
#include "tracewarp/model/batch/batch_model.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/workload/kcomputer_mix.hpp"
#include "tracewarp/workload/transforms.hpp"

namespace tracewarp::batch {
namespace {

// The machine's keys: a preset, the allocation rule (empty = the preset's, else any) and what a
// job is given (empty = the preset's, else processors for an SWF trace and whole nodes otherwise).
const ParamTable<MachineChoice>& machine_params() {
  static const ParamTable<MachineChoice> table = [] {
    std::vector<std::string> presets{""};
    for (const std::string& name : machine_preset_names()) presets.push_back(name);
    return ParamTable<MachineChoice>("batch")
        .choice("machine", &MachineChoice::preset, presets, "preset machine (model/batch/machines.hpp)")
        .choice("allocation", &MachineChoice::allocation, {"", "any", "contiguous"},
                "any (lowest-numbered free nodes) or contiguous (one range, lowest start); empty = the preset's, "
                "else any")
        .choice("resources", &MachineChoice::resources, {"", "processors", "exclusive-nodes", "shared-nodes"},
                "what a job is given: processors (a pool of nodes x cores per node), exclusive-nodes (whole nodes, "
                "ceil(processors / cores per node)) or shared-nodes (cores packed onto shared nodes); empty = the "
                "preset's (exclusive-nodes), else processors for an SWF trace and exclusive-nodes otherwise "
                "(docs/studies.md#resources)");
  }();
  return table;
}

// The K computer mix's keys (workload/kcomputer_mix.hpp has the assumptions).
const ParamTable<workload::KComputerMix>& kmix_params() {
  using P = workload::KComputerMix;
  static const ParamTable<P> table =
      ParamTable<P>("kmix")
          .number("days", &P::days, "K computer mix: days of submissions",
                  {.min = 1e-9, .max = kMaxDurationSeconds / 86400})
          .number("full_share", &P::full_share, "K computer mix: share of jobs that run until their walltime",
                  {.min = 0, .max = 1})
          .number("min_ratio", &P::min_ratio,
                  "K computer mix: smallest run/requested ratio of the other jobs (uniform up to 1)",
                  {.min = 0, .max = 1})
          .integer("users", &P::users, "K computer mix: users (Zipf weights)", {.min = 1})
          .number("daily_cv", &P::daily_cv,
                  "K computer mix: day-to-day coefficient of variation of each class's submission rate (bursty "
                  "arrivals); 0 = plain Poisson",
                  {.min = 0, .max = 10});
  return table;
}
struct KmixGroups {
  std::string groups = "auto";
  double load_small = workload::GroupMix{}.load;
  double load_large = workload::GroupMix{}.load;
};
const ParamTable<KmixGroups>& kmix_group_params() {
  static const ParamTable<KmixGroups> table =
      ParamTable<KmixGroups>("kmix")
          .choice("groups", &KmixGroups::groups, {"auto", "both", "large"},
                  "K computer mix: the resource groups (auto = the machine preset's choice; both without one)")
          .number("load_large", &KmixGroups::load_large, "K computer mix: offered load on the large group", {.min = 0})
          .number("load_small", &KmixGroups::load_small, "K computer mix: offered load on the small group", {.min = 0});
  return table;
}

std::optional<MachinePreset> configured_machine(const Config& c) {
  const std::string name = machine_params().read(c).preset;
  if (name.empty()) return std::nullopt;
  return machine_preset(name);
}

// The K computer mix the kmix.* keys describe, transformed by workload.* (and scaled to the
// preset machine's node count when the preset asks for it).
workload::Workload generate_kcomputer(const Config& c) {
  const std::optional<MachinePreset> machine = configured_machine(c);
  const KmixGroups g = kmix_group_params().read(c);
  const bool small = g.groups == "both" || (g.groups == "auto" && (!machine || machine->mix_has_small_group));
  workload::KComputerMix mix = kmix_params().read(c);
  mix.seed = model::run_context(c).seed;
  mix.groups = workload::kcomputer_groups(small, g.load_small, g.load_large);
  workload::Transforms t = workload::transform_params().read(c);
  // A scaled machine (kcomputer-768) gets the large-group mix scaled by the generator, so the
  // offered load is the load on the machine the jobs run on.
  if (machine && machine->scale_jobs_from > 0 && t.scale_nodes_to == 0) {
    if (!small) {
      mix = workload::scaled_large_group_mix(mix, machine->nodes, g.load_large);
    } else {  // both groups squeezed onto the scaled machine: loads refer to the full machine
      t.scale_nodes_to = machine->nodes;
      t.machine_nodes = machine->scale_jobs_from;
    }
  }
  workload::Workload w = workload::generate_kcomputer_mix(mix);
  workload::apply_transforms(w, t);
  return w;
}

// What a job is given and the machine's cores per node: the key, else the preset's, else
// processors for an SWF trace (how the Parallel Workloads Archive reads its logs) and whole
// nodes for workloads sized in nodes (generators, ALCF logs).
void resolve_resources(BatchParams& p, const std::optional<MachinePreset>& machine, const workload::Workload& w) {
  const std::string& asked = p.machine.resources;
  const auto format = w.header.find("Format");
  const bool swf = format != w.header.end() && format->second == "swf";
  p.resources = !asked.empty() ? parse_resources(asked)
                : machine      ? Resources::exclusive_nodes
                : swf          ? Resources::processors
                               : Resources::exclusive_nodes;
  p.cores_per_node =
      machine ? machine->cores_per_node
              : static_cast<std::uint32_t>(std::max<std::int64_t>(1, workload::header_int(w.header, "CoresPerNode")));
  if (p.resources == Resources::shared_nodes) {
    if (!p.machine.allocation.empty())
      throw ConfigError("batch.allocation = \"" + p.machine.allocation +
                        "\" does not apply to batch.resources = \"shared-nodes\", which packs cores by its own rule "
                        "(docs/studies.md#resources)");
    p.allocation = Allocation::packed;
  }
}

// BatchParams from the batch.* keys, the machine preset and the workload's header.
BatchParams configured_params(const Config& c, const workload::Workload& w) {
  const std::optional<MachinePreset> machine = configured_machine(c);
  BatchParams p = param_table().read(c);
  if (p.nodes == 0 && !machine && w.max_nodes > std::int64_t{kMaxBatchNodes})
    throw ConfigError(w.source + ": its header gives a machine of " + std::to_string(w.max_nodes) +
                      " nodes, more than the batch model takes (" + std::to_string(kMaxBatchNodes) +
                      "): set batch.nodes");
  if (p.nodes == 0)
    p.nodes = machine ? machine->nodes : static_cast<std::uint32_t>(std::max<std::int64_t>(0, w.max_nodes));
  if (p.nodes == 0)
    throw ConfigError(
        w.source + ": the trace does not say the machine's size" +
        (w.header.count("Format") && w.header.at("Format") == "swf" ? " (no MaxNodes or MaxProcs header)" : "") +
        ": set batch.nodes (and workload.cores_per_node when jobs are sized in processors)");
  if (machine && p.nodes == machine->nodes) p.groups = machine->groups;
  if (!p.partitions.empty()) {
    if (!p.groups.empty())
      throw ConfigError("batch.partitions: the machine preset \"" + machine->name +
                        "\" has resource groups of its own; leave batch.machine empty to use partitions");
    p.groups = parse_partitions(p.partitions, "batch.partitions");
  }
  const std::string& allocation = p.machine.allocation;
  p.allocation = !allocation.empty() ? parse_allocation(allocation) : machine ? machine->allocation : Allocation::any;
  resolve_resources(p, machine, w);
  p.context = model::run_context(c);
  return p;
}

using Prepared = model::WithWorkload<BatchParams>;

// The workload, the batch.* keys resolved on the machine, and the run context, checked.
Prepared prepare(const Config& c) {
  Prepared p{model::configured_workload(c), {}};
  p.params = configured_params(c, p.workload);
  validate(p.workload, p.params);
  return p;
}

// A summary window that runs past the last job's end counts idle time after the workload as
// unused machine (a 1-day mix in the 21-day window of the K computer study: utilisation 0.34), so
// the run says so rather than letting the figure stand silently.
void warn_if_window_outlasts_jobs(const BatchResult& r, const BatchParams& p) {
  double last_end = 0;
  for (const JobRow& j : r.jobs)
    if (j.status != static_cast<std::int16_t>(JobStatus::rejected)) last_end = std::max(last_end, j.end_s);
  const double until = to_seconds(p.window_until);
  if (p.window_until > 0 && until > last_end)
    std::fprintf(stderr,
                 "tracewarp: warning: batch.window_until_s = %.0f s runs past the last job's end (%.0f s): the summary "
                 "counts the %.0f s after it as idle machine\n",
                 until, last_end, until - last_end);
}

BatchResult run(const Communicator& comm, const Prepared& p, const EngineConfig& engine) {
  if (comm.rank() == 0) model::tell_workload_notes(p.workload);
  BatchResult r = run_batch(comm, p.workload, p.params, engine);
  if (comm.rank() == 0) warn_if_window_outlasts_jobs(r, p.params);
  return r;
}

model::RunOutput output(const BatchResult& r, const Prepared& prepared) {
  const workload::Workload& w = prepared.workload;
  const BatchParams& p = prepared.params;
  model::RunOutput out;
  out.summary = batch_summary(r, p);
  // Jobs the reader already refused as larger than the machine are rejections too: the summary
  // counts them with the scheduler's own, and says how many they were.
  const auto too_large = w.tally.dropped.find("more processors than MaxProcs");
  const std::int64_t rejected_at_read = too_large == w.tally.dropped.end() ? 0 : too_large->second;
  out.summary["rejected_at_read"] = rejected_at_read;
  out.summary["rejected"] = std::get<std::int64_t>(out.summary.at("rejected")) + rejected_at_read;
  out.run_attributes = model::workload_attributes(w);
  out.run_attributes["machine.nodes"] = static_cast<std::int64_t>(p.nodes);
  out.run_attributes["machine.cores_per_node"] = static_cast<std::int64_t>(p.cores_per_node);
  out.run_attributes["machine.resources"] = to_string(p.resources);
  out.run_attributes["machine.unit"] = std::string(p.counts_processors() ? "processor" : "node");
  out.run_attributes["machine.units"] = static_cast<std::int64_t>(p.machine_units());  // capacity in that unit
  out.run_attributes["machine.groups"] = static_cast<std::int64_t>(std::max<std::size_t>(1, p.groups.size()));
  out.measured = pass_cost_summary(r.pass_costs);
  out.tables.push_back(model::table_of(job_table_schema(), r.jobs));
  out.tables.push_back(model::table_of(allocation_table_schema(), r.allocations));
  out.tables.push_back(model::table_of(series_table_schema(), r.series));
  out.tables.push_back(model::table_of(pass_table_schema(), r.pass_costs));
  out.tables.push_back(model::table_of(user_table_schema(), user_aggregates(r.jobs)));
  return out;
}

}  // namespace

const ParamTable<BatchParams>& param_table() {
  using P = BatchParams;
  static const ParamTable<P> table =
      ParamTable<P>("batch")
          .include(&P::machine, machine_params())
          .integer("nodes", &P::nodes,
                   "machine nodes (0 = the preset's, else MaxNodes of the trace); with a preset's node count its "
                   "resource groups apply; counting processors, the pool is nodes x cores per node "
                   "(machine.cores_per_node)",
                   {.min = 0, .max = kMaxBatchNodes})
          .choice("policy", &P::policy, batch_policy_names(), "scheduling policy (policy/batch/registry.hpp)")
          .number("wrsa_beta", &P::wrsa_beta,
                  "WRSA scores (read by the WRSA policies): WRSA <- beta x WRSA + (1 - beta) x WRA at each job end",
                  {.min = 0, .max = 1})
          .seconds("window_from_s", &P::window_from,
                   "summary window start, seconds (utilisation, jobs started); 0 = first submission", {.min = 0})
          .seconds("window_until_s", &P::window_until, "summary window end, seconds; 0 = last job end", {.min = 0})
          .seconds("compare_from_s", &P::compare_from,
                   "the comparison with the logged waits covers the jobs submitted from this time on, seconds since "
                   "the trace's start (a configuration fitted on the jobs before it is judged on those after)",
                   {.min = 0})
          .integer("queue_depth", &P::queue_depth, "queued jobs one pass considers (0 = all)")
          .seconds("tick_s", &P::tick,
                   "passes only at multiples of this, seconds (0 = after every instant with an arrival or end)",
                   {.min = 0})
          .flag("kill_at_walltime", &P::kill_at_walltime, "jobs end at their requested walltime at the latest")
          .seconds("walltime_grace_s", &P::walltime_grace,
                   "with kill_at_walltime: a job is killed this long after its walltime, seconds (Slurm's "
                   "OverTimeLimit)",
                   {.min = 0})
          .text("partitions", &P::partitions,
                "the machine as separate pools by the trace's partition (SWF field 16): NAME:SIZE:P+P+...,... with "
                "SIZE in the scheduler's units (they must add up to the machine) and * for every unlisted "
                "partition; each pool has its own queue, scheduler and limits; a job of a partition no pool takes "
                "is rejected (empty = one pool)")
          .integer("block_nodes", &P::block_nodes, "nodes per node-block LP", {.min = 1})
          .include(&P::policy_settings, policy_keys(), &PolicySettings::read)
          .include(&P::priority, priority_params())
          .include(&P::limits, limit_params());
  return table;
}

// The keys a run leaves unread: the other policies' keys, and the multifactor priority's settings
// under arrival order.
bool unused_by_run(const Config& c, const std::string& key) {
  if (key != "batch.priority" && find_config_key(priority_params().schema(), key) != nullptr)
    return c.get_string("batch.priority") != "multifactor";
  if (find_config_key(policy_keys(), key) == nullptr) return false;
  const BatchPolicyInfo& policy = find_batch_policy(c.get_string("batch.policy"));
  return policy.keys == nullptr || find_config_key(*policy.keys, key) == nullptr;
}

const model::ModelInfo& batch_model() {
  static const model::ModelInfo info = [] {
    model::ModelInfo m = model::make_model<Prepared, BatchResult>(
        "batch", "rigid jobs on a space-shared machine (docs/studies.md#batch); workload from workload.*, keys batch.*",
        {&job_table_schema(), &allocation_table_schema(), &series_table_schema(), &pass_table_schema(),
         &user_table_schema()},
        model::keys_of(param_table(), kmix_params(), kmix_group_params()),
        {{"kcomputer", "kmix", "the K computer job mix", generate_kcomputer}}, {prepare, run, output});
    m.declares_lookahead = false;  // its LPs send each other events without delay
    m.unused_by = unused_by_run;
    m.headline = {"jobs", "utilisation", "mean_wait_s", "median_wait_s", "mean_bounded_slowdown", "makespan_s"};
    return m;
  }();
  return info;
}

}  // namespace tracewarp::batch
