#include "tracewarp/model/batch/batch_model.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <variant>

#include "../common/gather_rows.hpp"
#include "../common/submission_source.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/simulation.hpp"

namespace tracewarp::batch {
namespace {

// Event kinds: their numbers order what happens within one instant (see the header).
enum Kind : EventKind {
  kJobEnd = 1,
  kSourceTick = 2,
  kArrival = 3,
  kPass = 5,
  kStart = 6,
  kSample = 8,
};
enum Record : RecordTag { kJobRecord = 1, kSeriesRecord = 2, kPassRecord = 3 };

struct StartMsg {
  std::uint64_t index;
  Time run;                   // executed run time
  std::uint32_t nodes;        // nodes of the job in this block
  std::uint32_t padding = 0;  // explicit: payloads are compared bytewise (rollback check)
};
struct EndMsg {
  std::uint64_t index;
};
struct PassRow {
  std::uint32_t queued;
  std::uint32_t started;
  std::uint32_t running;
  std::uint32_t padding = 0;  // explicit: rows are compared bytewise (rollback check)
  std::uint64_t broken_reservations;
};

// One resource group's part of the run.
struct GroupPart {
  ResourceGroup group;
  std::uint32_t first_node;         // of the group on the machine's node line
  std::vector<std::uint64_t> jobs;  // workload indices routed here, in submit order
  LpId scheduler = 0;
  std::int32_t series_group = 0;  // group column of its series rows
};

// What the LPs of one run share, read-only during the run.
struct Shared {
  const io::Workload* workload;
  BatchParams params;
  std::vector<GroupPart> groups;
  LpId first_block;
  std::uint32_t blocks;
};

struct BlockBusy {
  std::uint64_t block;
  double node_seconds;
};

// Committed output of one rank, written from commit handlers only (outside LP state).
struct Collector {
  std::vector<JobRow> jobs;
  std::vector<SeriesRow> series;
  std::vector<PassCostRow> pass_costs;
  // Wall-clock cost of each pass's latest execution, by (group, time); taken when it commits.
  std::map<std::pair<std::int32_t, Time>, double> pass_wall_us;
  std::uint64_t passes = 0;
  std::uint64_t broken_reservations = 0;
  std::vector<BlockBusy> busy;  // per node block, combined in block order for every rank count
};

AnyBatchPolicy make_policy(const BatchParams& params) {
  const BatchPolicyInfo& info = find_batch_policy(params.policy);
  if (info.contiguous_only && params.allocation != Allocation::contiguous)
    throw ConfigError("batch.policy = \"" + info.name +
                      "\" plans contiguous ranges: set batch.allocation = \"contiguous\"");
  return info.make(params.policy_settings);
}

class SchedulerLp {
 public:
  SchedulerLp(const Shared* shared, Collector* out, std::size_t group)
      : shared_(shared),
        out_(out),
        group_(group),
        wrsa_(shared->params.policy_settings.wrsa()),
        pool_(shared->groups[group].group.nodes),
        policy_(make_policy(shared->params)) {}

  void on_init(EventContext& ctx) { ctx.send(ctx.self(), 0, kSample); }

  void on_event(const Event& ev, EventContext& ctx) {
    switch (ev.kind()) {
      case kArrival:
        arrive(ev.as<model::SubmissionMsg>().index, ctx);
        break;
      case kJobEnd:
        end(ev.as<EndMsg>().index, ctx);
        break;
      case kPass:
        pass(ctx);
        break;
      case kSample:
        sample(ctx);
        break;
      default:
        throw InvariantError("batch scheduler: unexpected event kind " + std::to_string(ev.kind()));
    }
  }

  void on_commit(const Event& ev, CommitContext& ctx) const {
    ctx.for_each_record([&](const CommitContext::Record& r) {
      if (r.tag == kJobRecord) out_->jobs.push_back(r.as<JobRow>());
      if (r.tag == kSeriesRecord) out_->series.push_back(r.as<SeriesRow>());
      if (r.tag == kPassRecord) {
        const PassRow p = r.as<PassRow>();
        ++out_->passes;
        out_->broken_reservations += p.broken_reservations;
        const auto wall = out_->pass_wall_us.find({part().series_group, ev.time()});
        out_->pass_costs.push_back({to_seconds(ev.time()), p.queued, p.started, p.running, part().series_group,
                                    wall != out_->pass_wall_us.end() ? wall->second : -1.0});
        if (wall != out_->pass_wall_us.end()) out_->pass_wall_us.erase(wall);
      }
    });
  }
  bool operator==(const SchedulerLp&) const = default;

