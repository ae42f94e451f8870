#include "tracewarp/model/mapreduce/mapreduce_model.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <tuple>

#include "../common/gather_rows.hpp"
#include "../common/tick_buckets.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/engine/simulation.hpp"
#include "tracewarp/policy/mapreduce/detectors.hpp"

namespace tracewarp::mapreduce {
namespace {

// Event kinds: their numbers order what happens within one instant.
enum Kind : EventKind {
  kComplete = 1,     // worker, to itself: the attempt(s) due now are done
  kCores = 2,        // worker, to itself: usable cores change
  kKill = 3,         // master -> worker
  kLaunch = 4,       // master -> worker
  kHeartbeat = 5,    // worker, to itself: report progress
  kAttemptDone = 6,  // worker -> master
  kProgress = 7,     // worker -> master
  kJobArrival = 8,   // master, to itself
  kTick = 9,         // master, to itself: detectors and placement
};
enum Record : RecordTag { kAttemptRecord = 1 };

struct LaunchMsg {
  std::uint64_t attempt;
  double work;  // core-seconds
};
struct AttemptMsg {
  std::uint64_t attempt;
  double progress;  // kProgress: 0..1
  Time finish;      // kAttemptDone: when the worker finished it
};
struct TokenMsg {
  std::uint64_t token;
};
struct JobMsg {
  std::uint64_t job;
};

struct Shared {
  MapReduceParams params;
  const DetectorInfo* detector;
  LpId master = 0;
  LpId first_worker = 0;
  std::uint32_t tasks_per_job() const { return params.maps + params.reduces; }
};

struct Collector {
  std::vector<AttemptRow> attempts;
  TRACEWARP_PERSIST(attempts)
};

class WorkerLp {
 public:
  WorkerLp(const Shared* shared, std::uint32_t node) : shared_(shared), node_(node), cores_(shared->params.cores) {}

  void on_init(EventContext& ctx) {
    if (shared_->params.state_change) ctx.send(ctx.self(), shared_->params.state_change_at, kCores);
  }

  void on_event(const Event& ev, EventContext& ctx) {
    advance(ctx.now());
    switch (ev.kind()) {
      case kLaunch: {
        const LaunchMsg m = ev.as<LaunchMsg>();
        running_.push_back({m.attempt, m.work, m.work});
        if (!heartbeat_on_) {
          heartbeat_on_ = true;
          ctx.send(ctx.self(), shared_->params.heartbeat, kHeartbeat);
        }
        break;
      }
      case kKill:
        std::erase_if(running_, [&](const Running& r) { return r.attempt == ev.as<AttemptMsg>().attempt; });
        break;
      case kCores:
        cores_ = shared_->params.cores_after;
        break;
      case kComplete:
        if (ev.as<TokenMsg>().token != token_) return;  // superseded by a later change
        finish_due(ctx);
        break;
      case kHeartbeat:
        if (running_.empty()) {
          heartbeat_on_ = false;
          return;
        }
        for (const Running& r : running_)
          ctx.send(shared_->master, shared_->params.latency, kProgress,
                   AttemptMsg{r.attempt, 1 - r.remaining / r.total, 0});
        ctx.send(ctx.self(), shared_->params.heartbeat, kHeartbeat);
        return;
      default:
        throw InvariantError("mapreduce worker: unexpected event kind " + std::to_string(ev.kind()));
    }
    reschedule(ctx);
  }
  bool operator==(const WorkerLp&) const = default;
  TRACEWARP_PERSIST(cores_, last_, running_, token_, heartbeat_on_)

 private:
  struct Running {
    std::uint64_t attempt;
    double remaining;  // core-seconds
    double total;
    bool operator==(const Running&) const = default;
  };
  // Work units per second of each running attempt.
  double rate() const { return running_.empty() ? 0 : std::min(1.0, cores_ / static_cast<double>(running_.size())); }

