#include "tracewarp/model/replication/replication_model.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <numbers>
#include <tuple>

#include "../common/gather_rows.hpp"
#include "../common/tick_buckets.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/engine/simulation.hpp"
#include "tracewarp/policy/replication/scheduling.hpp"

namespace tracewarp::replication {
namespace {

// Event kinds: their numbers order what happens within one instant.
enum Kind : EventKind {
  kCopyEnd = 1,        // host, to itself: a copy finished computing
  kCancel = 2,         // server or original host -> host running a losing copy
  kReplicaResult = 3,  // replica host -> original host
  kAssign = 4,         // server -> host (wqr): a task or a replica
  kNoWork = 5,         // server -> host (wqr)
  kQueueTasks = 6,     // server or donor host -> host: a range of original tasks to queue
  kGive = 7,           // server -> donor host (adaptive): send tasks to another host
  kProbe = 8,          // server -> host: report your state
  kPoll = 9,           // poller -> polled host
  kPollReply = 10,     // polled host -> poller
  kRequest = 11,       // host -> server (wqr): give me work
  kResult = 12,        // host -> server (wqr): a copy's result
  kReport = 13,        // host -> server: state for a collection round
  kDone = 14,          // host -> server: a task is done (result sink; no scheduler event)
  kRound = 15,         // server, to itself: the next collection round
};
enum Record : RecordTag { kTaskRecord = 1, kCopyRecord = 2, kWaitRecord = 3 };

constexpr std::uint32_t kNoHost = ~std::uint32_t{0};
constexpr std::uint64_t kNoTask = ~std::uint64_t{0};

struct TaskMsg {
  std::uint64_t task;
  std::uint64_t token;  // kCopyEnd: the copy it ends; kAssign: 1 = replica
};
struct ResultMsg {
  std::uint64_t task;
  std::uint64_t host;
  Time finish;
};
struct RangeMsg {
  std::uint64_t first;
  std::uint64_t count;
  bool operator==(const RangeMsg&) const = default;
};
struct GiveMsg {
  std::uint64_t to;
  std::uint64_t count;
};
struct ReportMsg {
  std::uint64_t host;
  double speed;
  std::uint64_t queued;
};
struct PollMsg {
  std::uint64_t poller;
  double speed;
};
struct PollReplyMsg {
  std::uint64_t task;  // kNoTask: refused
  std::uint64_t owner;
};
struct Interval {  // [begin, end) in ticks, for the series
  Time begin;
  Time end;
};

struct Shared {
  ReplicationParams params;
  const Method* method;
  WalkParams walk;
  Network network;
  LpId server = 0;
  LpId first_host = 0;
  Time service = 0;  // server time per event
};

// Each rank's committed output.
struct Collector {
  std::vector<TaskRow> tasks;
  std::vector<CopyRow> copies;
  model::TickBuckets<2> buckets;  // busy host-ticks, queued request-ticks
  std::vector<std::uint64_t> host_events;
  std::uint64_t hosts_stopped = 0;
  std::uint64_t replicas_not_started = 0;
  std::uint64_t server_events = 0;
  std::int64_t wait_sum = 0;
  std::int64_t wait_max = 0;
  std::uint64_t waits = 0;
  void add(const Interval& iv, std::size_t series) { buckets.add(iv.begin, iv.end, series); }
  TRACEWARP_PERSIST(tasks, copies, buckets, host_events, hosts_stopped, replicas_not_started, server_events, wait_sum,
                    wait_max, waits)
};

struct HostTraits {
  double peak_flops;
  double upsilon_var;
};
// A host's peak class (uniform over the five) and walk variance (uniform over pi^2/1..6): the
// first draws of its stream (RandomStream(seed, host)); its polling list follows.
HostTraits draw_host_traits(RandomStream& rng) {
  const double peak = kPeakMflops[rng.below(5)] * 1e6;
  return {peak, std::numbers::pi * std::numbers::pi / static_cast<double>(1 + rng.below(6))};
}

class HostLp {
 public:
  HostLp(const Shared* shared, Collector* out, std::uint32_t host) : shared_(shared), out_(out), host_(host) {
    const ReplicationParams& p = shared->params;
    RandomStream rng(p.seed, host);
    const HostTraits traits = draw_host_traits(rng);
    avail_ = Availability(&shared->walk, host, traits.peak_flops, traits.upsilon_var);
    if (shared->method->polling) {
      std::vector<std::uint32_t> targets;
      const std::uint32_t want = std::min(p.polling_list, p.hosts - 1);
      while (targets.size() < want) {
        const auto h = static_cast<std::uint32_t>(rng.below(p.hosts));
        if (h != host && std::find(targets.begin(), targets.end(), h) == targets.end()) targets.push_back(h);
      }
      polls_ = PollingList(std::move(targets));
    }
  }