 private:
  struct Running {
    Time start;
    Time t0;
    std::vector<NodeRange> ranges;
    bool operator==(const Running&) const = default;
  };

  const GroupPart& part() const { return shared_->groups[group_]; }
  const io::Job& job(std::uint64_t index) const { return shared_->workload->jobs[index]; }
  Time executed(const io::Job& j) const {
    return shared_->params.kill_at_walltime && j.requested > 0 ? std::min(j.run, j.requested) : j.run;
  }

  void arrive(std::uint64_t index, EventContext& ctx) {
    ++arrived_;
    const io::Job& j = job(index);
    const Time requested = j.requested > 0 ? j.requested : j.run;
    const Time longest = std::visit([](const auto& p) { return p.longest_plannable(); }, policy_);
    if (j.nodes < part().group.min_job_nodes || j.nodes > part().group.max_job_nodes || requested > longest) {
      JobRow row = make_row(index, -1, -1, ctx.now(), JobStatus::rejected, 0);
      ctx.emit(kJobRecord, row);
      ++done_;
      return;
    }
    const double score = wrsa_.score(j.user);
    queue_.push_back({index, j.nodes, requested, j.submit, j.user, score});
    wrsa_at_submit_[index] = score;
    queued_sizes_.insert(j.nodes);
    request_pass(ctx);
  }

  void end(std::uint64_t index, EventContext& ctx) {
    const auto it = running_.find(index);
    if (it == running_.end()) {  // a model error: the end is scheduled only by start()
      ctx.fault("batch scheduler: end of job " + std::to_string(index) + ", which is not running");
      return;
    }
    pool_.release(it->second.ranges);
    const io::Job& j = job(index);
    const JobStatus status = shared_->params.kill_at_walltime && j.requested > 0 && j.run > j.requested
                                 ? JobStatus::killed
                                 : JobStatus::completed;
    wrsa_.on_completion(j.user, ctx.now() - it->second.start, j.requested, status == JobStatus::killed);
    scores_changed_ = true;
    ctx.emit(kJobRecord, make_row(index, it->second.t0, it->second.start, ctx.now(), status,
                                  part().first_node + it->second.ranges.front().first));
    wrsa_at_submit_.erase(index);
    const RunningJob key{index, 0, 0, it->second.start + queue_requested(index), 0};
    by_requested_end_.erase(
        std::lower_bound(by_requested_end_.begin(), by_requested_end_.end(), key, ByRequestedEnd{}));
    running_.erase(it);
    ++done_;
    ended_since_pass_ = true;
    request_pass(ctx);
  }

  // One pass after everything of this instant (or at the next tick): kinds order it last.
  void request_pass(EventContext& ctx) {
    const Time tick = shared_->params.tick;
    const Time at = tick > 0 ? (ctx.now() + tick - 1) / tick * tick : ctx.now();
    if (pass_at_ == at) return;
    pass_at_ = at;
    ctx.send(ctx.self(), at - ctx.now(), kPass);
  }

