// The application master LP of the MapReduce model (internal to src/model/mapreduce/): it
// launches attempts, follows their progress through heartbeats, and asks its detector which
// tasks are stragglers.
#pragma once

#include "internal.hpp"

namespace tracewarp::mapreduce::detail {

// Free memory per worker, and the worker with the most (the lowest id among equals) kept in a
// tournament tree: the master asks for it at every launch and every placement attempt, and a
// scan of all workers each time was most of a run at 1,000 workers.
class FreeMemory {
 public:
  FreeMemory(std::size_t workers, double each)
      : leaves_(std::bit_ceil(std::max<std::size_t>(workers, 1))), free_(workers, each), best_(2 * leaves_, kNone) {
    for (std::size_t n = 0; n < workers; ++n) best_[leaves_ + n] = static_cast<std::uint32_t>(n);
    for (std::size_t i = leaves_; i-- > 1;) best_[i] = better(best_[2 * i], best_[2 * i + 1]);
  }
  void take(std::uint32_t worker, double gb) {
    free_[worker] -= gb;
    changed(worker);
  }
  void give(std::uint32_t worker, double gb) {
    free_[worker] += gb;
    changed(worker);
  }
  // The worker with the most free memory if it has `gb` (then no other has more), else none.
  std::optional<std::uint32_t> most_free(double gb) const {
    const std::uint32_t w = best_[1];
    if (w == kNone || !(free_[w] >= gb)) return std::nullopt;
    return w;
  }
  bool operator==(const FreeMemory&) const = default;
  TRACEWARP_PERSIST(free_, best_)

 private:
  static constexpr std::uint32_t kNone = ~0u;
  std::uint32_t better(std::uint32_t a, std::uint32_t b) const {
    if (a == kNone || b == kNone) return a == kNone ? b : a;
    return free_[b] > free_[a] ? b : a;  // a < b: a wins ties
  }
  void changed(std::uint32_t worker) {
    for (std::size_t i = (leaves_ + worker) / 2; i >= 1; i /= 2) best_[i] = better(best_[2 * i], best_[2 * i + 1]);
  }
  std::size_t leaves_;
  std::vector<double> free_;         // GB
  std::vector<std::uint32_t> best_;  // best_[i]: the worker with the most under tree node i
};

class MasterLp {
 public:
  MasterLp(const Shared* shared, Collector* out)
      : shared_(shared),
        out_(out),
        rng_(shared->params.context.seed, 0),
        free_memory_(shared->params.workers, shared->params.memory_gb),
        tasks_(static_cast<std::size_t>(shared->params.jobs) * shared->tasks_per_job()),
        maps_left_(shared->params.jobs, shared->params.maps),
        tasks_left_(shared->params.jobs, shared->tasks_per_job()),
        from_first_progress_(shared->params.estimate_from == "first_progress") {}

  void on_init(EventContext& ctx) {
    for (std::uint64_t j = 0; j < shared_->params.jobs; ++j)
      ctx.send(ctx.self(), static_cast<Time>(j) * shared_->params.job_interval, kJobArrival, JobMsg{j});
    ctx.send(ctx.self(), shared_->params.heartbeat, kTick);
  }

  void on_event(const Event& ev, EventContext& ctx) {
    switch (ev.kind()) {
      case kJobArrival: {
        const auto job = static_cast<std::uint32_t>(ev.as<JobMsg>().job);
        ++arrived_;
        for (std::uint32_t t = 0; t < shared_->params.maps; ++t) pending_.push_back({job, t});
        if (shared_->params.maps == 0) release_reduces(job);
        break;
      }
      case kProgress:
        progress(ev.as<AttemptMsg>(), ctx.now());
        return;
      case kAttemptDone:
        done(ev.as<AttemptMsg>(), ctx);
        break;
      case kTick:
        detect(ctx);
        if (arrived_ < shared_->params.jobs || jobs_done_ < shared_->params.jobs)
          ctx.send(ctx.self(), shared_->params.heartbeat, kTick);
        break;
      default:
        throw InvariantError("mapreduce master: unexpected event kind " + std::to_string(ev.kind()));
    }
    place(ctx);
  }

  void on_commit(const Event&, CommitContext& ctx) const {
    ctx.for_each_record([&](const CommitContext::Record& r) { out_->attempts.push_back(r.as<AttemptRow>()); });
  }
  bool operator==(const MasterLp&) const = default;
  TRACEWARP_PERSIST(rng_, free_memory_, tasks_, maps_left_, tasks_left_, pending_, copies_wanted_, running_, judged_,
                    completed_, judgements_, next_attempt_, arrived_, jobs_done_, next_speculation_)