  void on_init(EventContext& ctx) {
    if (!shared_->method->static_assignment) request_work(ctx, 0);
  }

  void on_event(const Event& ev, EventContext& ctx) {
    progress(ctx.now());
    switch (ev.kind()) {
      case kCopyEnd:
        return copy_end(ev.as<TaskMsg>(), ctx);
      case kCancel:
        return cancel(ev.as<TaskMsg>().task, ctx);
      case kReplicaResult:
        return replica_result(ev.as<ResultMsg>(), ctx);
      case kAssign:
        return start(ev.as<TaskMsg>().task, ev.as<TaskMsg>().token != 0, host_, ctx);
      case kNoWork:
        return;
      case kQueueTasks:
        return queue_tasks(ev.as<RangeMsg>(), ctx);
      case kGive:
        return give(ev.as<GiveMsg>(), ctx);
      case kProbe:
        return ctx.send(shared_->server, net_to_server(p().message_bytes), kReport,
                        ReportMsg{host_, avail_.speed_at(ctx.now()), queued()});
      case kPoll:
        return polled(ev.as<PollMsg>(), ctx);
      case kPollReply:
        return poll_reply(ev.as<PollReplyMsg>(), ctx);
      default:
        throw InvariantError("replication host: unexpected event kind " + std::to_string(ev.kind()));
    }
  }

  void on_commit(const Event&, CommitContext& ctx) const {
    ctx.for_each_record([&](const CommitContext::Record& r) {
      if (r.tag == kTaskRecord) out_->tasks.push_back(r.as<TaskRow>());
      if (r.tag == kCopyRecord) {
        const CopyRow c = r.as<CopyRow>();
        out_->copies.push_back(c);
        out_->add(Interval{from_seconds(c.start_s), from_seconds(c.end_s)}, 0);
      }
    });
  }
  void on_finish(FinishContext&) const {
    out_->host_events.push_back(events_);
    out_->hosts_stopped += shared_->method->polling && polls_.exhausted();
    out_->replicas_not_started += replicas_not_started_;
  }
  bool operator==(const HostLp&) const = default;
  TRACEWARP_PERSIST(avail_, copy_, token_, queue_, assigned_, polls_, poll_in_flight_, cancelled_early_, events_,
                    replicas_not_started_)

 private:
  struct Copy {
    bool active = false;
    bool replica = false;
    std::uint64_t task = kNoTask;
    std::uint32_t owner = kNoHost;         // replica: the original's host
    std::uint32_t replica_host = kNoHost;  // original (proposed): where its replica runs
    std::uint32_t replicas = 0;
    Time start = 0;
    Time progress_at = 0;
    double remaining = 0;  // flop
    bool operator==(const Copy&) const = default;
  };

  const ReplicationParams& p() const { return shared_->params; }
  Time net_to_server(double bytes) const { return shared_->network.host_to_server(host_, bytes); }
  Time net_to_host(std::uint64_t h, double bytes) const { return shared_->network.host_to_host(host_, h, bytes); }
  LpId lp_of(std::uint64_t h) const { return shared_->first_host + h; }
  std::uint64_t queued() const {
    std::uint64_t n = 0;
    for (const RangeMsg& r : queue_) n += r.count;
    return n;
  }

  void progress(Time now) {
    if (!copy_.active) return;
    copy_.remaining -= avail_.work_between(copy_.progress_at, now);
    copy_.progress_at = now;
  }