  void advance(Time now) {
    const double done = rate() * to_seconds(now - last_);
    for (Running& r : running_) r.remaining -= done;
    last_ = now;
  }
  void finish_due(EventContext& ctx) {
    // Attempts within rounding of their end finish together, in launch order.
    constexpr double kDone = 1e-6;
    for (const Running& r : running_)
      if (r.remaining <= kDone)
        ctx.send(shared_->master, shared_->params.latency, kAttemptDone, AttemptMsg{r.attempt, 1, ctx.now()});
    std::erase_if(running_, [](const Running& r) { return r.remaining <= kDone; });
  }
  // The next end under the current sharing; a token makes earlier predictions stale.
  void reschedule(EventContext& ctx) {
    ++token_;
    if (running_.empty() || rate() <= 0) return;
    double least = running_.front().remaining;
    for (const Running& r : running_) least = std::min(least, r.remaining);
    const Time delay = std::max<Time>(1, static_cast<Time>(std::ceil(std::max(0.0, least) / rate() * kTicksPerSecond)));
    ctx.send(ctx.self(), delay, kComplete, TokenMsg{token_});
  }

  const Shared* shared_;
  std::uint32_t node_;
  double cores_;
  Time last_ = 0;
  std::vector<Running> running_;
  std::uint64_t token_ = 0;
  bool heartbeat_on_ = false;
};

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
        rng_(shared->params.seed, 0),
        free_memory_(shared->params.workers, shared->params.memory_gb),
        tasks_(static_cast<std::size_t>(shared->params.jobs) * shared->tasks_per_job()),
        maps_left_(shared->params.jobs, shared->params.maps),
        tasks_left_(shared->params.jobs, shared->tasks_per_job()) {}

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
                    completed_, judgements_, next_attempt_, arrived_, jobs_done_)

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
    if (m.progress > 0) a.estimates.add(to_seconds(now - a.start) / m.progress);
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
    const double work = (kind == 0 ? p().map_work_s : p().reduce_work_s) +
                        (abnormal ? p().records_per_task * p().delay_per_record_s : 0.0);
    const std::uint64_t id = next_attempt_++;
    running_.emplace(id, Attempt{t, s.attempts++, *node, ctx.now() + p().latency, abnormal, speculative, 0, {}, 0});
    ++s.running;
    if (speculative) s.copied = true;
    ctx.send(shared_->first_worker + *node, p().latency, kLaunch, LaunchMsg{id, work});
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
  void detect(EventContext& ctx) {
    const double window = shared_->detector->fixed_window_s > 0 ? shared_->detector->fixed_window_s : p().window_s;
    const Time horizon = ctx.now() - from_seconds(window);
    while (!completed_.empty() && completed_.front().end < horizon) completed_.pop_front();
    for (std::uint32_t kind = 0; kind < 2; ++kind) {
      if (shared_->detector->window_detector) window_detector(kind, horizon, ctx);
      speculate(kind, ctx);
    }
  }