  void pass(EventContext& ctx) {
    const auto clock_start = std::chrono::steady_clock::now();
    // Sorted by requested end, as the profile likes them.
    const std::span<const RunningJob> running = by_requested_end_;
    const bool reads_wrsa = std::visit([](const auto& p) { return p.reads_wrsa(); }, policy_);
    if (reads_wrsa && scores_changed_) {  // scores move only when jobs end
      for (QueuedJob& q : queued()) q.wrsa = wrsa_.score(q.user);
      scores_changed_ = false;
    }
    const std::uint32_t smallest = queued_sizes_.empty() ? 0 : *queued_sizes_.begin();
    // Jobs the previous pass settled: valid only if nothing but arrivals happened since.
    const bool overrun = !running.empty() && running.front().requested_end < ctx.now();
    const std::size_t settled = ended_since_pass_ || overrun ? 0 : settled_;
    const SchedulingInput in{ctx.now(), queued(), running, pool_.total(), pool_.free(), shared_->params.queue_depth,
                             smallest,  settled};
    const std::uint32_t queued_before = static_cast<std::uint32_t>(queued().size());
    const PassDecision d = std::visit([&](auto& p) { return p.pass(in); }, policy_);
    for (const Reservation& r : d.reservations) t0_.emplace(r.id, r.start);  // the first plan is T0
    if (!d.first_nodes.empty() && d.first_nodes.size() != d.start_now.size())
      throw InvariantError("batch scheduler: policy placed some but not all started jobs");
    std::vector<std::uint64_t> started;
    for (std::size_t i = 0; i < d.start_now.size(); ++i) {
      const std::optional<std::uint32_t> placed =
          d.first_nodes.empty() ? std::nullopt : std::optional<std::uint32_t>(d.first_nodes[i]);
      if (start(d.start_now[i], placed, ctx)) started.push_back(d.start_now[i]);
    }
    remove_started(started);
    // What the next pass may take as settled (SchedulingInput::settled): the jobs this one
    // considered and did not start — unless a start failed (its nodes were not to be had).
    const std::size_t considered = shared_->params.queue_depth == 0
                                       ? queued_before
                                       : std::min<std::size_t>(shared_->params.queue_depth, queued_before);
    settled_ = started.size() == d.start_now.size() ? considered - started.size() : 0;
    ended_since_pass_ = false;
    ctx.emit(kPassRecord, PassRow{queued_before, static_cast<std::uint32_t>(started.size()),
                                  static_cast<std::uint32_t>(running.size()), 0, d.broken_reservations});
    out_->pass_wall_us[{part().series_group, ctx.now()}] =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - clock_start).count();
  }

  // Takes the started jobs out of the queue. The queue is in workload-index order (arrivals come
  // in that order), so each is found by binary search; the queue's storage has a movable front,
  // so FCFS starts cost nothing and other removals move the shorter side of the queue.
  void remove_started(std::vector<std::uint64_t>& started) {
    std::sort(started.begin(), started.end());
    std::vector<std::size_t> positions;
    positions.reserve(started.size());
    for (const std::uint64_t id : started) {
      const auto it = std::lower_bound(queue_.begin() + static_cast<std::ptrdiff_t>(front_), queue_.end(), id,
                                       [](const QueuedJob& q, std::uint64_t v) { return q.id < v; });
      if (it == queue_.end() || it->id != id)
        throw InvariantError("batch scheduler: started job " + std::to_string(id) + " is not queued");
      positions.push_back(static_cast<std::size_t>(it - queue_.begin()));
    }
    // In ascending order, each hole is closed from the shorter side: the jobs before it move one
    // place back (and the front one on), or the jobs after it one place forward. Only the latter
    // moves the positions still to come.
    std::size_t shifted_forward = 0;
    for (const std::size_t original : positions) {
      const std::size_t p = original - shifted_forward;
      const auto hole = queue_.begin() + static_cast<std::ptrdiff_t>(p);
      if (p - front_ <= queue_.size() - p) {
        std::move_backward(queue_.begin() + static_cast<std::ptrdiff_t>(front_), hole, hole + 1);
        ++front_;
      } else {
        queue_.erase(hole);
        ++shifted_forward;
      }
    }
    if (front_ > 1024 && 2 * front_ > queue_.size()) {  // compact now and then: amortised O(1)
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(front_));
      front_ = 0;
    }
  }

  Time queue_requested(std::uint64_t index) const {
    const io::Job& j = job(index);
    return j.requested > 0 ? j.requested : j.run;
  }

