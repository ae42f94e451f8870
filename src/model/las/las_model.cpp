#include "tracewarp/model/las/las_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <variant>

#include "../common/gather_rows.hpp"
#include "../common/submission_source.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/simulation.hpp"
#include "tracewarp/policy/las/placement.hpp"
#include "tracewarp/policy/las/registry.hpp"

namespace tracewarp::las {
namespace {

// Event kinds: their numbers order what happens within one instant (see the header).
enum Kind : EventKind {
  kTaskEnd = 1,
  kSourceTick = 1,
  kArrival = 2,
  kReport = 3,
  kPass = 4,
  kDispatch = 5,
  kQuantum = 6  // node, to itself: Kairos's periodic re-evaluation
};
enum Record : RecordTag { kTaskRecord = 1, kNodeBucket = 2, kQueueBucket = 3 };

struct DispatchMsg {
  std::uint64_t index;
  Time submit;  // the workload's, or the release time of the closed loop
};
struct TaskEndMsg {
  std::uint64_t index;
  std::uint64_t token;  // the run it ends; stale after a preemption
};
struct ReportMsg {
  std::uint64_t index;
  std::uint64_t node;
};
struct BucketRow {  // time integrals over one bucket, value-seconds
  std::int64_t bucket;
  std::int64_t padding = 0;
  std::array<double, 4> integral;  // node: cpu, memory, running, suspended; central: queued, 0...
};

// Integrates piecewise-constant values over fixed buckets; each closed bucket becomes a record.
struct BucketIntegrator {
  Time last = 0;
  std::array<double, 4> value{};
  std::array<double, 4> sum{};
  bool operator==(const BucketIntegrator&) const = default;

  // Moves to `now` under the current values; `emit(bucket_row)` for each bucket closed on the way.
  template <class Emit>
  void advance(Time now, Time interval, Emit emit) {
    while (now / interval > last / interval) {
      const Time boundary = (last / interval + 1) * interval;
      add(boundary - last);
      emit(BucketRow{last / interval, 0, sum});
      sum = {};
      last = boundary;
    }
    add(now - last);
    last = now;
  }

 private:
  void add(Time dt) {
    for (std::size_t k = 0; k < value.size(); ++k) sum[k] += value[k] * to_seconds(dt);
  }
};

struct Shared {
  const workload::Workload* workload;
  LasParams params;
  LpId central = 0;
  LpId first_node = 0;
};

struct Collector {
  std::vector<TaskRow> tasks;
  std::map<std::int64_t, std::array<double, 5>> buckets;  // cpu, memory, running, suspended, queued
  std::uint64_t preemptions = 0;
  void add_node_bucket(const BucketRow& b) {
    auto& sums = buckets[b.bucket];
    for (std::size_t k = 0; k < 4; ++k) sums[k] += b.integral[k];
  }
  TRACEWARP_PERSIST(tasks, buckets, preemptions)
};

Amounts demand_of(const workload::Job& j) { return {j.cpus, j.memory}; }

using Placement = std::variant<SimilarityPlacement, KairosPlacement>;

class CentralLp {
 public:
  CentralLp(const Shared* shared, Collector* out)
      : shared_(shared),
        out_(out),
        nodes_(shared->params.nodes, NodeView{shared->params.capacity, {0, 0}, 0}),
        loads_(nodes_.size()),  // every node's load starts at 0
        placement_(find_las_scheduler(shared->params.scheduler).placement == PlacementRule::fewest_tasks
                       ? Placement(KairosPlacement(shared->params.kairos_cap))
                       : Placement(SimilarityPlacement(shared->params.load_threshold))) {}