  void start(std::uint64_t task, bool replica, std::uint32_t owner, EventContext& ctx) {
    copy_ = Copy{true, replica, task, owner, kNoHost, 0, ctx.now(), ctx.now(), p().grain};
    ++token_;
    const Time finish = avail_.finish_time(ctx.now(), p().grain);
    if (finish == kTimeInfinity) return ctx.fault("replication host: a task never finishes (speed stuck at 0)");
    ctx.send(ctx.self(), finish - ctx.now(), kCopyEnd, TaskMsg{task, token_});
  }
  void stop(EventContext& ctx, bool finished) {
    CopyRow c{};
    c.task = copy_.task;
    c.host = host_;
    c.replica = copy_.replica;
    c.start_s = to_seconds(copy_.start);
    c.end_s = to_seconds(ctx.now());
    c.finished = finished;
    ctx.emit(kCopyRecord, c);
    copy_.active = false;
  }

  void request_work(EventContext& ctx, Time after) {
    ctx.send(shared_->server, after + net_to_server(p().message_bytes), kRequest, TaskMsg{host_, 0});
  }

  TaskRow row(std::uint32_t winner, Time end, std::uint32_t cancelled) const {
    TaskRow r{};
    r.id = copy_.task;
    r.grain = p().grain;
    r.original_host = host_;
    r.winner_host = winner;
    r.start_s = to_seconds(copy_.start);
    r.end_s = to_seconds(end);
    r.replicas = copy_.replicas;
    r.cancelled = cancelled;
    r.winner_is_replica = winner != host_;
    return r;
  }

  // An original task is won (by this copy or by its replica): record it, tell the sink, go on.
  void task_won(std::uint32_t winner, Time end, std::uint32_t cancelled, EventContext& ctx) {
    ctx.emit(kTaskRecord, row(winner, end, cancelled));
    // Only rounds need the count (to stop); without rounds the sink has nothing to decide.
    if (shared_->method->rescheduling)
      ctx.send(shared_->server, net_to_server(p().message_bytes), kDone, TaskMsg{copy_.task, 0});
    next(ctx);
  }

  void copy_end(const TaskMsg& m, EventContext& ctx) {
    if (!copy_.active || m.token != token_) return;  // a stopped copy's end
    stop(ctx, true);
    if (!shared_->method->static_assignment) {  // wqr: the server decides who won
      ctx.send(shared_->server, net_to_server(p().message_bytes), kResult, ResultMsg{copy_.task, host_, ctx.now()});
    } else if (copy_.replica) {
      ctx.send(lp_of(copy_.owner), net_to_host(copy_.owner, p().message_bytes), kReplicaResult,
               ResultMsg{copy_.task, host_, ctx.now()});
      poll(ctx);
    } else {
      if (copy_.replica_host != kNoHost)
        ctx.send(lp_of(copy_.replica_host), net_to_host(copy_.replica_host, p().message_bytes), kCancel,
                 TaskMsg{copy_.task, 0});
      task_won(host_, ctx.now(), copy_.replicas, ctx);
    }
  }

  void cancel(std::uint64_t task, EventContext& ctx) {
    if (copy_.active && copy_.task == task) {
      stop(ctx, false);
      if (!shared_->method->static_assignment) return request_work(ctx, 0);
      return poll(ctx);
    }
    // A replica cancelled before its input arrived (the cancel overtook the larger accept).
    if (poll_in_flight_) cancelled_early_ = task;
  }

  void replica_result(const ResultMsg& m, EventContext& ctx) {
    ++events_;
    if (!copy_.active || copy_.replica || copy_.task != m.task) return;  // this copy already won
    stop(ctx, false);
    task_won(static_cast<std::uint32_t>(m.host), m.finish, 1, ctx);
  }

  void queue_tasks(const RangeMsg& r, EventContext& ctx) {
    assigned_ = true;
    if (r.count > 0) queue_.push_back(r);
    if (!copy_.active && !poll_in_flight_) next(ctx);
  }