  // Starts a queued job on the policy's placement or, without one, by the allocation rule; false
  // if its nodes cannot be had (contiguous allocation on a fragmented machine), in which case it
  // stays queued.
  bool start(std::uint64_t index, std::optional<std::uint32_t> first_node, EventContext& ctx) {
    const io::Job& j = job(index);
    std::vector<NodeRange> ranges;
    if (!first_node)
      ranges = pool_.allocate(j.nodes, shared_->params.allocation);
    else if (pool_.allocate_at(*first_node, j.nodes))
      ranges.push_back({*first_node, j.nodes});
    else  // the plan placed it on nodes in use: a policy error
      throw InvariantError("batch scheduler: job " + std::to_string(j.id) + " placed on busy nodes from " +
                           std::to_string(*first_node));
    if (ranges.empty()) return false;
    const auto planned = t0_.find(index);
    if (planned == t0_.end()) throw InvariantError("batch scheduler: policy started a job it never planned");
    running_[index] = {ctx.now(), planned->second, ranges};
    const RunningJob entry{index, j.nodes, ctx.now(), ctx.now() + queue_requested(index), ranges.front().first};
    by_requested_end_.insert(
        std::upper_bound(by_requested_end_.begin(), by_requested_end_.end(), entry, ByRequestedEnd{}), entry);
    t0_.erase(planned);
    queued_sizes_.erase(queued_sizes_.find(j.nodes));
    // The scheduler ends the job itself; the node blocks learn their share for their accounting.
    const Time run = executed(j);
    ctx.send(ctx.self(), run, kJobEnd, EndMsg{index});
    const std::uint32_t per_block = shared_->params.block_nodes;
    std::map<std::uint32_t, std::uint32_t> share;  // block -> nodes
    for (NodeRange r : ranges)
      for (std::uint32_t n = r.first += part().first_node; n < r.first + r.count;) {
        const std::uint32_t block = n / per_block;
        const std::uint32_t upto = std::min(r.first + r.count, (block + 1) * per_block);
        share[block] += upto - n;
        n = upto;
      }
    for (const auto& [block, nodes] : share)
      ctx.send(shared_->first_block + block, 0, kStart, StartMsg{index, run, nodes});
    return true;
  }

  void sample(EventContext& ctx) {
    const SeriesRow row{to_seconds(ctx.now()), pool_.total() - pool_.free(),
                        static_cast<std::uint32_t>(running_.size()), static_cast<std::uint32_t>(queued().size()),
                        part().series_group};
    ctx.emit(kSeriesRecord, row);
    if (done_ < part().jobs.size()) ctx.send(ctx.self(), shared_->params.sample_interval, kSample);
  }

  JobRow make_row(std::uint64_t index, Time t0, Time start, Time end, JobStatus status,
                  std::uint32_t first_node) const {
    const io::Job& j = job(index);
    JobRow row{};
    row.id = j.id;
    row.index = index;
    row.user = j.user;
    row.status = static_cast<std::int16_t>(status);
    row.group = static_cast<std::int16_t>(group_);
    row.nodes = j.nodes;
    row.first_node = first_node;
    row.submit_s = to_seconds(j.submit);
    row.t0_s = t0 >= 0 ? to_seconds(t0) : -1;
    row.requested_s = j.requested > 0 ? to_seconds(j.requested) : -1;
    const auto at_submit = wrsa_at_submit_.find(index);
    row.wrsa_at_submit = at_submit != wrsa_at_submit_.end() ? at_submit->second : wrsa_.score(j.user);
    if (status == JobStatus::rejected) {
      row.start_s = row.end_s = -1;
      return row;
    }
    row.start_s = to_seconds(start);
    row.end_s = to_seconds(end);
    row.run_s = to_seconds(end - start);
    row.wait_s = to_seconds(start - j.submit);
    row.bounded_slowdown = std::max(1.0, (row.wait_s + row.run_s) / std::max(row.run_s, 10.0));
    row.delay_s = t0 >= 0 ? std::max(0.0, to_seconds(start - t0)) : 0.0;
    return row;
  }

  const Shared* shared_;
  Collector* out_;
  std::size_t group_;
  std::span<QueuedJob> queued() { return std::span<QueuedJob>(queue_).subspan(front_); }
  std::span<const QueuedJob> queued() const { return std::span<const QueuedJob>(queue_).subspan(front_); }