  void on_init(EventContext& ctx) {
    if (!closed_loop()) return;
    pass_at_ = 0;
    ctx.send(ctx.self(), 0, kPass);  // the loop's first releases
  }
  void on_event(const Event& ev, EventContext& ctx) {
    queued_.advance(ctx.now(), shared_->params.context.series_interval,
                    [&](const BucketRow& b) { ctx.emit(kQueueBucket, b); });
    if (ev.kind() == kArrival) {
      const std::uint64_t index = ev.as<model::SubmissionMsg>().index;
      queue_.push_back({index, shared_->workload->jobs[index].submit});
    } else if (ev.kind() == kReport) {
      const ReportMsg m = ev.as<ReportMsg>();
      NodeView& n = nodes_.at(m.node);
      const Amounts d = demand_of(shared_->workload->jobs[m.index]);
      for (std::size_t r = 0; r < kResources; ++r) n.assigned[r] = std::max(0.0, n.assigned[r] - d[r]);
      loads_.set(m.node, load(n));
      if (n.unfinished == 0) ctx.fault("LAS central: completion reported by a node with no task");
      --n.unfinished;
    } else if (ev.kind() == kPass) {
      place(ctx);
      release(ctx);
    } else {
      throw InvariantError("LAS central: unexpected event kind " + std::to_string(ev.kind()));
    }
    if (ev.kind() != kPass && (!queue_.empty() || may_release()) && pass_at_ != ctx.now()) {
      pass_at_ = ctx.now();  // one pass per instant, after every arrival and report of it
      ctx.send(ctx.self(), 0, kPass);
    }
    queued_.value[0] = static_cast<double>(queue_.size());
  }
  void on_commit(const Event&, CommitContext& ctx) const {
    ctx.for_each_record([&](const CommitContext::Record& r) {
      if (r.tag == kQueueBucket) {
        const BucketRow b = r.as<BucketRow>();
        out_->buckets[b.bucket][4] += b.integral[0];
      }
    });
  }
  void on_finish(FinishContext&) const {
    out_->buckets[queued_.last / shared_->params.context.series_interval][4] += queued_.sum[0];
  }
  bool operator==(const CentralLp&) const = default;
  TRACEWARP_PERSIST(queue_, nodes_, loads_, placement_, queued_, pass_at_, next_release_)

 private:
  struct Waiting {
    std::uint64_t index;
    Time submit;
    bool operator==(const Waiting&) const = default;
  };

  bool closed_loop() const { return shared_->params.closed_loop_load > 0; }
  // The closed loop's rule (las_model.hpp): nothing waiting here, tasks left, load below the bound.
  bool may_release() const {
    return closed_loop() && queue_.empty() && next_release_ < shared_->workload->jobs.size() &&
           loads_.mean_below(shared_->params.closed_loop_load);
  }
  void release(EventContext& ctx) {
    while (may_release()) {
      queue_.push_back({next_release_++, ctx.now()});
      place(ctx);
    }
  }

  // FIFO: place the head while a node takes it; a head no node takes stops the queue.
  void place(EventContext& ctx) {
    while (!queue_.empty()) {
      const Waiting head = queue_.front();
      const Amounts d = demand_of(shared_->workload->jobs[head.index]);
      const std::optional<std::uint32_t> node =
          std::visit([&](const auto& p) { return p.place(d, nodes_, loads_.all()); }, placement_);
      if (!node) return;  // resumes when a completion arrives
      for (std::size_t r = 0; r < kResources; ++r) nodes_[*node].assigned[r] += d[r];
      ++nodes_[*node].unfinished;
      loads_.set(*node, load(nodes_[*node]));
      ctx.send(shared_->first_node + *node, 0, kDispatch, DispatchMsg{head.index, head.submit});
      queue_.pop_front();
    }
  }

  const Shared* shared_;
  Collector* out_;
  std::deque<Waiting> queue_;
  std::vector<NodeView> nodes_;
  NodeLoads loads_;  // load(nodes_[i]), kept as the nodes change
  Placement placement_;
  BucketIntegrator queued_;
  Time pass_at_ = -1;
  std::uint64_t next_release_ = 0;  // closed loop: the next workload task to release
};

class NodeLp {
 public:
  NodeLp(const Shared* shared, Collector* out, std::uint32_t node)
      : shared_(shared), out_(out), node_(node), scheduler_(shared->params.capacity, settings(shared->params)) {}

