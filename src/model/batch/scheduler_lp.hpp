// One resource group's scheduler LP (internal to src/model/batch/): the queue (job_queue.hpp),
// running jobs, WRSA scores, the node pool and the policy; it starts jobs, ends them, runs one
// pass per instant (or tick) and samples the series.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "../common/submission_source.hpp"
#include "internal.hpp"
#include "tracewarp/core/double_ended_vector.hpp"
#include "tracewarp/model/batch/job_queue.hpp"
#include "tracewarp/policy/batch/limits.hpp"

namespace tracewarp::batch::detail {

class SchedulerLp {
 public:
  SchedulerLp(const Shared* shared, Collector* out, std::size_t group)
      : shared_(shared),
        out_(out),
        group_(group),
        queue_(shared->params.priority.by_arrival() ? JobQueue::Order::arrival : JobQueue::Order::priority),
        wrsa_(WrsaSettings{.beta = shared->params.wrsa_beta}),
        priorities_(shared->params.priority, shared->groups[group].group.nodes, shared->accounts),
        limits_(shared->params.limits),
        pool_(shared->groups[group].group.nodes,
              shared->params.resources == Resources::shared_nodes ? shared->params.cores_per_node : 0),
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
      if (r.tag == kAllocationRecord) out_->allocations.push_back(r.as<AllocationRow>());
      if (r.tag == kSeriesRecord) out_->series.push_back(r.as<SeriesRow>());
      if (r.tag == kPassRecord) {
        const PassRow p = r.as<PassRow>();
        ++out_->passes;
        out_->broken_reservations += p.broken_reservations;
        out_->pass_costs.push_back({to_seconds(ev.time()), p.queued, p.started, p.running, part().series_group,
                                    ctx.handler_wall_us(), static_cast<double>(p.plan_cells)});
      }
    });
  }
  bool operator==(const SchedulerLp&) const = default;
  TRACEWARP_PERSIST(queue_, settled_below_, ended_since_pass_, queued_sizes_, t0_, running_, by_requested_end_, wrsa_,
                    scores_changed_, wrsa_at_submit_, priorities_, usage_accrued_to_, limits_, pool_, policy_, pass_at_,
                    arrived_, done_)

 private:
  struct Running {
    Time start;
    Time t0;
    std::vector<NodeRange> ranges;
    bool operator==(const Running&) const = default;
    TRACEWARP_PERSIST(start, t0, ranges)
  };

  const GroupPart& part() const { return shared_->groups[group_]; }
  const workload::Job& job(std::uint64_t index) const { return shared_->workload->jobs[index]; }
  Time executed(const workload::Job& j) const { return shared_->params.executed(j); }
  std::uint32_t units(const workload::Job& j) const { return shared_->params.units_of(j); }

  void arrive(std::uint64_t index, EventContext& ctx) {
    ++arrived_;
    const workload::Job& j = job(index);
    const Time requested = j.requested > 0 ? j.requested : j.run;
    const Time longest = policy_.longest_plannable();
    const std::uint32_t size = units(j);
    if (size < part().group.min_job_nodes || size > part().group.max_job_nodes || requested > longest ||
        !part().group.takes_partition(j.partition) || limits_.exceeds_alone(size)) {
      JobRow row = make_row(index, -1, -1, ctx.now(), JobStatus::rejected, {});
      ctx.emit(kJobRecord, row);
      ++done_;
      return;
    }
    const double score = wrsa_.score(j.user);
    QueuedJob queued{index, size, requested, j.submit, j.user, score, j.group, j.queue};
    queued.priority = priorities_.priority(queued, ctx.now());
    queue_.push(queued);
    wrsa_at_submit_[index] = score;
    queued_sizes_.insert(size);
    request_pass(ctx);
  }

  void end(std::uint64_t index, EventContext& ctx) {
    const auto it = running_.find(index);
    if (it == running_.end()) {  // a model error: the end is scheduled only by start()
      ctx.fault("batch scheduler: end of job " + std::to_string(index) + ", which is not running");
      return;
    }
    pool_.release(it->second.ranges);
    const workload::Job& j = job(index);
    if (priorities_.tracks_usage()) charge_usage(j, it->second.start, ctx.now());
    limits_.ended(j.user, units(j));
    const JobStatus status = executed(j) < j.run ? JobStatus::killed : JobStatus::completed;
    wrsa_.on_completion(j.user, ctx.now() - it->second.start, j.requested, status == JobStatus::killed);
    scores_changed_ = true;
    ctx.emit(kJobRecord, make_row(index, it->second.t0, it->second.start, ctx.now(), status, it->second.ranges));
    for (const NodeRange& r : it->second.ranges)
      ctx.emit(kAllocationRecord, AllocationRow{index, part().first_node + r.first, r.count});
    wrsa_at_submit_.erase(index);
    const RunningJob key{index, 0, 0, it->second.start + queue_requested(index), 0};
    const auto at = std::lower_bound(by_requested_end_.begin(), by_requested_end_.end(), key, ByRequestedEnd{});
    by_requested_end_.erase(static_cast<std::size_t>(at - by_requested_end_.begin()));
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

  // The queued jobs the user limits do not hold, in queue order: the whole queue when none is
  // held (the usual case, and always without limits: no copy), else a copy in `scratch`.
  QueueView eligible_jobs(std::vector<QueuedJob>& scratch) const {
    if (!limits_.any()) return queue_.jobs();
    for (const QueuedJob& q : queue_.jobs())
      if (!limits_.holds(q.user, q.nodes)) scratch.push_back(q);
    return scratch.size() == queue_.size() ? queue_.jobs() : QueueView(scratch);
  }

  // The usage of a job that ran from `start` to `now`, since the last accrual.
  void charge_usage(const workload::Job& j, Time start, Time now) {
    const double seconds = to_seconds(now - std::max(start, usage_accrued_to_));
    priorities_.charge(priorities_.account_of(j.user, j.group), seconds * units(j));
  }

  // Priority order: the queued jobs' priorities recomputed when due, after usage has decayed and
  // the running jobs' usage has accrued up to now.
  void refresh_priorities(Time now) {
    if (!priorities_.due(now)) return;
    if (priorities_.tracks_usage()) {
      priorities_.decay_to(now);
      for (const auto& [index, running] : running_) charge_usage(job(index), running.start, now);
      usage_accrued_to_ = now;
    }
    priorities_.begin_computation(now);
    queue_.reprioritise([&](const QueuedJob& q) { return priorities_.priority(q, now); });
  }

  void pass(EventContext& ctx) {
    refresh_priorities(ctx.now());
    const bool reads_wrsa = policy_.reads_wrsa();
    if (reads_wrsa && scores_changed_) {  // scores move only when jobs end
      queue_.for_each([&](QueuedJob& q) { q.wrsa = wrsa_.score(q.user); });
      scores_changed_ = false;
    }
    // A pass in which the user limits held a job the policy chose (its user reached a limit
    // earlier in the pass) is run again at once: the nodes it would have taken are offered to
    // the jobs still eligible. Each repeat holds at least one more user back, so it ends.
    while (pass_once(ctx)) {
    }
  }

  // One scheduling pass; whether the limits held any job it chose.
  bool pass_once(EventContext& ctx) {
    // Sorted by requested end, as the profile likes them.
    const std::span<const RunningJob> running = by_requested_end_;
    const std::uint32_t smallest = queued_sizes_.empty() ? 0 : *queued_sizes_.begin();
    // Jobs the previous pass settled: valid only if nothing but arrivals happened since.
    const bool overrun = !running.empty() && running.front().requested_end < ctx.now();
    const JobId settled = ended_since_pass_ || overrun ? 0 : settled_below_;
    const ArrivalOrderHints hints{.settled_below = settled, .index = queue_.index()};
    std::vector<QueuedJob> scratch;
    const QueueView eligible = eligible_jobs(scratch);
    const bool held = eligible.size() != queue_.size();
    const SchedulingInput in{.now = ctx.now(),
                             .queue = held ? eligible : queue_.jobs(),
                             .running = running,
                             .total_nodes = pool_.total(),
                             .free_nodes = pool_.free(),
                             .depth = shared_->params.queue_depth,
                             .smallest_queued = smallest,
                             .arrival_order = queue_.order() == JobQueue::Order::arrival && !held ? &hints : nullptr,
                             .running_in_end_order = true,  // by_requested_end_
                             .records = shared_->workload->jobs,
                             .priorities = &priorities_};
    const std::uint32_t queued_before = static_cast<std::uint32_t>(queue_.size());
    const auto running_before = static_cast<std::uint32_t>(running.size());  // starts below change `running`
    // What the next pass may take as settled (SchedulingInput::settled_below): the jobs this one
    // considers and does not start — unless a start fails (its nodes were not to be had).
    const std::size_t depth = shared_->params.queue_depth;
    const JobId considered_below = in.queue.empty() ? 0 : (depth == 0 ? in.queue : in.queue.first(depth)).last_id() + 1;
    const PassDecision d = policy_.pass(in);
    record_first_plans(d.reservations);
    if (!d.first_nodes.empty() && d.first_nodes.size() != d.start_now.size())
      throw InvariantError("batch scheduler: policy placed some but not all started jobs");
    std::vector<std::uint64_t> started;
    bool held_now = false;  // a start the limits refused: the user reached one earlier in this pass
    for (std::size_t i = 0; i < d.start_now.size(); ++i) {
      const std::optional<std::uint32_t> placed =
          d.first_nodes.empty() ? std::nullopt : std::optional<std::uint32_t>(d.first_nodes[i]);
      const workload::Job& j = job(d.start_now[i]);
      if (limits_.holds(j.user, units(j))) {
        held_now = true;
        continue;
      }
      if (start(d.start_now[i], placed, ctx)) started.push_back(d.start_now[i]);
    }
    queue_.remove(started);
    settled_below_ = started.size() == d.start_now.size() && !held ? considered_below : 0;
    ended_since_pass_ = false;
    ctx.emit(kPassRecord, PassRow{queued_before, static_cast<std::uint32_t>(started.size()), running_before, 0,
                                  d.broken_reservations, d.plan_cells});
    return held_now;
  }

  // The first plan of a job is its T0: only jobs without one yet are added. A pass plans most of
  // the queue, mostly in index order, so the table is walked alongside the plans (a few steps
  // each) rather than searched for every one, and the jobs planned for the first time are merged
  // in at the end (mostly appended: new jobs have the highest indices).
  void record_first_plans(const std::vector<Reservation>& plans) {
    constexpr int kMostSteps = 8;  // further ahead, a search is cheaper
    std::vector<std::pair<std::uint64_t, Time>> added;
    auto at = t0_.begin();  // after the first plan: at or after the entry of the plan before
    std::optional<std::uint64_t> previous;
    for (const Reservation& r : plans) {
      if (previous && *previous < r.id) {
        for (int steps = 0; at != t0_.end() && at->first < r.id && steps < kMostSteps; ++steps) ++at;
        if (at != t0_.end() && at->first < r.id) at = std::lower_bound(at, t0_.end(), r.id, FirstPlanBelow{});
      } else {
        at = std::lower_bound(t0_.begin(), t0_.end(), r.id, FirstPlanBelow{});
      }
      if (at == t0_.end() || at->first != r.id) added.emplace_back(r.id, r.start);
      previous = r.id;
    }
    if (added.empty()) return;
    const auto by_index = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(added.begin(), added.end(), by_index);  // a job planned twice keeps its first
    added.erase(
        std::unique(added.begin(), added.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
        added.end());
    const auto old_end = static_cast<std::ptrdiff_t>(t0_.size());
    t0_.insert(t0_.end(), added.begin(), added.end());
    if (old_end > 0 && t0_[static_cast<std::size_t>(old_end) - 1].first > added.front().first)
      std::inplace_merge(t0_.begin(), t0_.begin() + old_end, t0_.end(), by_index);
  }

  Time queue_requested(std::uint64_t index) const {
    const workload::Job& j = job(index);
    return j.requested > 0 ? j.requested : j.run;
  }

  // Starts a queued job on the policy's placement or, without one, by the allocation rule; false
  // if its nodes cannot be had (contiguous allocation on a fragmented machine), in which case it
  // stays queued.
  bool start(std::uint64_t index, std::optional<std::uint32_t> first_node, EventContext& ctx) {
    const workload::Job& j = job(index);
    const std::uint32_t size = units(j);
    std::vector<NodeRange> ranges;
    if (!first_node)
      ranges = pool_.allocate(size, shared_->params.allocation);
    else if (pool_.allocate_at(*first_node, size))
      ranges.push_back({*first_node, size});
    else  // the plan placed it on nodes in use: a policy error
      throw InvariantError("batch scheduler: job " + std::to_string(j.id) + " placed on busy nodes from " +
                           std::to_string(*first_node));
    if (ranges.empty()) return false;
    const auto planned = std::lower_bound(t0_.begin(), t0_.end(), index, FirstPlanBelow{});
    if (planned == t0_.end() || planned->first != index)
      throw InvariantError("batch scheduler: policy started a job it never planned");
    running_[index] = {ctx.now(), planned->second, ranges};
    limits_.started(j.user, size);
    const RunningJob entry{index, size, ctx.now(), ctx.now() + queue_requested(index), ranges.front().first};
    const auto at = std::upper_bound(by_requested_end_.begin(), by_requested_end_.end(), entry, ByRequestedEnd{});
    by_requested_end_.insert(static_cast<std::size_t>(at - by_requested_end_.begin()), entry);
    t0_.erase(planned);
    queued_sizes_.erase(queued_sizes_.find(size));
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
                        static_cast<std::uint32_t>(running_.size()), static_cast<std::uint32_t>(queue_.size()),
                        part().series_group};
    ctx.emit(kSeriesRecord, row);
    if (done_ < part().jobs.size()) ctx.send(ctx.self(), shared_->params.context.series_interval, kSample);
  }

  // Where a job ran: its first node and how many nodes. A pool of processors has no nodes: there
  // it is the first processor, and 0. Shared nodes: core u lies on node u / cores per node.
  std::pair<std::uint32_t, std::uint32_t> nodes_of(const workload::Job& j, const std::vector<NodeRange>& ranges) const {
    const BatchParams& p = shared_->params;
    const std::uint32_t base = part().first_node;
    if (p.resources != Resources::shared_nodes) {
      const std::uint32_t nodes = p.resources == Resources::exclusive_nodes ? j.nodes : 0;
      return {ranges.empty() ? 0 : base + ranges.front().first, nodes};
    }
    if (ranges.empty()) return {0, (units(j) + p.cores_per_node - 1) / p.cores_per_node};  // rejected: its need
    std::uint32_t count = 0;
    std::int64_t last = -1;
    for (const NodeRange& r : ranges) {  // ascending and disjoint
      const std::int64_t from = (base + r.first) / p.cores_per_node,
                         to = (base + r.first + r.count - 1) / p.cores_per_node;
      count += static_cast<std::uint32_t>(to - std::max(from - 1, last));
      last = to;
    }
    return {(base + ranges.front().first) / p.cores_per_node, count};
  }

  JobRow make_row(std::uint64_t index, Time t0, Time start, Time end, JobStatus status,
                  const std::vector<NodeRange>& ranges) const {
    const workload::Job& j = job(index);
    JobRow row{};
    row.id = j.id;
    row.index = index;
    row.user = j.user;
    row.status = static_cast<std::int16_t>(status);
    row.group = static_cast<std::int16_t>(group_);
    std::tie(row.first_node, row.nodes) = nodes_of(j, ranges);
    row.procs = j.procs;
    row.account = j.group;
    row.queue = j.queue;
    row.partition = j.partition;
    row.logged_wait_s = j.trace_wait >= 0 ? to_seconds(j.trace_wait) : -1;
    row.logged_start_s = j.trace_wait >= 0 ? to_seconds(j.submit + j.trace_wait) : -1;
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

  JobQueue queue_;
  JobId settled_below_ = 0;  // see ArrivalOrderHints::settled_below
  bool ended_since_pass_ = false;
  std::multiset<std::uint32_t> queued_sizes_;       // node counts of the queued jobs
  std::vector<std::pair<std::uint64_t, Time>> t0_;  // first planned start of queued jobs that have one, by index
  struct FirstPlanBelow {                           // t0_'s order, for lookups by job index
    bool operator()(const std::pair<std::uint64_t, Time>& e, std::uint64_t index) const { return e.first < index; }
  };
  std::map<std::uint64_t, Running> running_;
  struct ByRequestedEnd {
    bool operator()(const RunningJob& a, const RunningJob& b) const {
      return a.requested_end < b.requested_end || (a.requested_end == b.requested_end && a.id < b.id);
    }
  };
  // Running jobs as policies see them, sorted (contiguous: passes read it far more often than
  // starts and ends change it; the jobs ending leave near its front, new ones join near its back).
  DoubleEndedVector<RunningJob> by_requested_end_;
  WrsaScores wrsa_;                                 // users' walltime-request accuracy
  bool scores_changed_ = false;                     // since the queued jobs' scores were last refreshed
  std::map<std::uint64_t, double> wrsa_at_submit_;  // queued and running jobs' user score at submission
  PriorityLayer priorities_;                        // the queue's order (policy/batch/priority.hpp)
  Time usage_accrued_to_ = 0;                       // running jobs' usage is charged up to here
  UserLimits limits_;                               // what each user runs (policy/batch/limits.hpp)
  NodePool pool_;
  BatchPolicy policy_;
  Time pass_at_ = -1;
  std::uint64_t arrived_ = 0;
  std::uint64_t done_ = 0;  // ended or rejected
};

}  // namespace tracewarp::batch::detail