  std::vector<QueuedJob> queue_;  // from front_ on: arrival order = submit time, then workload index
  std::size_t front_ = 0;         // jobs before it have started (removed lazily)
  std::size_t settled_ = 0;       // see SchedulingInput::settled
  bool ended_since_pass_ = false;
  std::multiset<std::uint32_t> queued_sizes_;  // node counts of the queued jobs
  std::map<std::uint64_t, Time> t0_;           // first planned start of queued jobs that have one
  std::map<std::uint64_t, Running> running_;
  struct ByRequestedEnd {
    bool operator()(const RunningJob& a, const RunningJob& b) const {
      return a.requested_end < b.requested_end || (a.requested_end == b.requested_end && a.id < b.id);
    }
  };
  // Running jobs as policies see them, sorted (a vector: passes read it far more often than
  // starts and ends change it).
  std::vector<RunningJob> by_requested_end_;
  WrsaScores wrsa_;                                 // users' walltime-request accuracy
  bool scores_changed_ = false;                     // since the queued jobs' scores were last refreshed
  std::map<std::uint64_t, double> wrsa_at_submit_;  // queued and running jobs' user score at submission
  NodePool pool_;
  AnyBatchPolicy policy_;
  Time pass_at_ = -1;
  std::uint64_t arrived_ = 0;
  std::uint64_t done_ = 0;  // ended or rejected
};

class NodeBlockLp {
 public:
  NodeBlockLp(const Shared* shared, Collector* out) : shared_(shared), out_(out) {}

  void on_event(const Event& ev, EventContext&) {
    if (ev.kind() != kStart) throw InvariantError("node block: unexpected event kind " + std::to_string(ev.kind()));
    const StartMsg m = ev.as<StartMsg>();
    busy_node_seconds_ += static_cast<double>(m.nodes) * to_seconds(m.run);
  }
  void on_finish(FinishContext& ctx) const {
    out_->busy.push_back({ctx.self() - shared_->first_block, busy_node_seconds_});
  }
  bool operator==(const NodeBlockLp&) const = default;

 private:
  const Shared* shared_;
  Collector* out_;
  double busy_node_seconds_ = 0;
};

using model::gather_rows;

}  // namespace

const io::TableSchema& job_table_schema() {
  static const io::TableSchema schema{
      "jobs",
      sizeof(JobRow),
      {TRACEWARP_COLUMN(JobRow, id, "", "job number in the trace"),
       TRACEWARP_COLUMN(JobRow, index, "", "position in the (transformed) workload; unique"),
       TRACEWARP_COLUMN(JobRow, user, "", "user id (-1 unknown)"),
       TRACEWARP_COLUMN(JobRow, status, "",
                        "0 completed, 1 killed at walltime, 2 rejected (no group takes its size, or longer than the "
                        "policy can plan)"),
       TRACEWARP_COLUMN(JobRow, nodes, "nodes", "nodes used"),
       TRACEWARP_COLUMN(JobRow, first_node, "", "first node of the allocation"),
       TRACEWARP_COLUMN(JobRow, submit_s, "s", "submission"),
       TRACEWARP_COLUMN(JobRow, t0_s, "s", "first reservation (planned start, T0); -1 if never planned"),
       TRACEWARP_COLUMN(JobRow, start_s, "s", "start (T1); -1 if rejected"),
       TRACEWARP_COLUMN(JobRow, end_s, "s", "end; -1 if rejected"),
       TRACEWARP_COLUMN(JobRow, requested_s, "s", "requested walltime; -1 unknown"),
       TRACEWARP_COLUMN(JobRow, run_s, "s", "executed run time (min(actual, requested) when killed at walltime)"),
       TRACEWARP_COLUMN(JobRow, wait_s, "s", "start - submit"),
       TRACEWARP_COLUMN(JobRow, bounded_slowdown, "", "max(1, (wait + run) / max(run, 10 s))"),
       TRACEWARP_COLUMN(JobRow, delay_s, "s", "max(0, T1 - T0)"),
       TRACEWARP_COLUMN(JobRow, wrsa_at_submit, "", "the user's WRSA score when the job was submitted")},
      "batch: one row per job, sorted by index"};
  return schema;
}

const io::TableSchema& series_table_schema() {
  static const io::TableSchema schema{
      "series",
      sizeof(SeriesRow),
      {TRACEWARP_COLUMN(SeriesRow, time_s, "s", "sample time"),
       TRACEWARP_COLUMN(SeriesRow, used_nodes, "nodes", "nodes running jobs"),
       TRACEWARP_COLUMN(SeriesRow, running, "jobs", "jobs running"),
       TRACEWARP_COLUMN(SeriesRow, queued, "jobs", "jobs queued"),
       TRACEWARP_COLUMN(SeriesRow, group, "", "resource group (0 = the whole machine)")},
      "batch: the machine every sample interval, after the instant's scheduling pass"};
  return schema;
}