 private:
  struct TaskRef {
    std::uint32_t job;
    std::uint32_t task;
    bool operator==(const TaskRef&) const = default;
  };
  struct TaskState {
    std::uint32_t attempts = 0;  // launched
    std::uint32_t running = 0;
    bool done = false;
    bool copied = false;  // a speculative copy was launched
    bool operator==(const TaskState&) const = default;
  };
  struct Attempt {
    TaskRef ref;
    std::uint32_t number;
    std::uint32_t node;
    Time start;
    bool abnormal;
    bool speculative;
    double progress = 0;
    EstimateHistory estimates;
    std::uint32_t abnormal_checks = 0;
    bool new_report = false;     // since the detector's last check
    Time first_progress_at = 0;  // estimate_from = first_progress: its first report with progress
    double first_progress = 0;   // (0: none yet)
    bool operator==(const Attempt&) const = default;
  };
  struct Completed {
    Time end;
    double duration_s;
    std::uint32_t kind;
    bool operator==(const Completed&) const = default;
  };

  const MapReduceParams& p() const { return shared_->params; }
  std::uint32_t kind_of(const TaskRef& t) const { return t.task < p().maps ? 0 : 1; }
  TaskState& state(const TaskRef& t) {
    return tasks_[static_cast<std::size_t>(t.job) * shared_->tasks_per_job() + t.task];
  }
  double memory_of(std::uint32_t kind) const { return kind == 0 ? p().map_memory_gb : p().reduce_memory_gb; }

  void release_reduces(std::uint32_t job) {
    for (std::uint32_t t = 0; t < p().reduces; ++t) pending_.push_back({job, p().maps + t});
  }

  void progress(const AttemptMsg& m, Time now) {
    const auto it = running_.find(m.attempt);
    if (it == running_.end()) return;  // ended or killed meanwhile
    Attempt& a = it->second;
    a.progress = m.progress;
    a.new_report = true;
    if (m.progress <= 0) return;
    const double elapsed_s = to_seconds(now - a.start);
    if (!from_first_progress_) return a.estimates.add(estimate_from_launch(elapsed_s, m.progress));
    if (a.first_progress == 0) {  // the rate is measured from here on
      a.first_progress_at = now;
      a.first_progress = m.progress;
    } else if (m.progress > a.first_progress) {
      a.estimates.add(estimate_from_first_progress(elapsed_s, m.progress, to_seconds(a.first_progress_at - a.start),
                                                   a.first_progress));
    }
  }

  // The node with the most free memory that holds a container of `kind` (ties: the lowest id).
  std::optional<std::uint32_t> node_for(std::uint32_t kind) const { return free_memory_.most_free(memory_of(kind)); }

  bool launch(const TaskRef& t, bool speculative, EventContext& ctx) {
    const std::uint32_t kind = kind_of(t);
    const std::optional<std::uint32_t> node = node_for(kind);
    if (!node) return false;
    free_memory_.take(*node, memory_of(kind));
    TaskState& s = state(t);
    const bool abnormal = rng_.uniform() < p().abnormal_probability;
    const double sleep_s = abnormal ? records_per_task(p()) * p().delay_per_record_s : 0.0;
    const std::uint64_t id = next_attempt_++;
    running_.emplace(id, Attempt{t, s.attempts++, *node, ctx.now() + p().latency, abnormal, speculative, 0, {}, 0});
    ++s.running;
    if (speculative) s.copied = true;
    ctx.send(shared_->first_worker + *node, p().latency, kLaunch,
             LaunchMsg{id, task_work(p(), t.job, t.task), sleep_s});
    return true;
  }

  // Pending tasks in order onto free containers; tasks that do not fit wait, later ones may go.
  void place(EventContext& ctx) {
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (!node_for(0) && !node_for(1)) return;
      if (launch(*it, false, ctx))
        it = pending_.erase(it);
      else
        ++it;
    }
  }