  void window_detector(std::uint32_t kind, Time horizon, EventContext& ctx) {
    std::vector<double> sample;
    for (const Completed& c : completed_)
      if (c.kind == kind && c.end >= horizon) sample.push_back(c.duration_s);
    for (const auto& [id, a] : running_)
      if (kind_of(a.ref) == kind && !a.estimates.empty()) sample.push_back(a.estimates.estimate());
    const std::int64_t mode = mode_bin(sample, p().bin_width_s);
    const WindowRule rule{{p().bin_width_s, p().lambda, p().p_threshold}, p().consecutive, p().zero_progress_s};
    std::vector<std::uint64_t> act;
    for (auto& [id, a] : running_) {
      if (kind_of(a.ref) != kind || judged_.count(id)) continue;
      const AttemptCheck check{a.progress, to_seconds(ctx.now() - a.start),
                               a.estimates.empty() ? std::nullopt : std::optional<double>(a.estimates.estimate())};
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

  void speculate(std::uint32_t kind, EventContext& ctx) {
    if (!node_for(kind)) return;
    for (const TaskRef& t : pending_)
      if (kind_of(t) == kind) return;  // Hadoop speculates only once the phase has no pending task
    std::vector<RunningAttempt> view;
    std::map<std::uint64_t, TaskRef> refs;
    for (const auto& [id, a] : running_) {
      if (kind_of(a.ref) != kind || state(a.ref).running != 1) continue;
      const std::uint64_t key = static_cast<std::uint64_t>(a.ref.job) * shared_->tasks_per_job() + a.ref.task;
      view.push_back({key, a.progress, to_seconds(ctx.now() - a.start), state(a.ref).copied});
      refs[key] = a.ref;
    }
    std::sort(view.begin(), view.end(),
              [](const RunningAttempt& x, const RunningAttempt& y) { return x.task < y.task; });
    const std::optional<std::uint64_t> pick =
        hadoop_speculation(view, p().speculation_min_run_s, p().speculation_slow_sigma);
    if (pick) launch(refs.at(*pick), true, ctx);
  }

  const Shared* shared_;
  Collector* out_;
  RandomStream rng_;
  FreeMemory free_memory_;
  std::vector<TaskState> tasks_;  // job-major
  std::vector<std::uint32_t> maps_left_;
  std::vector<std::uint32_t> tasks_left_;
  std::deque<TaskRef> pending_;
  std::deque<TaskRef> copies_wanted_;
  std::map<std::uint64_t, Attempt> running_;  // by attempt id (launch order)
  std::map<std::uint64_t, Time> judged_;      // running attempts the detector acted on
  std::deque<Completed> completed_;           // the last 480 s of completions
  std::array<std::uint64_t, 2> judgements_{};
  std::uint64_t next_attempt_ = 0;
  std::uint32_t arrived_ = 0;
  std::uint32_t jobs_done_ = 0;
};

}  // namespace

const ParamTable<MapReduceParams>& param_table() {
  using P = MapReduceParams;
  static const ParamTable<P> table =
      ParamTable<P>("mapreduce")
          .choice("detector", &P::detector, detector_names(), "straggler detector (policy/mapreduce/detectors.hpp)")
          .integer("workers", &P::workers, "worker nodes, one LP each", {.min = 1})
          .number("cores", &P::cores, "usable cores per worker at the start", {.min = 1e-9})
          .number("memory_gb", &P::memory_gb, "container memory per worker, GB", {.min = 0})
          .number("map_memory_gb", &P::map_memory_gb, "memory of a map container, GB", {.min = 1e-9})
          .number("reduce_memory_gb", &P::reduce_memory_gb, "memory of a reduce container, GB", {.min = 1e-9})
          .integer("maps", &P::maps, "map tasks per job (407.9 GB in 256-MB chunks)")
          .integer("reduces", &P::reduces, "reduce tasks per job; they start after the job's last map")
          .number("map_work_s", &P::map_work_s, "work of a map task, core-seconds", {.min = 1e-9})
          .number("reduce_work_s", &P::reduce_work_s, "work of a reduce task, core-seconds", {.min = 1e-9})
          .integer("jobs", &P::jobs, "jobs, submitted job_interval_s apart", {.min = 1})
          .seconds("job_interval_s", &P::job_interval, "seconds between job submissions", {.min = 0})
          .flag("state_change", &P::state_change, "every worker's usable cores change at state_change_s")
          .seconds("state_change_s", &P::state_change_at, "when the system state changes, seconds", {.min = 0})
          .number("cores_after", &P::cores_after, "usable cores per worker after the change", {.min = 1e-9})
          .number("abnormal_probability", &P::abnormal_probability, "p: each attempt is abnormal with it",
                  {.min = 0, .max = 1})
          .number("records_per_task", &P::records_per_task, "key-value pairs a task processes", {.min = 0})
          .number("delay_per_record_s", &P::delay_per_record_s, "extra work per record of an abnormal attempt, s",
                  {.min = 0})
          .seconds("heartbeat_s", &P::heartbeat, "heartbeat: progress reports and detector checks, seconds",
                   {.min = 1e-6})
          .seconds("latency_s", &P::latency, "master-worker message delay, seconds", {.min = 1e-9})
          .number("window_s", &P::window_s, "proposed: the detector's time window, seconds", {.min = 0})
          .number("bin_width_s", &P::bin_width_s, "detector: histogram bin width, seconds", {.min = 1e-9})
          .number("lambda", &P::lambda, "detector: the Poisson lambda (fixed in advance)", {.min = 1e-9})
          .number("p_threshold", &P::p_threshold, "detector: P', abnormal below it", {.min = 0, .max = 1})
          .integer("consecutive", &P::consecutive, "detector: abnormal checks in a row before acting", {.min = 1})
          .number("zero_progress_s", &P::zero_progress_s, "detector: no progress this long after start is abnormal",
                  {.min = 0})
          .choice("action", &P::action, {"kill", "copy"}, "detector: kill and re-execute, or launch a copy")
          .number("speculation_min_run_s", &P::speculation_min_run_s, "Hadoop speculation: minimum run time, s",
                  {.min = 0})
          .number("speculation_slow_sigma", &P::speculation_slow_sigma,
                  "Hadoop speculation: copy tasks slower than mean - this x standard deviation of the rates");
  return table;
}

const TableSchema& attempt_table_schema() {
  static const TableSchema schema{
      "attempts",
      sizeof(AttemptRow),
      {TRACEWARP_COLUMN(AttemptRow, job, "", "job"),
       TRACEWARP_COLUMN(AttemptRow, task, "", "task within the job: maps first, then reduces"),
       TRACEWARP_COLUMN(AttemptRow, attempt, "", "attempt number of the task (0 = first)"),
       TRACEWARP_COLUMN(AttemptRow, kind, "", "0 map, 1 reduce"), TRACEWARP_COLUMN(AttemptRow, node, "", "worker"),
       TRACEWARP_COLUMN(AttemptRow, injected_abnormal, "", "1 if slowed on purpose"),
       TRACEWARP_COLUMN(AttemptRow, start_s, "s", "start on the worker"),
       TRACEWARP_COLUMN(AttemptRow, end_s, "s", "finish, or when it was stopped"),
       TRACEWARP_COLUMN(AttemptRow, judged_abnormal_s, "s", "when the detector acted on it; -1 never"),
       TRACEWARP_COLUMN(AttemptRow, outcome, "", "0 completed, 1 killed, 2 lost the race"),
       TRACEWARP_COLUMN(AttemptRow, speculative, "", "1 if a copy launched beside a running attempt")},
      "mapreduce: one row per attempt, by (job, task, attempt)"};
  return schema;
}

const TableSchema& series_table_schema() {
  static const TableSchema schema{
      "series",
      sizeof(SeriesRow),
      {TRACEWARP_COLUMN(SeriesRow, time_s, "s", "start of the interval"),
       TRACEWARP_COLUMN(SeriesRow, running_maps, "attempts", "running map attempts, time average"),
       TRACEWARP_COLUMN(SeriesRow, running_reduces, "attempts", "running reduce attempts, time average"),
       TRACEWARP_COLUMN(SeriesRow, usable_cores, "cores", "usable cores of all workers, time average")},
      "mapreduce: time averages over each output.series_interval_s"};
  return schema;
}

// Each key's own range and choices are checked where it is declared (param_table); this checks
// what they cannot say alone.
void validate(const MapReduceParams& params) {
  if (params.memory_gb < std::min(params.map_memory_gb, params.reduce_memory_gb) && params.maps + params.reduces > 0)
    throw ConfigError("mapreduce: a worker's memory holds no container");
}

MapReduceResult run_mapreduce(const Communicator& comm, const MapReduceParams& params, EngineConfig engine) {
  validate(params);
  Shared shared{params, &find_detector(params.detector)};
  Collector out;
  Simulation sim(comm, engine);
  sim.declare_lookahead(params.latency);  // every message between master and workers pays it
  shared.master = sim.add_lps<MasterLp>({.name = "mapreduce-master", .checkpoint_interval = 64}, 1,
                                        [&](LpId) { return MasterLp(&shared, &out); })
                      .first;
  shared.first_worker =
      sim.add_lps<WorkerLp>({.name = "mapreduce-worker"}, params.workers,
                            [&](LpId id) { return WorkerLp(&shared, static_cast<std::uint32_t>(id - 1)); })
          .first;
  sim.checkpoint_also(out);
  MapReduceResult r;
  r.stats = sim.run();
  r.attempts = model::gather_rows(comm, std::move(out.attempts));
  if (comm.rank() != 0) return r;
  std::sort(r.attempts.begin(), r.attempts.end(), [](const AttemptRow& a, const AttemptRow& b) {
    return std::tie(a.job, a.task, a.attempt) < std::tie(b.job, b.task, b.attempt);
  });
  model::TickBuckets<2> buckets(params.interval);  // running maps, running reduces
  Time last = 0;
  r.job_completion_s.assign(params.jobs, 0);
  for (const AttemptRow& a : r.attempts) {
    buckets.add(from_seconds(a.start_s), from_seconds(a.end_s), a.kind);
    last = std::max(last, from_seconds(a.end_s));
    if (a.outcome == static_cast<std::uint32_t>(Outcome::completed))
      r.job_completion_s[a.job] =
          std::max(r.job_completion_s[a.job], a.end_s - to_seconds(static_cast<Time>(a.job) * params.job_interval));
  }
  const double interval = static_cast<double>(params.interval);
  for (std::int64_t b = 0; b <= last / params.interval; ++b) {
    const Time begin = b * params.interval, end = begin + params.interval;
    const Time change = params.state_change ? std::clamp(params.state_change_at, begin, end) : end;
    const double cores =
        (static_cast<double>(change - begin) * params.cores + static_cast<double>(end - change) * params.cores_after) /
        interval * params.workers;
    const auto at = buckets.sums().find(b);
    const model::TickBuckets<2>::Sums sums = at != buckets.sums().end() ? at->second : model::TickBuckets<2>::Sums{};
    r.series.push_back({to_seconds(begin), buckets.average(sums, 0), buckets.average(sums, 1), cores});
  }
  return r;
}

Attributes mapreduce_summary(const MapReduceResult& r) {
  std::int64_t judged[2] = {0, 0}, false_judgements = 0, copies = 0, re_executions = 0;
  double wasted = 0, completion = 0;
  for (const AttemptRow& a : r.attempts) {
    if (a.judged_abnormal_s >= 0) {
      ++judged[a.kind];
      if (!a.injected_abnormal) ++false_judgements;
    }
    copies += a.speculative;
    if (a.attempt > 0 && !a.speculative) ++re_executions;
    if (a.outcome != static_cast<std::uint32_t>(Outcome::completed)) wasted += a.end_s - a.start_s;
  }
  for (const double c : r.job_completion_s) completion += c;
  if (!r.job_completion_s.empty()) completion /= static_cast<double>(r.job_completion_s.size());
  return {{"jobs", static_cast<std::int64_t>(r.job_completion_s.size())},
          {"job_completion_s", completion},
          {"judgements_map", judged[0]},
          {"judgements_reduce", judged[1]},
          {"false_judgements", false_judgements},
          {"speculative_copies", copies},
          {"re_executions", re_executions},
          {"wasted_container_s", wasted},
          {"attempts", static_cast<std::int64_t>(r.attempts.size())}};
}

}  // namespace tracewarp::mapreduce