const io::TableSchema& pass_table_schema() {
  static const io::TableSchema schema{
      "passes",
      sizeof(PassCostRow),
      {TRACEWARP_COLUMN(PassCostRow, time_s, "s", "pass time"),
       TRACEWARP_COLUMN(PassCostRow, queued, "jobs", "jobs queued when the pass began"),
       TRACEWARP_COLUMN(PassCostRow, started, "jobs", "jobs the pass started"),
       TRACEWARP_COLUMN(PassCostRow, running, "jobs", "jobs running when the pass began"),
       TRACEWARP_COLUMN(PassCostRow, group, "", "resource group (as in the series table)"),
       TRACEWARP_COLUMN(PassCostRow, wall_us, "us",
                        "wall-clock time of the pass (policy and job starts); not deterministic")},
      "batch: one row per committed scheduling pass, by time and group"};
  return schema;
}

const io::TableSchema& user_table_schema() {
  static const io::TableSchema schema{
      "users",
      sizeof(UserRow),
      {TRACEWARP_COLUMN(UserRow, user, "", "user id"),
       TRACEWARP_COLUMN(UserRow, jobs, "jobs", "jobs of the user that ran"),
       TRACEWARP_COLUMN(UserRow, mean_wait_s, "s", "mean wait"),
       TRACEWARP_COLUMN(UserRow, mean_delay_s, "s", "mean delay max(0, T1 - T0)"),
       TRACEWARP_COLUMN(UserRow, mean_bounded_slowdown, "", "mean bounded slowdown"),
       TRACEWARP_COLUMN(UserRow, mean_wrsa_at_submit, "", "mean WRSA score at the user's submissions")},
      "batch: per-user aggregates of users with at least 10 jobs that ran, by user"};
  return schema;
}

namespace {

// Routes every job to the first group whose job-size range holds it; a job no group takes goes
// to the last group whose range starts at or below it, which rejects it on arrival.
std::vector<GroupPart> route_jobs(const io::Workload& workload, const BatchParams& params) {
  std::vector<GroupPart> parts;
  std::uint32_t first = 0;
  const std::vector<ResourceGroup> groups = resolve_groups(params.nodes, params.groups);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    parts.push_back({groups[g], first, {}, 0, groups.size() > 1 ? static_cast<std::int32_t>(g + 1) : 0});
    first += groups[g].nodes;
  }
  for (std::uint64_t i = 0; i < workload.jobs.size(); ++i) {
    const std::uint32_t nodes = workload.jobs[i].nodes;
    std::size_t chosen = 0;
    for (std::size_t g = 0; g < parts.size(); ++g) {
      if (nodes >= parts[g].group.min_job_nodes) chosen = g;
      if (nodes >= parts[g].group.min_job_nodes && nodes <= parts[g].group.max_job_nodes) break;
    }
    parts[chosen].jobs.push_back(i);
  }
  return parts;
}

// With several groups, the whole machine's rows (group 0) are the sums of the groups' rows at
// each sample time; a group that has finished contributes nothing.
void add_machine_totals(std::vector<SeriesRow>& series) {
  std::map<double, SeriesRow> totals;
  for (const SeriesRow& r : series) {
    SeriesRow& t = totals.try_emplace(r.time_s, SeriesRow{r.time_s, 0, 0, 0, 0}).first->second;
    t.used_nodes += r.used_nodes;
    t.running += r.running;
    t.queued += r.queued;
  }
  for (const auto& [time, row] : totals) series.push_back(row);
}

}  // namespace