  void emit_row(std::uint64_t id, const Attempt& a, Time end, Outcome outcome, EventContext& ctx) {
    AttemptRow r{};
    r.job = a.ref.job;
    r.task = a.ref.task;
    r.attempt = a.number;
    r.kind = kind_of(a.ref);
    r.node = a.node;
    r.injected_abnormal = a.abnormal;
    r.start_s = to_seconds(a.start);
    r.end_s = to_seconds(std::max(end, a.start));  // stopped before its launch reached the worker
    const auto judged = judged_.find(id);
    r.judged_abnormal_s = judged != judged_.end() ? to_seconds(judged->second) : -1;
    if (judged != judged_.end()) judged_.erase(judged);  // the attempt ends here
    r.outcome = static_cast<std::uint32_t>(outcome);
    r.speculative = a.speculative;
    ctx.emit(kAttemptRecord, r);
  }

  // Stops an attempt the master no longer wants (killed, or lost the race).
  void stop(std::uint64_t id, Outcome outcome, EventContext& ctx) {
    const auto it = running_.find(id);
    const Attempt& a = it->second;
    emit_row(id, a, ctx.now(), outcome, ctx);
    free_memory_.give(a.node, memory_of(kind_of(a.ref)));
    --state(a.ref).running;
    ctx.send(shared_->first_worker + a.node, p().latency, kKill, AttemptMsg{id, 0, 0});
    running_.erase(it);
  }

  void done(const AttemptMsg& m, EventContext& ctx) {
    const auto it = running_.find(m.attempt);
    if (it == running_.end()) return;  // killed after it finished: its kill crossed this report
    const Attempt a = it->second;
    TaskState& s = state(a.ref);
    emit_row(m.attempt, a, m.finish, Outcome::completed, ctx);
    free_memory_.give(a.node, memory_of(kind_of(a.ref)));
    --s.running;
    running_.erase(it);
    if (s.done) return;  // cannot happen: the first end stops every other attempt
    s.done = true;
    completed_.push_back({m.finish, to_seconds(m.finish - a.start), kind_of(a.ref)});
    if (s.running > 0) {  // copies of the task still run: they lost the race
      std::vector<std::uint64_t> others;
      for (const auto& [id, other] : running_)
        if (other.ref == a.ref) others.push_back(id);
      for (const std::uint64_t id : others) stop(id, Outcome::lost_race, ctx);
    }
    std::erase_if(pending_, [&](const TaskRef& t) { return t == a.ref; });  // a queued re-execution
    if (kind_of(a.ref) == 0 && --maps_left_[a.ref.job] == 0) release_reduces(a.ref.job);
    if (--tasks_left_[a.ref.job] == 0) ++jobs_done_;
  }

  // Every heartbeat: the window detector (if any), then Hadoop's speculation, per task kind.
  // Speculation checks only when its wait since the last check is over (Hadoop's speculator
  // thread): retry_after_copy after a check that launched a copy, retry_after_none otherwise.
  void detect(EventContext& ctx) {
    const double window = shared_->detector->fixed_window_s > 0 ? shared_->detector->fixed_window_s : p().window_s;
    const Time horizon = ctx.now() - from_seconds(window);
    while (!completed_.empty() && completed_.front().end < horizon) completed_.pop_front();
    const bool speculation_due = ctx.now() >= next_speculation_;
    bool copied = false;
    for (std::uint32_t kind = 0; kind < 2; ++kind) {
      if (shared_->detector->window_detector) window_detector(kind, horizon, ctx);
      if (speculation_due) copied |= speculate(kind, ctx);
    }
    if (speculation_due)
      next_speculation_ = ctx.now() + (copied ? p().speculation_retry_after_copy : p().speculation_retry_after_none);
  }

  // Whether the detector has an estimate of the attempt: the minimum of its last 5 is taken once
  // estimates_needed reports gave one (its first ones are inflated by its start-up).
  bool has_estimate(const Attempt& a) const { return a.estimates.count() >= p().estimates_needed; }

  // Speculative attempts a job may have in flight now (Hadoop's numberAllowedSpeculativeTasks).
  double speculation_allowed(std::uint32_t running_attempts) const {
    return std::max({static_cast<double>(p().speculation_minimum_allowed),
                     p().speculation_cap_total * static_cast<double>(shared_->tasks_per_job()),
                     p().speculation_cap_running * static_cast<double>(running_attempts)});
  }