  // Adaptive: the surplus leaves from the back of the queue; a donor that has meanwhile started
  // some of it gives what it still has.
  void give(const GiveMsg& m, EventContext& ctx) {
    std::uint64_t left = m.count;
    bool first = true;
    while (left > 0 && !queue_.empty()) {
      RangeMsg& back = queue_.back();
      const std::uint64_t n = std::min(left, back.count);
      back.count -= n;
      const RangeMsg moved{back.first + back.count, n};
      if (back.count == 0) queue_.pop_back();
      left -= n;
      ctx.send(lp_of(m.to), net_to_host(m.to, first ? p().input_bytes : p().message_bytes), kQueueTasks, moved);
      first = false;
    }
  }

  // The next original task, or (proposed) polling once the originals are done.
  void next(EventContext& ctx) {
    if (!queue_.empty()) {
      RangeMsg& front = queue_.front();
      const std::uint64_t task = front.first++;
      if (--front.count == 0) queue_.erase(queue_.begin());
      return start(task, false, host_, ctx);
    }
    if (shared_->method->polling && assigned_) poll(ctx);
  }

  void poll(EventContext& ctx) {
    if (copy_.active || poll_in_flight_) return;
    const std::optional<std::uint32_t> target = polls_.next();
    if (!target) return;  // a full round refused: this host stops
    poll_in_flight_ = true;
    ctx.send(lp_of(*target), net_to_host(*target, p().message_bytes), kPoll,
             PollMsg{host_, avail_.speed_at(ctx.now())});
  }

  void polled(const PollMsg& m, EventContext& ctx) {
    ++events_;
    const PolledState state{copy_.active && !copy_.replica, copy_.replicas, copy_.remaining,
                            avail_.speed_at(ctx.now())};
    const double transfer_s =
        p().est_includes_transfer ? to_seconds(shared_->network.host_to_host(m.poller, host_, p().input_bytes)) : 0;
    const Refusal r = judge_poll(state, p().grain, m.speed, transfer_s, p().max_replicas, shared_->method->condition3);
    if (r != Refusal::none)
      return ctx.send(lp_of(m.poller), net_to_host(m.poller, p().message_bytes), kPollReply,
                      PollReplyMsg{kNoTask, host_});
    ++events_;  // the replica assignment
    ++copy_.replicas;
    copy_.replica_host = static_cast<std::uint32_t>(m.poller);
    ctx.send(lp_of(m.poller), net_to_host(m.poller, p().input_bytes), kPollReply, PollReplyMsg{copy_.task, host_});
  }

  void poll_reply(const PollReplyMsg& m, EventContext& ctx) {
    poll_in_flight_ = false;
    if (m.task == kNoTask) {
      polls_.refused();
      return poll(ctx);
    }
    polls_.accepted();
    if (cancelled_early_ == m.task) {
      cancelled_early_ = kNoTask;
      ++replicas_not_started_;
      return poll(ctx);
    }
    start(m.task, true, static_cast<std::uint32_t>(m.owner), ctx);
  }

  const Shared* shared_;
  Collector* out_;
  std::uint32_t host_;
  Availability avail_;
  Copy copy_;
  std::uint64_t token_ = 0;
  std::vector<RangeMsg> queue_;  // original tasks not started, as ranges of ids
  bool assigned_ = false;        // the static assignment has arrived
  PollingList polls_;
  bool poll_in_flight_ = false;
  std::uint64_t cancelled_early_ = kNoTask;
  std::uint64_t events_ = 0;
  std::uint64_t replicas_not_started_ = 0;
};

class ServerLp {
 public:
  ServerLp(const Shared* shared, Collector* out)
      : shared_(shared), out_(out), wqr_(shared->params.tasks, shared->params.wqr_max_replicas) {}

  void on_init(EventContext& ctx) {
    if (shared_->method->static_assignment) start_round(ctx);
  }

  void on_event(const Event& ev, EventContext& ctx) {
    switch (ev.kind()) {
      case kRequest:
        return respond(static_cast<std::uint32_t>(ev.as<TaskMsg>().task), serve_arrival(ctx), ctx);
      case kResult:
        return result(ev.as<ResultMsg>(), ctx);
      case kReport:
        return report(ev.as<ReportMsg>(), ctx);
      case kDone:
        ++done_;
        return;
      case kRound:
        if (done_ < shared_->params.tasks) start_round(ctx);
        return;
      default:
        throw InvariantError("replication server: unexpected event kind " + std::to_string(ev.kind()));
    }
  }