BatchResult run_batch(const Communicator& comm, const io::Workload& workload, const BatchParams& params,
                      EngineConfig engine) {
  if (params.nodes == 0) throw ConfigError("batch: the machine has no nodes (set batch.nodes)");
  if (params.block_nodes == 0) throw ConfigError("batch.block_nodes must be >= 1");
  if (params.sample_interval <= 0) throw ConfigError("the series interval must be > 0");
  for (std::size_t i = 1; i < workload.jobs.size(); ++i)
    if (workload.jobs[i].submit < workload.jobs[i - 1].submit) throw InvariantError("batch: workload not sorted");
  make_policy(params);  // a bad name or pattern fails before anything runs

  Shared shared{&workload, params, route_jobs(workload, params), 0,
                (params.nodes + params.block_nodes - 1) / params.block_nodes};
  const auto groups = static_cast<LpId>(shared.groups.size());
  Collector out;
  Simulation sim(comm, engine);
  // LP ids: group 0's source and scheduler, the node blocks, then the other groups' sources and
  // schedulers — so block placement (contiguous id ranges) puts the first and the last group's
  // schedulers on different ranks. Factories run when the simulation starts.
  const auto add_group = [&](std::size_t g) {
    GroupPart& part = shared.groups[g];
    sim.add_lps<model::SubmissionSource>({.name = "batch-source"}, 1, [&workload, &part](LpId) {
      return model::SubmissionSource(&workload, &part.jobs, &part.scheduler, kSourceTick, kArrival);
    });
    // The scheduler's state (queue, running jobs, policy plans) is large and it depends on no
    // remote input, so it is rarely if ever rolled back: copy it seldom.
    part.scheduler = sim.add_lps<SchedulerLp>({.name = "batch-scheduler", .checkpoint_interval = 4096}, 1,
                                              [&shared, &out, g](LpId) { return SchedulerLp(&shared, &out, g); })
                         .first;
  };
  add_group(0);
  shared.first_block = sim.add_lps<NodeBlockLp>({.name = "batch-node-block"}, shared.blocks,
                                                [&](LpId) { return NodeBlockLp(&shared, &out); })
                           .first;
  for (std::size_t g = 1; g < shared.groups.size(); ++g) add_group(g);

  BatchResult result;
  result.stats = sim.run();
  result.jobs = gather_rows(comm, out.jobs);
  result.series = gather_rows(comm, out.series);
  result.pass_costs = gather_rows(comm, out.pass_costs);
  if (groups > 1) add_machine_totals(result.series);
  std::sort(result.pass_costs.begin(), result.pass_costs.end(), [](const PassCostRow& a, const PassCostRow& b) {
    return a.time_s < b.time_s || (a.time_s == b.time_s && a.group < b.group);
  });
  std::sort(result.jobs.begin(), result.jobs.end(), [](const JobRow& a, const JobRow& b) { return a.index < b.index; });
  std::sort(result.series.begin(), result.series.end(), [](const SeriesRow& a, const SeriesRow& b) {
    return a.time_s < b.time_s || (a.time_s == b.time_s && a.group < b.group);
  });
  std::uint64_t counts[2] = {out.passes, out.broken_reservations};
  comm.sum(counts);
  result.passes = counts[0];
  result.broken_reservations = counts[1];
  std::vector<BlockBusy> busy = gather_rows(comm, out.busy);
  std::sort(busy.begin(), busy.end(), [](const BlockBusy& x, const BlockBusy& y) { return x.block < y.block; });
  for (const BlockBusy& b : busy) result.busy_node_seconds += b.node_seconds;
  return result;
}

