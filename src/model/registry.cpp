#include "tracewarp/model/registry.hpp"

#include <cstdio>
#include <cstring>
#include <optional>

#include "tracewarp/core/error.hpp"
#include "tracewarp/io/transforms.hpp"
#include "tracewarp/model/batch/batch_model.hpp"
#include "tracewarp/model/las/las_model.hpp"
#include "tracewarp/model/phold/phold.hpp"
#include "tracewarp/model/replication/replication_model.hpp"
#include "tracewarp/workload/kcomputer_mix.hpp"
#include "tracewarp/workload/las_mix.hpp"

namespace tracewarp::model {
namespace {

// PHOLD as an experiment: committed events per series interval, and the checksum.
struct PholdSeriesRow {
  double time_s;
  std::uint64_t committed;
};
const io::TableSchema kPholdSeries{
    "series",
    sizeof(PholdSeriesRow),
    {TRACEWARP_COLUMN(PholdSeriesRow, time_s, "s", "start of the interval"),
     TRACEWARP_COLUMN(PholdSeriesRow, committed, "events", "events committed with a time in the interval")},
    "PHOLD: committed events per output.series_interval_s"};

RunOutput run_phold(const Communicator& comm, const io::Config& c, const EngineConfig& engine) {
  phold::Params p;
  p.lps = static_cast<LpId>(c.get_int("phold.lps"));
  p.events_per_lp = static_cast<std::uint32_t>(c.get_int("phold.events_per_lp"));
  p.remote = c.get_number("phold.remote");
  p.mean = c.get_number("phold.mean");
  p.lookahead = c.get_number("phold.lookahead");
  p.end = c.get_number("phold.end");
  p.seed = static_cast<std::uint64_t>(c.get_int("experiment.seed"));
  p.series_interval = c.get_number("output.series_interval_s");
  const phold::Result r = phold::run(comm, p, engine);
  RunOutput out;
  out.stats = r.stats;
  char checksum[24];
  std::snprintf(checksum, sizeof checksum, "0x%016llx", static_cast<unsigned long long>(r.checksum));
  out.summary = {{"committed", static_cast<std::int64_t>(r.committed)}, {"checksum", std::string(checksum)}};
  if (comm.rank() == 0) {
    std::vector<PholdSeriesRow> rows;
    for (std::size_t i = 0; i < r.per_interval.size(); ++i)
      rows.push_back({static_cast<double>(i) * p.series_interval, r.per_interval[i]});
    out.tables.push_back(table_of(kPholdSeries, rows));
  }
  return out;
}

std::optional<batch::MachinePreset> configured_machine(const io::Config& c) {
  const std::string name = c.get_string("batch.machine");
  if (name.empty()) return std::nullopt;
  return batch::machine_preset(name);
}

// The K computer mix the kmix.* keys describe (workload/kcomputer_mix.hpp).
io::Workload generate_kcomputer(const io::Config& c) {
  const std::optional<batch::MachinePreset> machine = configured_machine(c);
  const std::string groups = c.get_string("kmix.groups");
  if (groups != "auto" && groups != "both" && groups != "large")
    throw ConfigError("kmix.groups must be auto, both or large, got '" + groups + "'");
  const bool small = groups == "both" || (groups == "auto" && (!machine || machine->mix_has_small_group));
  workload::KComputerMix mix;
  mix.days = c.get_number("kmix.days");
  mix.groups = workload::kcomputer_groups(small, c.get_number("kmix.load_small"), c.get_number("kmix.load_large"));
  mix.full_share = c.get_number("kmix.full_share");
  mix.min_ratio = c.get_number("kmix.min_ratio");
  if (c.get_int("kmix.users") < 1) throw ConfigError("kmix.users must be >= 1");
  mix.users = static_cast<std::uint32_t>(c.get_int("kmix.users"));
  mix.seed = static_cast<std::uint64_t>(c.get_int("experiment.seed"));
  return workload::generate_kcomputer_mix(mix);
}

// The batch study's model: workload from the workload.* keys, machine and policy from batch.*.
RunOutput run_batch_model(const Communicator& comm, const io::Config& c, const EngineConfig& engine) {
  const io::Workload w = configured_workload(c);
  const std::optional<batch::MachinePreset> machine = configured_machine(c);
  batch::BatchParams p;
  const std::int64_t nodes = c.get_int("batch.nodes") > 0 ? c.get_int("batch.nodes")
                             : machine                    ? machine->nodes
                                                          : w.max_nodes;
  if (nodes <= 0) throw ConfigError("batch.nodes is not set and the trace header gives no MaxNodes");
  p.nodes = static_cast<std::uint32_t>(nodes);
  if (machine && p.nodes == machine->nodes) p.groups = machine->groups;
  const std::string allocation = c.get_string("batch.allocation");
  p.allocation = !allocation.empty() ? batch::parse_allocation(allocation)
                 : machine           ? machine->allocation
                                     : batch::Allocation::any;
  p.policy = c.get_string("batch.policy");
  p.interval_pattern = c.get_string("batch.interval_pattern");
  if (c.get_number("batch.window_from_s") < 0 || c.get_number("batch.window_until_s") < 0)
    throw ConfigError("batch.window_from_s and batch.window_until_s must be >= 0");
  p.window_from = from_seconds(c.get_number("batch.window_from_s"));
  p.window_until = from_seconds(c.get_number("batch.window_until_s"));
  if (c.get_int("batch.queue_depth") < 0 || c.get_int("batch.block_nodes") < 1)
    throw ConfigError("batch.queue_depth must be >= 0 and batch.block_nodes >= 1");
  p.queue_depth = static_cast<std::size_t>(c.get_int("batch.queue_depth"));
  p.tick = c.get_number("batch.tick_s") > 0 ? from_seconds(c.get_number("batch.tick_s")) : 0;
  p.kill_at_walltime = c.get_bool("batch.kill_at_walltime");
  p.block_nodes = static_cast<std::uint32_t>(c.get_int("batch.block_nodes"));
  p.sample_interval = from_seconds(c.get_number("output.series_interval_s"));
  const batch::BatchResult r = batch::run_batch(comm, w, p, engine);
  RunOutput out;
  out.stats = r.stats;
  out.summary = batch::batch_summary(r, p);
  std::string transforms;
  for (const std::string& t : w.transforms) transforms += (transforms.empty() ? "" : "; ") + t;
  out.run_attributes = {{"workload.source", w.source},
                        {"workload.transforms", transforms},
                        {"workload.records", static_cast<std::int64_t>(w.tally.records)},
                        {"workload.dropped", static_cast<std::int64_t>(w.tally.dropped_total())},
                        {"workload.repaired", static_cast<std::int64_t>(w.tally.repaired_total())},
                        {"machine.nodes", static_cast<std::int64_t>(p.nodes)},
                        {"machine.groups", static_cast<std::int64_t>(std::max<std::size_t>(1, p.groups.size()))}};
  out.measured = batch::pass_cost_summary(r.pass_costs);
  if (comm.rank() == 0) {
    out.tables.push_back(table_of(batch::job_table_schema(), r.jobs));
    out.tables.push_back(table_of(batch::series_table_schema(), r.series));
    out.tables.push_back(table_of(batch::pass_table_schema(), r.pass_costs));
    out.tables.push_back(table_of(batch::user_table_schema(), batch::user_aggregates(r.jobs)));
  }
  return out;
}

// The LAS study's model: workload from workload.* (a Google/Alibaba trace or the las generator),
// machine and schedulers from las.*.
RunOutput run_las_model(const Communicator& comm, const io::Config& c, const EngineConfig& engine) {
  const io::Workload w = configured_workload(c);
  las::LasParams p;
  for (const char* key : {"las.nodes", "las.kairos_cap", "las.max_candidates"})
    if (c.get_int(key) < 1) throw ConfigError(std::string(key) + " must be >= 1");
  p.nodes = static_cast<std::uint32_t>(c.get_int("las.nodes"));
  p.capacity = {c.get_number("las.capacity_cpu"), c.get_number("las.capacity_memory")};
  if (!(p.capacity[0] > 0 && p.capacity[1] > 0))
    throw ConfigError("las.capacity_cpu and las.capacity_memory must be > 0");
  p.scheduler = c.get_string("las.scheduler");
  p.load_threshold = c.get_number("las.load_threshold");
  p.kairos_cap = static_cast<std::uint32_t>(c.get_int("las.kairos_cap"));
  if (c.get_number("las.min_run_s") < 0) throw ConfigError("las.min_run_s must be >= 0");
  p.min_run = from_seconds(c.get_number("las.min_run_s"));
  p.max_candidates = static_cast<std::size_t>(c.get_int("las.max_candidates"));
  p.interval = from_seconds(c.get_number("output.series_interval_s"));
  const las::LasResult r = las::run_las(comm, w, p, engine);
  RunOutput out;
  out.stats = r.stats;
  out.summary = las::las_summary(r);
  out.run_attributes = {{"workload.source", w.source},
                        {"workload.records", static_cast<std::int64_t>(w.tally.records)},
                        {"workload.repaired", static_cast<std::int64_t>(w.tally.repaired_total())}};
  if (comm.rank() == 0) {
    out.tables.push_back(table_of(las::task_table_schema(), r.tasks));
    out.tables.push_back(table_of(las::interval_table_schema(), r.intervals));
    out.tables.push_back(table_of(las::cdf_table_schema(), las::slowdown_cdf(r.tasks)));
  }
  return out;
}

// The LAS task mix the lasmix.* keys describe (workload/las_mix.hpp).
io::Workload generate_las(const io::Config& c) {
  workload::LasMix mix;
  mix.trace = c.get_string("lasmix.trace");
  if (c.get_int("lasmix.tasks") < 1) throw ConfigError("lasmix.tasks must be >= 1");
  mix.tasks = static_cast<std::uint64_t>(c.get_int("lasmix.tasks"));
  mix.nodes = static_cast<std::uint32_t>(std::max<std::int64_t>(1, c.get_int("las.nodes")));
  mix.load = c.get_number("lasmix.load");
  mix.mean_demand = c.get_number("lasmix.mean_demand");
  mix.mean_run_s = c.get_number("lasmix.mean_run_s");
  mix.seed = static_cast<std::uint64_t>(c.get_int("experiment.seed"));
  return workload::generate_las_mix(mix);
}

}  // namespace

const std::vector<ModelInfo>& models() {
  static const std::vector<ModelInfo> all = {
      {"phold",
       "the PHOLD engine benchmark (engine.md); keys phold.*",
       run_phold,
       {&kPholdSeries},
       {
           {"phold.lps", io::ConfigType::integer, std::int64_t{1024}, "LPs in total"},
           {"phold.events_per_lp", io::ConfigType::integer, std::int64_t{16}, "initial events per LP"},
           {"phold.remote", io::ConfigType::number, 0.1, "probability an event goes to a uniformly random LP"},
           {"phold.mean", io::ConfigType::number, 1.0, "mean time increment (time units = seconds)"},
           {"phold.lookahead", io::ConfigType::number, 0.1, "minimum time increment"},
           {"phold.end", io::ConfigType::number, 1000.0, "end time"},
       }},
      {"batch",
       "rigid jobs on a space-shared machine (batch.md); workload from workload.*, keys batch.*",
       run_batch_model,
       {&batch::job_table_schema(), &batch::series_table_schema(), &batch::pass_table_schema(),
        &batch::user_table_schema()},
       {
           {"batch.machine", io::ConfigType::string, std::string(""),
            "preset machine: kcomputer, kcomputer-768 or ricc (model/batch/machines.hpp); empty = none"},
           {"batch.nodes", io::ConfigType::integer, std::int64_t{0},
            "machine nodes (0 = the preset's, else MaxNodes of the trace); with a preset's node count its "
            "resource groups apply"},
           {"batch.allocation", io::ConfigType::string, std::string(""),
            "any (lowest-numbered free nodes) or contiguous (one range, lowest start); empty = the preset's, else any"},
           {"batch.policy", io::ConfigType::string, std::string("easy"),
            "fcfs, easy, conservative, interval, lwjf, wrsa-or or wrsa-ar (policy/batch/)"},
           {"batch.interval_pattern", io::ConfigType::string, std::string("A"),
            "policy interval: A, B, C or length:up_to pairs, e.g. 10m:1h,30m:12h,2h:24h,4h:36h,8h:60h"},
           {"batch.window_from_s", io::ConfigType::number, 0.0,
            "summary window start, seconds (utilisation, jobs started); 0 = first submission"},
           {"batch.window_until_s", io::ConfigType::number, 0.0, "summary window end, seconds; 0 = last job end"},
           {"batch.queue_depth", io::ConfigType::integer, std::int64_t{0}, "queued jobs one pass considers (0 = all)"},
           {"batch.tick_s", io::ConfigType::number, 0.0,
            "passes only at multiples of this, seconds (0 = after every instant with an arrival or end)"},
           {"batch.kill_at_walltime", io::ConfigType::boolean, true,
            "jobs end at their requested walltime at the latest"},
           {"batch.block_nodes", io::ConfigType::integer, std::int64_t{96}, "nodes per node-block LP"},
           {"kmix.days", io::ConfigType::number, 21.0, "K computer mix: days of submissions"},
           {"kmix.groups", io::ConfigType::string, std::string("auto"),
            "K computer mix: both, large, or auto (the machine preset's choice; both without one)"},
           {"kmix.load_large", io::ConfigType::number, 0.9, "K computer mix: offered load on the large group"},
           {"kmix.load_small", io::ConfigType::number, 0.9, "K computer mix: offered load on the small group"},
           {"kmix.full_share", io::ConfigType::number, 0.15,
            "K computer mix: share of jobs that run until their walltime"},
           {"kmix.min_ratio", io::ConfigType::number, 0.1,
            "K computer mix: smallest run/requested ratio of the other jobs (uniform up to 1)"},
           {"kmix.users", io::ConfigType::integer, std::int64_t{100}, "K computer mix: users (Zipf weights)"},
       }},
      {"las",
       "multi-resource LAS: central placement and per-node LAS with preemption (las.md); keys las.*",
       run_las_model,
       {&las::task_table_schema(), &las::interval_table_schema(), &las::cdf_table_schema()},
       {
           {"las.nodes", io::ConfigType::integer, std::int64_t{256}, "nodes"},
           {"las.capacity_cpu", io::ConfigType::number, 1.0, "CPU per node, in the workload's CPU units"},
           {"las.capacity_memory", io::ConfigType::number, 1.0, "memory per node, in the workload's memory units"},
           {"las.scheduler", io::ConfigType::string, std::string("proposed"),
            "proposed (similarity placement + candidate-set preemption) or kairos (fewest tasks + greedy)"},
           {"las.load_threshold", io::ConfigType::number, 1.5, "L: nodes at or above this load get no task"},
           {"las.kairos_cap", io::ConfigType::integer, std::int64_t{32}, "Q: Kairos' unfinished tasks per node"},
           {"las.min_run_s", io::ConfigType::number, 60.0,
            "W: seconds a task runs after a start or resume before it may be preempted"},
           {"las.max_candidates", io::ConfigType::integer, std::int64_t{4}, "N: preemption candidates per search"},
           {"lasmix.trace", io::ConfigType::string, std::string("google"),
            "LAS generator: google or alibaba statistics (workload/las_mix.hpp)"},
           {"lasmix.tasks", io::ConfigType::integer, std::int64_t{69524}, "LAS generator: tasks"},
           {"lasmix.load", io::ConfigType::number, 1.0, "LAS generator: offered load per resource (sqrt 2 together)"},
           {"lasmix.mean_demand", io::ConfigType::number, 0.05, "LAS generator: mean CPU and memory request, in nodes"},
           {"lasmix.mean_run_s", io::ConfigType::number, 0.0,
            "LAS generator: mean run time, seconds (0 = 300 for google, 100 for alibaba)"},
       }},
      replication::replication_model(),
  };
  return all;
}

const io::ConfigSchema& config_schema() {
  static const io::ConfigSchema all = [] {
    io::ConfigSchema keys = io::core_config_keys();
    for (const ModelInfo& m : models()) keys.insert(keys.end(), m.keys.begin(), m.keys.end());
    return keys;
  }();
  return all;
}

io::Workload configured_workload(const io::Config& c) {
  const std::string generator = c.get_string("workload.generator");
  if (generator.empty()) return io::load_configured_workload(c);
  if (generator == "las") {
    io::Workload w = generate_las(c);
    io::apply_transforms(w, io::configured_transforms(c));
    return w;
  }
  if (generator != "kcomputer") throw ConfigError("unknown workload.generator '" + generator + "' (kcomputer, las)");
  io::Workload w = generate_kcomputer(c);
  io::WorkloadTransforms t = io::configured_transforms(c);
  const std::optional<batch::MachinePreset> machine = configured_machine(c);
  if (machine && machine->scale_jobs_from > 0 && t.scale_nodes_to == 0) {
    t.scale_nodes_to = machine->nodes;
    t.machine_nodes = machine->scale_jobs_from;
  }
  io::apply_transforms(w, t);
  return w;
}

const ModelInfo& find_model(const std::string& name) {
  for (const ModelInfo& m : models())
    if (m.name == name) return m;
  std::string known;
  for (const ModelInfo& m : models()) known += (known.empty() ? "" : ", ") + m.name;
  throw ConfigError("unknown model '" + name + "' (experiment.model: " + known + ")");
}

EngineConfig engine_config(const io::Config& c) {
  EngineConfig e;
  e.sync = parse_sync_mode(c.get_string("engine.sync"));
  e.threads = static_cast<int>(c.get_int("engine.threads"));
  e.placement = parse_placement(c.get_string("engine.placement"));
  if (c.get_int("engine.gvt_interval") < 1 || c.get_int("engine.poll_interval") < 1)
    throw ConfigError("engine.gvt_interval and engine.poll_interval must be >= 1");
  e.gvt_interval = static_cast<std::uint64_t>(c.get_int("engine.gvt_interval"));
  e.poll_interval = static_cast<std::uint32_t>(c.get_int("engine.poll_interval"));
  e.optimism_window = c.get_number("engine.window_s") > 0 ? from_seconds(c.get_number("engine.window_s")) : 0;
  if (c.get_int("engine.memory_budget_mib") < 0) throw ConfigError("engine.memory_budget_mib must be >= 0");
  e.memory_budget_bytes = static_cast<std::uint64_t>(c.get_int("engine.memory_budget_mib")) << 20;
  return e;
}

}  // namespace tracewarp::model