  void on_commit(const Event&, CommitContext& ctx) const {
    ctx.for_each_record([&](const CommitContext::Record& r) {
      if (r.tag == kTaskRecord) out_->tasks.push_back(r.as<TaskRow>());
      if (r.tag == kWaitRecord) out_->add(r.as<Interval>(), 1);
    });
  }
  void on_finish(FinishContext&) const {
    out_->server_events = events_;
    out_->wait_sum = wait_sum_;
    out_->wait_max = wait_max_;
    out_->waits = waits_;
  }
  bool operator==(const ServerLp&) const = default;
  TRACEWARP_PERSIST(busy_until_, events_, wait_sum_, wait_max_, waits_, wqr_, first_copy_, done_, rounds_,
                    round_started_, reports_, speeds_, queued_)

 private:
  const ReplicationParams& p() const { return shared_->params; }
  Time to_host(std::uint64_t h, double bytes) const { return shared_->network.host_to_server(h, bytes); }

  // One event of service; returns when it ends (its response leaves then).
  Time serve(Time now) {
    const Time begin = std::max(now, busy_until_);
    busy_until_ = begin + shared_->service;
    ++events_;
    return busy_until_;
  }
  // The event a message brings: its wait in the queue is measured.
  Time serve_arrival(EventContext& ctx) {
    const Time begin = std::max(ctx.now(), busy_until_);
    const Time wait = begin - ctx.now();
    wait_sum_ += wait;
    wait_max_ = std::max(wait_max_, wait);
    ++waits_;
    if (wait > 0) ctx.emit(kWaitRecord, Interval{ctx.now(), begin});
    return serve(ctx.now());
  }

  // wqr: the host's next work, sent when the service ending at `end` completes.
  void respond(std::uint32_t host, Time end, EventContext& ctx) {
    const Time after = end - ctx.now();
    const WorkQueueReplication::Assignment a = wqr_.assign(host);
    if (a.kind == WorkQueueReplication::Assignment::none)
      return ctx.send(shared_->first_host + host, after + to_host(host, p().message_bytes), kNoWork);
    const Time delay = after + to_host(host, p().input_bytes);
    if (a.kind == WorkQueueReplication::Assignment::original) first_copy_[a.task] = {ctx.now() + delay, host};
    ctx.send(shared_->first_host + host, delay, kAssign,
             TaskMsg{a.task, a.kind == WorkQueueReplication::Assignment::replica ? 1u : 0u});
  }

  // wqr: a result (one event), cancellations of the losing copies (one each), the next assignment.
  void result(const ResultMsg& m, EventContext& ctx) {
    const auto host = static_cast<std::uint32_t>(m.host);
    serve_arrival(ctx);
    const WorkQueueReplication::Resolution res = wqr_.finish(m.task, host);
    if (res.first) {
      const auto first = first_copy_.find(m.task);
      if (first == first_copy_.end()) return ctx.fault("replication server: result of a task never assigned");
      TaskRow r{};
      r.id = m.task;
      r.grain = p().grain;
      r.original_host = first->second.host;
      r.winner_host = host;
      r.start_s = to_seconds(first->second.start);
      r.end_s = to_seconds(m.finish);
      r.replicas = res.copies - 1;
      r.cancelled = static_cast<std::uint32_t>(res.cancel.size());
      r.winner_is_replica = host != first->second.host;
      ctx.emit(kTaskRecord, r);
      first_copy_.erase(first);
      for (const std::uint32_t h : res.cancel)
        ctx.send(shared_->first_host + h, serve(ctx.now()) - ctx.now() + to_host(h, p().message_bytes), kCancel,
                 TaskMsg{m.task, 0});
    }
    respond(host, serve(ctx.now()), ctx);
  }

  // A collection round: probe every host; each report is one event, then one event per host
  // for its assignment (round 0: the static split) or its rebalancing instructions.
  void start_round(EventContext& ctx) {
    round_started_ = ctx.now();
    reports_ = 0;
    speeds_.assign(p().hosts, 0.0);
    queued_.assign(p().hosts, 0);
    for (std::uint32_t h = 0; h < p().hosts; ++h)
      ctx.send(shared_->first_host + h, to_host(h, p().message_bytes), kProbe);
  }

