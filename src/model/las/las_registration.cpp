// The LAS model as an experiment (experiment.model = "las"): its keys, the LAS task generator,
// its tables and summary.
#include "tracewarp/config/settings.hpp"
#include "tracewarp/model/las/las_model.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/policy/las/registry.hpp"
#include "tracewarp/workload/las_mix.hpp"
#include "tracewarp/workload/transforms.hpp"

namespace tracewarp::las {
namespace {

struct NodeCapacity {
  double cpu = LasParams{}.capacity[0];
  double memory = LasParams{}.capacity[1];
};
const ParamTable<NodeCapacity>& capacity_params() {
  static const ParamTable<NodeCapacity> table =
      ParamTable<NodeCapacity>("las")
          .number("capacity_cpu", &NodeCapacity::cpu, "CPU per node, in the workload's CPU units", {.min = 1e-12})
          .number("capacity_memory", &NodeCapacity::memory, "memory per node, in the workload's memory units",
                  {.min = 1e-12});
  return table;
}

// The LAS task mix's keys (workload/las_mix.hpp has the assumptions).
const ParamTable<workload::LasMix>& lasmix_params() {
  using P = workload::LasMix;
  static const ParamTable<P> table =
      ParamTable<P>("lasmix")
          .choice("trace", &P::trace, {"google", "alibaba"}, "LAS generator: whose statistics (workload/las_mix.hpp)")
          .integer("tasks", &P::tasks, "LAS generator: tasks", {.min = 1})
          .number("load", &P::load,
                  "LAS generator: offered load per resource of its Poisson submit times (sqrt 2 together); read "
                  "only by the open loop (las.closed_loop_load = 0)",
                  {.min = 1e-9})
          .number("mean_demand", &P::mean_demand, "LAS generator: mean CPU and memory request, in nodes",
                  {.min = 1e-9, .max = 1})
          .number("mean_run_s", &P::mean_run_s,
                  "LAS generator: mean run time, seconds (0 = 300 for google, 100 for alibaba)", {.min = 0});
  return table;
}

workload::Workload generate_las(const Config& c) {
  workload::LasMix mix = lasmix_params().read(c);
  mix.nodes = param_table().read(c).nodes;
  mix.seed = model::run_context(c).seed;
  workload::Workload w = workload::generate_las_mix(mix);
  workload::apply_transforms(w, workload::transform_params().read(c));
  return w;
}

using Prepared = model::WithWorkload<LasParams>;

// The workload, the las.* keys and the run context, checked (every task fits a node).
Prepared prepare(const Config& c) {
  Prepared p{model::configured_workload(c), param_table().read(c)};
  const NodeCapacity capacity = capacity_params().read(c);
  p.params.capacity = {capacity.cpu, capacity.memory};
  p.params.context = model::run_context(c);
  validate(p.workload, p.params);
  return p;
}

LasResult run(const Communicator& comm, const Prepared& p, const EngineConfig& engine) {
  return run_las(comm, p.workload, p.params, engine);
}

model::RunOutput output(const LasResult& r, const Prepared& p) {
  model::RunOutput out;
  out.summary = las_summary(r);
  out.run_attributes = model::workload_attributes(p.workload);
  out.tables.push_back(model::table_of(task_table_schema(), r.tasks));
  out.tables.push_back(model::table_of(interval_table_schema(), r.intervals));
  out.tables.push_back(model::table_of(cdf_table_schema(), slowdown_cdf(r.tasks)));
  return out;
}

}  // namespace

const ParamTable<LasParams>& param_table() {
  using P = LasParams;
  static const ParamTable<P> table =
      ParamTable<P>("las")
          .integer("nodes", &P::nodes, "nodes", {.min = 1})
          .number("closed_loop_load", &P::closed_loop_load,
                  "closed-loop submission: the next task is released whenever nothing waits centrally and the "
                  "cluster load (mean node load) is below this; submit = release time (las_model.hpp). 0 = open "
                  "loop at the workload's submit times",
                  {.min = 0})
          .choice("scheduler", &P::scheduler, las_scheduler_names(), "scheduler (policy/las/registry.hpp)")
          .number("load_threshold", &P::load_threshold, "L: nodes at or above this load get no task", {.min = 0})
          .integer("kairos_cap", &P::kairos_cap, "Q: Kairos' unfinished tasks per node", {.min = 1})
          .seconds("min_run_s", &P::min_run,
                   "W: seconds a task runs after a start or resume before it may be preempted", {.min = 0})
          .integer("max_candidates", &P::max_candidates, "N: preemption candidates per search", {.min = 1})
          .seconds("kairos_quantum_s", &P::kairos_quantum,
                   "Kairos: every this many seconds while tasks are suspended a node lets its least-served "
                   "suspended task replace running tasks with at least this much more attained service (the "
                   "original's 1-s processor-sharing window); 0 = only on arrivals and completions",
                   {.min = 0});
  return table;
}

const model::ModelInfo& las_model() {
  static const model::ModelInfo info = [] {
    model::ModelInfo m = model::make_model<Prepared, LasResult>(
        "las",
        "multi-resource LAS: central placement and per-node LAS with preemption (docs/studies.md#las); keys las.*",
        {&task_table_schema(), &interval_table_schema(), &cdf_table_schema()},
        model::keys_of(param_table(), capacity_params(), lasmix_params()),
        {{"las", "lasmix", "the LAS task mix", generate_las}}, {prepare, run, output});
    m.declares_lookahead = false;  // its LPs send each other events without delay
    m.headline = {"tasks", "preemptions", "slowdown_p50", "slowdown_p99", "slowdown_p999", "mean_cpu_utilisation"};
    return m;
  }();
  return info;
}

}  // namespace tracewarp::las