  void window_detector(std::uint32_t kind, Time horizon, EventContext& ctx) {
    std::vector<double> sample;
    for (const Completed& c : completed_)
      if (c.kind == kind && c.end >= horizon) sample.push_back(c.duration_s);
    for (const auto& [id, a] : running_)
      if (kind_of(a.ref) == kind && has_estimate(a)) sample.push_back(a.estimates.estimate());
    const std::int64_t mode = mode_bin(sample, p().bin_width_s);
    const double lambda =
        p().lambda_from_sample ? sample_lambda(sample, mode, p().bin_width_s, p().lambda) : p().lambda;
    const WindowRule rule{{p().bin_width_s, lambda, p().p_threshold}, p().consecutive, p().zero_progress_s};
    std::vector<std::uint64_t> act;
    for (auto& [id, a] : running_) {
      if (kind_of(a.ref) != kind || judged_.count(id) || state(a.ref).attempts >= p().max_attempts) continue;
      const AttemptCheck check{a.progress, to_seconds(ctx.now() - a.start),
                               has_estimate(a) ? std::optional<double>(a.estimates.estimate()) : std::nullopt,
                               a.new_report};
      a.new_report = false;
      if (window_check(check, mode, rule, a.abnormal_checks)) act.push_back(id);
    }
    for (const std::uint64_t id : act) {
      const Attempt& a = running_.at(id);
      judged_[id] = ctx.now();
      ++judgements_[kind];
      const TaskRef ref = a.ref;
      if (p().action == "copy") {
        if (state(ref).running == 1) copies_wanted_.push_back(ref);
      } else {
        stop(id, Outcome::killed, ctx);
        if (state(ref).running == 0) pending_.push_front(ref);  // re-executed first
      }
    }
    for (auto it = copies_wanted_.begin(); it != copies_wanted_.end();) {
      if (state(*it).done || launch(*it, true, ctx))
        it = copies_wanted_.erase(it);
      else
        ++it;
    }
  }

  // Hadoop's speculation for one task kind: at most one copy; whether it launched one.
  bool speculate(std::uint32_t kind, EventContext& ctx) {
    if (!node_for(kind)) return false;
    for (const TaskRef& t : pending_)
      if (kind_of(t) == kind) return false;  // Hadoop speculates only once the phase has no pending task
    // Jobs at their cap of speculative attempts in flight get none: their tasks still count in the
    // rates' mean and spread, but none of them is picked.
    std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> flight;  // job -> (running, speculative)
    for (const auto& [id, a] : running_) {
      auto& [running, speculative] = flight[a.ref.job];
      ++running;
      speculative += a.speculative;
    }
    std::vector<RunningAttempt> view;
    std::map<std::uint64_t, TaskRef> refs;
    for (const auto& [id, a] : running_) {
      if (kind_of(a.ref) != kind || state(a.ref).running != 1) continue;
      const auto& [running, speculative] = flight.at(a.ref.job);
      const bool capped = static_cast<double>(speculative) >= speculation_allowed(running);
      const std::uint64_t key = static_cast<std::uint64_t>(a.ref.job) * shared_->tasks_per_job() + a.ref.task;
      view.push_back({key, a.progress, to_seconds(ctx.now() - a.start), state(a.ref).copied || capped});
      refs[key] = a.ref;
    }
    std::sort(view.begin(), view.end(),
              [](const RunningAttempt& x, const RunningAttempt& y) { return x.task < y.task; });
    const std::optional<std::uint64_t> pick =
        hadoop_speculation(view, p().speculation_min_run_s, p().speculation_slow_sigma);
    return pick && launch(refs.at(*pick), true, ctx);
  }

  const Shared* shared_;
  Collector* out_;
  RandomStream rng_;
  FreeMemory free_memory_;
  std::vector<TaskState> tasks_;  // job-major
  std::vector<std::uint32_t> maps_left_;
  std::vector<std::uint32_t> tasks_left_;
  bool from_first_progress_;  // params.estimate_from, read once
  std::deque<TaskRef> pending_;
  std::deque<TaskRef> copies_wanted_;
  std::map<std::uint64_t, Attempt> running_;  // by attempt id (launch order)
  std::map<std::uint64_t, Time> judged_;      // running attempts the detector acted on
  std::deque<Completed> completed_;           // the last 480 s of completions
  std::array<std::uint64_t, 2> judgements_{};
  std::uint64_t next_attempt_ = 0;
  std::uint32_t arrived_ = 0;
  std::uint32_t jobs_done_ = 0;
  Time next_speculation_ = 0;  // Hadoop's next speculation check
};

}  // namespace tracewarp::mapreduce::detail