  void report(const ReportMsg& m, EventContext& ctx) {
    // A report whose probe was rolled back may arrive before its cancellation does.
    if (m.host >= speeds_.size()) return ctx.fault("replication server: a report outside a collection round");
    serve_arrival(ctx);
    speeds_[m.host] = m.speed;
    queued_[m.host] = m.queued;
    if (++reports_ < p().hosts) return;
    if (rounds_++ == 0) {
      const std::vector<std::uint64_t> shares = proportional_shares(p().tasks, speeds_);
      std::uint64_t first = 0;
      for (std::uint32_t h = 0; h < p().hosts; ++h) {
        ctx.send(shared_->first_host + h, serve(ctx.now()) - ctx.now() + to_host(h, p().input_bytes), kQueueTasks,
                 RangeMsg{first, shares[h]});
        first += shares[h];
      }
    } else {
      std::vector<Time> slot_end(p().hosts);
      for (std::uint32_t h = 0; h < p().hosts; ++h) slot_end[h] = serve(ctx.now());
      for (const Transfer& t : rebalance(queued_, speeds_))
        ctx.send(shared_->first_host + t.from, slot_end[t.from] - ctx.now() + to_host(t.from, p().message_bytes), kGive,
                 GiveMsg{t.to, t.count});
    }
    // The view is needed only within a round: a small state between rounds is cheap to save.
    std::vector<double>().swap(speeds_);
    std::vector<std::uint64_t>().swap(queued_);
    if (shared_->method->rescheduling)
      ctx.send(ctx.self(), std::max(round_started_ + p().reschedule_period, busy_until_) - ctx.now(), kRound);
  }

  struct FirstCopy {
    Time start;
    std::uint32_t host;
    bool operator==(const FirstCopy&) const = default;
  };