io::Attributes batch_summary(const BatchResult& r, const BatchParams& params) {
  const std::vector<ResourceGroup> groups = resolve_groups(params.nodes, params.groups);
  std::uint64_t completed = 0, killed = 0, rejected = 0;
  double first_submit = 0, last_end = 0, wait = 0, node_wait = 0, ran_nodes = 0, slowdown = 0, delay = 0;
  double node_seconds = 0;
  bool any = false;
  std::vector<double> waits;
  for (const JobRow& j : r.jobs) {
    if (j.status == static_cast<std::int16_t>(JobStatus::rejected)) {
      ++rejected;
      continue;
    }
    (j.status == static_cast<std::int16_t>(JobStatus::killed) ? killed : completed) += 1;
    first_submit = any ? std::min(first_submit, j.submit_s) : j.submit_s;
    last_end = any ? std::max(last_end, j.end_s) : j.end_s;
    any = true;
    wait += j.wait_s;
    node_wait += j.wait_s * j.nodes;
    ran_nodes += j.nodes;
    slowdown += j.bounded_slowdown;
    delay += j.delay_s;
    node_seconds += j.nodes * j.run_s;
    waits.push_back(j.wait_s);
  }
  const double ran = static_cast<double>(completed + killed);
  const double makespan = last_end - first_submit;
  std::sort(waits.begin(), waits.end());
  const auto percentile = [&](double q) {
    return waits.empty()
               ? 0.0
               : waits[std::min(waits.size() - 1, static_cast<std::size_t>(q * static_cast<double>(waits.size())))];
  };
  // Utilisation and starts inside the stated window (default: first submit to last end).
  const double from = params.window_from > 0 ? to_seconds(params.window_from) : first_submit;
  const double until = params.window_until > 0 ? to_seconds(params.window_until) : last_end;
  std::vector<double> busy(groups.size(), 0.0);
  std::int64_t started_in_window = 0;
  for (const JobRow& j : r.jobs) {
    if (j.status == static_cast<std::int16_t>(JobStatus::rejected)) continue;
    busy[static_cast<std::size_t>(j.group)] +=
        j.nodes * std::max(0.0, std::min(j.end_s, until) - std::max(j.start_s, from));
    started_in_window += j.start_s >= from && j.start_s < until;
  }
  const double span = std::max(0.0, until - from);
  const auto utilisation = [&](double node_s, double nodes) { return span > 0 ? node_s / (nodes * span) : 0.0; };
  double all_busy = 0;
  for (const double b : busy) all_busy += b;
  io::Attributes out{{"jobs", static_cast<std::int64_t>(r.jobs.size())},
                     {"completed", static_cast<std::int64_t>(completed)},
                     {"killed", static_cast<std::int64_t>(killed)},
                     {"rejected", static_cast<std::int64_t>(rejected)},
                     {"makespan_s", makespan},
                     {"window_from_s", from},
                     {"window_until_s", until},
                     {"utilisation", utilisation(all_busy, params.nodes)},
                     {"started_in_window", started_in_window},
                     {"mean_wait_s", ran > 0 ? wait / ran : 0.0},
                     {"node_weighted_mean_wait_s", ran_nodes > 0 ? node_wait / ran_nodes : 0.0},
                     {"median_wait_s", percentile(0.5)},
                     {"p95_wait_s", percentile(0.95)},
                     {"mean_bounded_slowdown", ran > 0 ? slowdown / ran : 0.0},
                     {"mean_delay_s", ran > 0 ? delay / ran : 0.0},
                     {"busy_node_seconds", node_seconds},
                     {"passes", static_cast<std::int64_t>(r.passes)},
                     {"broken_reservations", static_cast<std::int64_t>(r.broken_reservations)}};
  if (groups.size() > 1)
    for (std::size_t g = 0; g < groups.size(); ++g)
      out["utilisation_" + groups[g].name] = utilisation(busy[g], groups[g].nodes);
  return out;
}

io::Attributes pass_cost_summary(const std::vector<PassCostRow>& passes) {
  std::vector<double> us;
  for (const PassCostRow& p : passes)
    if (p.wall_us >= 0) us.push_back(p.wall_us);
  if (us.empty()) return {};
  std::sort(us.begin(), us.end());
  double sum = 0;
  for (const double u : us) sum += u;
  const auto p99 = us[std::min(us.size() - 1, static_cast<std::size_t>(0.99 * static_cast<double>(us.size())))];
  return {{"pass_mean_us", sum / static_cast<double>(us.size())}, {"pass_p99_us", p99}, {"pass_max_us", us.back()}};
}

std::vector<UserRow> user_aggregates(const std::vector<JobRow>& jobs) {
  struct Sums {
    std::uint32_t jobs = 0;
    double wait = 0, delay = 0, slowdown = 0, wrsa = 0;
  };
  std::map<std::int32_t, Sums> users;
  for (const JobRow& j : jobs) {
    if (j.status == static_cast<std::int16_t>(JobStatus::rejected)) continue;
    Sums& s = users[j.user];
    ++s.jobs;
    s.wait += j.wait_s;
    s.delay += j.delay_s;
    s.slowdown += j.bounded_slowdown;
    s.wrsa += j.wrsa_at_submit;
  }
  std::vector<UserRow> rows;
  for (const auto& [user, s] : users) {
    if (s.jobs < 10) continue;
    const double n = s.jobs;
    rows.push_back({user, s.jobs, s.wait / n, s.delay / n, s.slowdown / n, s.wrsa / n});
  }
  return rows;
}

}  // namespace tracewarp::batch