  void on_event(const Event& ev, EventContext& ctx) {
    usage_.advance(ctx.now(), shared_->params.context.series_interval,
                   [&](const BucketRow& b) { ctx.emit(kNodeBucket, b); });
    if (ev.kind() == kDispatch) {
      const DispatchMsg m = ev.as<DispatchMsg>();
      const std::uint64_t index = m.index;
      const workload::Job& j = shared_->workload->jobs[index];
      tasks_[index] = {m.submit, -1, 0};
      apply(scheduler_.dispatch({index, demand_of(j), j.run}, ctx.now()), ctx);
    } else if (ev.kind() == kTaskEnd) {
      const TaskEndMsg m = ev.as<TaskEndMsg>();
      const auto it = tasks_.find(m.index);
      if (it == tasks_.end() || it->second.token != m.token) return;  // ended run was preempted
      std::uint32_t preemptions = 0;
      const NodeChanges changes = scheduler_.complete(m.index, ctx.now(), &preemptions);
      ctx.emit(kTaskRecord, row(m.index, it->second, ctx.now(), preemptions));
      tasks_.erase(it);
      ctx.send(shared_->central, 0, kReport, ReportMsg{m.index, node_});
      apply(changes, ctx);
    } else if (ev.kind() == kQuantum) {
      quantum_due_ = false;
      apply(scheduler_.on_quantum(ctx.now()), ctx);
    } else {
      throw InvariantError("LAS node: unexpected event kind " + std::to_string(ev.kind()));
    }
    usage_.value = {scheduler_.used()[0], scheduler_.used()[1], static_cast<double>(scheduler_.running()),
                    static_cast<double>(scheduler_.suspended())};
    // A node with suspended tasks re-evaluates every quantum (Kairos), from the first suspension.
    if (scheduler_.quantum() > 0 && !quantum_due_ && scheduler_.suspended() > 0) {
      quantum_due_ = true;
      ctx.send(ctx.self(), scheduler_.quantum(), kQuantum);
    }
  }
  void on_commit(const Event&, CommitContext& ctx) const {
    ctx.for_each_record([&](const CommitContext::Record& r) {
      if (r.tag == kTaskRecord) {
        out_->tasks.push_back(r.as<TaskRow>());
        out_->preemptions += r.as<TaskRow>().preemptions;
      }
      if (r.tag == kNodeBucket) out_->add_node_bucket(r.as<BucketRow>());
    });
  }
  void on_finish(FinishContext&) const {
    out_->add_node_bucket(BucketRow{usage_.last / shared_->params.context.series_interval, 0, usage_.sum});
  }
  bool operator==(const NodeLp&) const = default;
  TRACEWARP_PERSIST(scheduler_, tasks_, usage_, quantum_due_)

 private:
  static NodeSchedulerSettings settings(const LasParams& p) {
    const LasSchedulerInfo& s = find_las_scheduler(p.scheduler);
    // The quantum is Kairos's node monitor: the greedy rule's.
    return {s.preemption, p.min_run, p.max_candidates, s.preemption == Preemption::greedy ? p.kairos_quantum : 0};
  }

  struct TaskState {
    Time submit;
    Time first_start;
    std::uint64_t token;
    bool operator==(const TaskState&) const = default;
  };

  // Every started task gets a fresh token and its end; a preempted one's token moves on, so the
  // end already scheduled for it is ignored.
  void apply(const NodeChanges& changes, EventContext& ctx) {
    for (const std::uint64_t id : changes.preempted) ++tasks_.at(id).token;
    for (const std::uint64_t id : changes.started) {
      TaskState& t = tasks_.at(id);
      if (t.first_start < 0) t.first_start = ctx.now();
      ++t.token;
      ctx.send(ctx.self(), scheduler_.finish_time(id) - ctx.now(), kTaskEnd, TaskEndMsg{id, t.token});
    }
  }

  TaskRow row(std::uint64_t index, const TaskState& task, Time end, std::uint32_t preemptions) const {
    const workload::Job& j = shared_->workload->jobs[index];
    TaskRow r{};
    r.id = j.id;
    r.index = index;
    r.submit_s = to_seconds(task.submit);
    r.first_start_s = to_seconds(task.first_start);
    r.end_s = to_seconds(end);
    r.run_s = to_seconds(j.run);
    r.cpu = j.cpus;
    r.memory = j.memory;
    r.node = node_;
    r.preemptions = preemptions;
    r.wait_s = r.end_s - r.submit_s - r.run_s;
    r.slowdown = 1 + r.wait_s / r.run_s;
    return r;
  }