  const Shared* shared_;
  Collector* out_;
  Time busy_until_ = 0;
  std::uint64_t events_ = 0;
  std::int64_t wait_sum_ = 0;
  std::int64_t wait_max_ = 0;
  std::uint64_t waits_ = 0;
  WorkQueueReplication wqr_;
  std::map<std::uint64_t, FirstCopy> first_copy_;  // wqr: running tasks' first copy
  std::uint64_t done_ = 0;
  std::uint64_t rounds_ = 0;
  Time round_started_ = 0;
  std::uint32_t reports_ = 0;
  std::vector<double> speeds_;
  std::vector<std::uint64_t> queued_;
};

}  // namespace

const ParamTable<ReplicationParams>& replication_param_table() {
  using P = ReplicationParams;
  static const ParamTable<P> table =
      ParamTable<P>("replication")
          .choice("method", &P::method, method_names(), "scheduling method (policy/replication/scheduling.hpp)")
          .integer("hosts", &P::hosts, "resources, one LP each", {.min = 2})
          .integer("tasks", &P::tasks, "independent tasks of the application", {.min = 1})
          .number("grain", &P::grain, "work per task, floating-point operations", {.min = 1})
          .integer("wqr_max_replicas", &P::wqr_max_replicas, "wqr: replicas besides the original (4 = 5 copies)")
          .integer("max_replicas", &P::max_replicas, "proposed: replicas a task may have (condition 2)", {.min = 1})
          .integer("polling_list", &P::polling_list, "proposed: hosts in each polling list", {.min = 1})
          .flag("est_includes_transfer", &P::est_includes_transfer,
                "proposed: EST adds the input transfer time from the polled host")
          .number("server_rate", &P::server_rate, "events the central server serves per second", {.min = 1e-6})
          .seconds("reschedule_period_s", &P::reschedule_period, "adaptive: seconds from one round's start to the next",
                   {.min = 1e-3})
          .seconds("walk_step_s", &P::walk_step, "availability walk: seconds between updates", {.min = 1e-3})
          .number("walk_start", &P::walk_start, "availability walk: x0, percent (y0 = clamp(x0 + w0))",
                  {.min = 0, .max = 100})
          .number("omega_variance", &P::omega_variance, "availability walk: variance of w (omega_m)", {.min = 0})
          .number("input_bytes", &P::input_bytes, "task input sent with an assignment, bytes", {.min = 0})
          .number("message_bytes", &P::message_bytes, "poll, request, result and control messages, bytes", {.min = 0})
          .integer("domain_size", &P::domain_size, "stub nodes (hosts) per transit domain", {.min = 1})
          .integer("server_domain", &P::server_domain, "transit domain of the central server's stub")
          .number("stub_mbps", &P::stub_mbps, "stub-transit link bandwidth, Mbit/s", {.min = 1e-6})
          .number("transit_mbps", &P::transit_mbps, "transit-transit link bandwidth, Mbit/s", {.min = 1e-6})
          .seconds("hop_latency_s", &P::hop_latency, "latency of one link, seconds", {.min = 1e-9})
          .seconds("inter_domain_rtt_s", &P::inter_domain_rtt, "extra round trip between domains, seconds", {.min = 0});
  return table;
}

const TableSchema& task_table_schema() {
  static const TableSchema schema{
      "tasks",
      sizeof(TaskRow),
      {TRACEWARP_COLUMN(TaskRow, id, "", "task id"), TRACEWARP_COLUMN(TaskRow, grain, "flop", "work of the task"),
       TRACEWARP_COLUMN(TaskRow, original_host, "", "host that ran its first (original) copy"),
       TRACEWARP_COLUMN(TaskRow, winner_host, "", "host whose copy won"),
       TRACEWARP_COLUMN(TaskRow, start_s, "s", "start of the first copy"),
       TRACEWARP_COLUMN(TaskRow, end_s, "s", "finish of the winning copy"),
       TRACEWARP_COLUMN(TaskRow, replicas, "", "copies started besides the original"),
       TRACEWARP_COLUMN(TaskRow, cancelled, "", "other copies told to stop when it was won"),
       TRACEWARP_COLUMN(TaskRow, winner_is_replica, "", "1 if a replica won")},
      "replication: one row per task, by id"};
  return schema;
}

const TableSchema& copy_table_schema() {
  static const TableSchema schema{
      "copies",
      sizeof(CopyRow),
      {TRACEWARP_COLUMN(CopyRow, task, "", "task id"), TRACEWARP_COLUMN(CopyRow, host, "", "host that ran the copy"),
       TRACEWARP_COLUMN(CopyRow, replica, "", "1 if not the task's first copy"),
       TRACEWARP_COLUMN(CopyRow, start_s, "s", "start"), TRACEWARP_COLUMN(CopyRow, end_s, "s", "finish or stop"),
       TRACEWARP_COLUMN(CopyRow, finished, "", "1: computed to the end; 0: stopped by a cancellation")},
      "replication: one row per copy (original or replica) of every task, by (task, start, host)"};
  return schema;
}

const TableSchema& series_table_schema() {
  static const TableSchema schema{
      "series",
      sizeof(SeriesRow),
      {TRACEWARP_COLUMN(SeriesRow, time_s, "s", "start of the interval"),
       TRACEWARP_COLUMN(SeriesRow, busy_hosts, "hosts", "hosts running a copy, time average"),
       TRACEWARP_COLUMN(SeriesRow, queued_requests, "events", "events waiting at the server, time average")},
      "replication: time averages over each output.series_interval_s"};
  return schema;
}

ReplicationResult run_replication(const Communicator& comm, const ReplicationParams& params, EngineConfig engine) {
  const Method& method = find_method(params.method);
  Shared shared{params,
                &method,
                {params.walk_step, params.walk_start, params.omega_variance, params.seed},
                {params.domain_size, params.server_domain, params.stub_mbps * 1e6, params.transit_mbps * 1e6,
                 params.hop_latency, params.inter_domain_rtt}};
  shared.service = std::max<Time>(1, from_seconds(1.0 / params.server_rate));
  Collector out;
  out.buckets = model::TickBuckets<2>(params.interval);
  Simulation sim(comm, engine);
  // The network's shortest delay: two hops inside one domain (Network::delay_between_domains).
  sim.declare_lookahead(2 * shared.network.hop_latency);
  shared.server = sim.add_lps<ServerLp>({.name = "replication-server", .checkpoint_interval = 1024}, 1,
                                        [&](LpId) { return ServerLp(&shared, &out); })
                      .first;
  shared.first_host =
      sim.add_lps<HostLp>({.name = "replication-host"}, params.hosts,
                          [&](LpId id) { return HostLp(&shared, &out, static_cast<std::uint32_t>(id - 1)); })
          .first;
  sim.checkpoint_also(out);
  ReplicationResult r;
  r.stats = sim.run();
  r.tasks = model::gather_rows(comm, std::move(out.tasks));
  std::sort(r.tasks.begin(), r.tasks.end(), [](const TaskRow& a, const TaskRow& b) { return a.id < b.id; });
  r.copies = model::gather_rows(comm, std::move(out.copies));
  std::sort(r.copies.begin(), r.copies.end(), [](const CopyRow& a, const CopyRow& b) {
    return std::tie(a.task, a.start_s, a.host) < std::tie(b.task, b.start_s, b.host);
  });
  for (const auto& [bucket, ticks] : out.buckets.gathered(comm))
    r.series.push_back({static_cast<double>(bucket) * to_seconds(params.interval), out.buckets.average(ticks, 0),
                        out.buckets.average(ticks, 1)});
  // Reductions over all ranks, so that every rank holds the same summary numbers.
  std::uint64_t host_events = 0, maxima[2] = {0, static_cast<std::uint64_t>(out.wait_max)};
  for (const std::uint64_t e : out.host_events) host_events += e, maxima[0] = std::max(maxima[0], e);
  std::uint64_t sums[] = {out.server_events,
                          static_cast<std::uint64_t>(out.wait_sum),
                          out.waits,
                          out.hosts_stopped,
                          out.replicas_not_started,
                          host_events};
  comm.sum(sums);
  comm.max(maxima);
  r.host_events_max = maxima[0];
  r.host_events_mean = static_cast<double>(sums[5]) / params.hosts;
  const std::uint64_t wait_max = maxima[1];
  r.server_events = sums[0];
  r.queue_delay_mean_s = sums[2] > 0 ? to_seconds(static_cast<Time>(sums[1])) / static_cast<double>(sums[2]) : 0;
  r.queue_delay_max_s = to_seconds(static_cast<Time>(wait_max));
  r.hosts_stopped = sums[3];
  r.replicas_accepted_not_started = sums[4];
  // The ideal bound's denominator: every host's peak (drawn as the hosts draw it).
  for (std::uint32_t h = 0; h < params.hosts; ++h) {
    RandomStream rng(params.seed, h);
    r.total_peak_flops += draw_host_traits(rng).peak_flops;
  }
  return r;
}

Attributes replication_summary(const ReplicationResult& r, const ReplicationParams& p) {
  double completion = 0;
  std::uint64_t replicas = 0, won = 0, cancelled = 0;
  for (const TaskRow& t : r.tasks) {
    completion = std::max(completion, t.end_s);
    replicas += t.replicas;
    won += t.winner_is_replica;
    cancelled += t.cancelled;
  }
  const double ideal = static_cast<double>(p.tasks) * p.grain / r.total_peak_flops;
  return {{"tasks", static_cast<std::int64_t>(r.tasks.size())},
          {"completion_s", completion},
          {"ideal_bound_s", ideal},
          {"server_events", static_cast<std::int64_t>(r.server_events)},
          {"queue_delay_mean_s", r.queue_delay_mean_s},
          {"queue_delay_max_s", r.queue_delay_max_s},
          {"host_events_max", static_cast<std::int64_t>(r.host_events_max)},
          {"host_events_mean", r.host_events_mean},
          {"replicas_started", static_cast<std::int64_t>(replicas)},
          {"replicas_won", static_cast<std::int64_t>(won)},
          {"copies_cancelled", static_cast<std::int64_t>(cancelled)},
          {"replication_success", replicas > 0 ? static_cast<double>(won) / static_cast<double>(replicas) : 0.0},
          {"hosts_stopped", static_cast<std::int64_t>(r.hosts_stopped)}};
}

}  // namespace tracewarp::replication