  const Shared* shared_;
  Collector* out_;
  std::uint32_t node_;
  NodeScheduler scheduler_;
  std::map<std::uint64_t, TaskState> tasks_;  // tasks on this node, by workload index
  BucketIntegrator usage_;
  bool quantum_due_ = false;  // a kQuantum event is on its way
};

using model::gather_rows;

struct BucketSums {
  std::int64_t bucket;
  std::array<double, 5> sums;
};

}  // namespace

const TableSchema& task_table_schema() {
  static const TableSchema schema{
      "tasks",
      sizeof(TaskRow),
      {TRACEWARP_COLUMN(TaskRow, id, "", "task number in the trace"),
       TRACEWARP_COLUMN(TaskRow, index, "", "position in the workload; unique"),
       TRACEWARP_COLUMN(TaskRow, submit_s, "s",
                        "submission: release by the closed loop, or the workload's (open loop)"),
       TRACEWARP_COLUMN(TaskRow, first_start_s, "s", "first start on its node"),
       TRACEWARP_COLUMN(TaskRow, end_s, "s", "completion"),
       TRACEWARP_COLUMN(TaskRow, run_s, "s", "run time (service needed)"),
       TRACEWARP_COLUMN(TaskRow, cpu, "", "CPU demand, in the units of las.capacity_cpu"),
       TRACEWARP_COLUMN(TaskRow, memory, "", "memory demand, in the units of las.capacity_memory"),
       TRACEWARP_COLUMN(TaskRow, node, "", "node it ran on"),
       TRACEWARP_COLUMN(TaskRow, preemptions, "", "times it was suspended"),
       TRACEWARP_COLUMN(TaskRow, wait_s, "s", "end - submit - run"),
       TRACEWARP_COLUMN(TaskRow, slowdown, "", "1 + wait / run")},
      "las: one row per task, by index"};
  return schema;
}

const TableSchema& interval_table_schema() {
  static const TableSchema schema{
      "series",
      sizeof(IntervalRow),
      {TRACEWARP_COLUMN(IntervalRow, time_s, "s", "start of the interval"),
       TRACEWARP_COLUMN(IntervalRow, cpu_utilisation, "", "allocated CPU / capacity, time average"),
       TRACEWARP_COLUMN(IntervalRow, memory_utilisation, "", "allocated memory / capacity, time average"),
       TRACEWARP_COLUMN(IntervalRow, running, "tasks", "running tasks, time average"),
       TRACEWARP_COLUMN(IntervalRow, suspended, "tasks", "suspended tasks, time average"),
       TRACEWARP_COLUMN(IntervalRow, queued, "tasks", "tasks queued at the central scheduler, time average")},
      "las: time averages over each output.series_interval_s"};
  return schema;
}

const TableSchema& cdf_table_schema() {
  static const TableSchema schema{
      "slowdown_cdf",
      sizeof(CdfRow),
      {TRACEWARP_COLUMN(CdfRow, fraction, "", "fraction of tasks with at most this slowdown"),
       TRACEWARP_COLUMN(CdfRow, slowdown, "", "slowdown (1 + wait / run)")},
      "las: the slowdown CDF at 1,001 evenly spaced fractions (0 = the smallest, 1 = the largest)"};
  return schema;
}

std::vector<CdfRow> slowdown_cdf(const std::vector<TaskRow>& tasks) {
  std::vector<double> s;
  for (const TaskRow& t : tasks) s.push_back(t.slowdown);
  std::sort(s.begin(), s.end());
  std::vector<CdfRow> rows;
  if (s.empty()) return rows;
  for (int k = 0; k <= 1000; ++k) {
    const double fraction = k / 1000.0;
    rows.push_back({fraction, s[static_cast<std::size_t>(std::llround(fraction * static_cast<double>(s.size() - 1)))]});
  }
  return rows;
}

// Each key's own range and choices are checked where it is declared (param_table); this checks
// what they cannot say alone: that every task fits a node.
void validate(const workload::Workload& workload, const LasParams& params) {
  for (std::size_t i = 0; i < workload.jobs.size(); ++i) {
    const workload::Job& j = workload.jobs[i];
    if (i > 0 && j.submit < workload.jobs[i - 1].submit) throw InvariantError("las: workload not sorted");
    if (j.run <= 0 || j.cpus > params.capacity[0] || j.memory > params.capacity[1])
      throw ConfigError("las: task " + std::to_string(j.id) + " needs more than one node has (cpu " +
                        std::to_string(j.cpus) + ", memory " + std::to_string(j.memory) + ") or has no run time");
  }
}

LasResult run_las(const Communicator& comm, const workload::Workload& workload, const LasParams& params,
                  EngineConfig engine) {
  validate(workload, params);
  Shared shared{&workload, params};
  Collector out;
  Simulation sim(comm, engine);
  const std::vector<std::uint64_t> released_by_central;  // closed loop: the source sends nothing
  sim.add_lps<model::SubmissionSource>({.name = "las-source"}, 1, [&](LpId) {
    return model::SubmissionSource(&workload, params.closed_loop_load > 0 ? &released_by_central : nullptr,
                                   &shared.central, kSourceTick, kArrival);
  });
  shared.central = sim.add_lps<CentralLp>({.name = "las-central", .checkpoint_interval = 64}, 1,
                                          [&](LpId) { return CentralLp(&shared, &out); })
                       .first;
  shared.first_node =
      sim.add_lps<NodeLp>(
             {.name = "las-node"}, params.nodes,
             [&](LpId id) { return NodeLp(&shared, &out, static_cast<std::uint32_t>(id - shared.first_node)); })
          .first;
  sim.checkpoint_also(out);
  LasResult result;
  result.stats = sim.run();
  result.tasks = model::gather_sorted(comm, std::move(out.tasks),
                                      [](const TaskRow& a, const TaskRow& b) { return a.index < b.index; });
  std::vector<BucketSums> mine;
  for (const auto& [bucket, sums] : out.buckets) mine.push_back({bucket, sums});
  std::map<std::int64_t, std::array<double, 5>> all;
  for (const BucketSums& b : gather_rows(comm, mine))  // ranks in order: the same sums on any rank count
    for (std::size_t k = 0; k < 5; ++k) all[b.bucket][k] += b.sums[k];
  const double seconds = to_seconds(params.context.series_interval), nodes = params.nodes;
  for (const auto& [bucket, s] : all)
    result.intervals.push_back({static_cast<double>(bucket) * seconds, s[0] / (seconds * nodes * params.capacity[0]),
                                s[1] / (seconds * nodes * params.capacity[1]), s[2] / seconds, s[3] / seconds,
                                s[4] / seconds});
  std::uint64_t preemptions = out.preemptions;
  comm.sum(std::span<std::uint64_t>(&preemptions, 1));
  result.preemptions = preemptions;
  return result;
}

Attributes las_summary(const LasResult& r) {
  std::vector<double> slowdowns;
  for (const TaskRow& t : r.tasks) slowdowns.push_back(t.slowdown);
  std::sort(slowdowns.begin(), slowdowns.end());
  const auto percentile = [&](double q) {
    return slowdowns.empty() ? 0.0
                             : slowdowns[std::min(slowdowns.size() - 1,
                                                  static_cast<std::size_t>(q * static_cast<double>(slowdowns.size())))];
  };
  // Utilisation while tasks arrive (intervals that begin before the last submission): the
  // heavy tail's drain afterwards would otherwise dominate the mean.
  double last_submit = 0, last_end = 0;
  for (const TaskRow& t : r.tasks)
    last_submit = std::max(last_submit, t.submit_s), last_end = std::max(last_end, t.end_s);
  double cpu = 0, memory = 0, n = 0;
  for (const IntervalRow& i : r.intervals)
    if (i.time_s < last_submit || n == 0) cpu += i.cpu_utilisation, memory += i.memory_utilisation, n += 1;
  n = std::max(1.0, n);
  return {{"tasks", static_cast<std::int64_t>(r.tasks.size())},
          {"slowdown_p50", percentile(0.5)},
          {"slowdown_p90", percentile(0.9)},
          {"slowdown_p95", percentile(0.95)},
          {"slowdown_p99", percentile(0.99)},
          {"slowdown_p999", percentile(0.999)},
          {"preemptions", static_cast<std::int64_t>(r.preemptions)},
          {"preemptions_per_task", static_cast<double>(r.preemptions) / std::max<double>(1, r.tasks.size())},
          {"mean_cpu_utilisation", cpu / n},
          {"mean_memory_utilisation", memory / n},
          // The closed loop counts slowdowns from each task's release: a scheduler that admits
          // less releases the workload later, which its slowdowns do not show; these do.
          {"last_release_s", last_submit},
          {"makespan_s", last_end}};
}

}  // namespace tracewarp::las
