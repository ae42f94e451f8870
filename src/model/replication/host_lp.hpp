// The host LP of the replication model (internal to src/model/replication/): a volatile
// resource that runs the copies it is given at the speed its availability walk allows.
#pragma once

#include "internal.hpp"

namespace tracewarp::replication::detail {

class HostLp {
 public:
  HostLp(const Shared* shared, Collector* out, std::uint32_t host) : shared_(shared), out_(out), host_(host) {
    const ReplicationParams& p = shared->params;
    RandomStream rng(p.context.seed, host);
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
    // Monitors measure all through the run, staggered over the first interval so that the
    // server is not sent every host's measurement at once.
    if (shared_->monitoring) {
      const Time interval = p().monitor_interval;
      ctx.send(ctx.self(), std::max<Time>(1, interval / p().hosts * (host_ + 1)), kMeasure);
    }
  }

  void on_event(const Event& ev, EventContext& ctx) {
    keep_for_reverse(ctx);
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
        return ctx.send(shared_->server, net_to_server(p().message_bytes), kReport, state(ctx.now()));
      case kMeasure:
        return measure(ctx);
      case kEnd:
        monitor_stopped_ = true;
        return;
      case kPoll:
        return polled(ev.as<PollMsg>(), ctx);
      case kPollReply:
        return poll_reply(ev.as<PollReplyMsg>(), ctx);
      default:
        throw InvariantError("replication host: unexpected event kind " + std::to_string(ev.kind()));
    }
  }

  // Reverse computation (replication.reverse): back to what keep_for_reverse kept.
  void on_reverse(const Event&, const ReverseContext& ctx) {
    const std::span<const std::byte> kept = ctx.kept_bytes();
    Undo u;
    std::memcpy(&u, kept.data(), sizeof u);
    copy_ = Copy{u.flags[0] != 0,
                 u.flags[1] != 0,
                 u.words[0],
                 static_cast<std::uint32_t>(u.words[1]),
                 static_cast<std::uint32_t>(u.words[2]),
                 static_cast<std::uint32_t>(u.words[3]),
                 static_cast<Time>(u.words[4]),
                 static_cast<Time>(u.words[5]),
                 u.remaining};
    avail_.set_position({static_cast<std::int64_t>(u.words[6]), u.walk_x, u.walk_y});
    token_ = u.words[7];
    cancelled_early_ = u.words[8];
    events_ = u.words[9];
    replicas_not_started_ = u.words[10];
    polls_.set_position({u.words[11], u.words[12]});
    assigned_ = u.flags[2] != 0;
    poll_in_flight_ = u.flags[3] != 0;
    monitor_stopped_ = u.flags[4] != 0;
    queue_.resize((kept.size() - sizeof u) / sizeof(RangeMsg));
    if (!queue_.empty()) std::memcpy(queue_.data(), kept.data() + sizeof u, queue_.size() * sizeof(RangeMsg));
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
                    replicas_not_started_, monitor_stopped_)

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

  // What an event may change, kept before it runs for on_reverse: every member but the polling
  // list's targets (fixed) and the queue (kept after it, range by range). No padding: the kept
  // bytes are compared by the rollback check.
  struct Undo {
    std::uint64_t words[13];
    double remaining, walk_x, walk_y;
    std::uint64_t flags[5];
  };
  void keep_for_reverse(EventContext& ctx) const {
    if (!ctx.keeping_for_reverse()) return;
    Undo u;
    const Availability::Position walk = avail_.position();
    const std::array<std::uint64_t, 2> polls = polls_.position();
    u.words[0] = copy_.task;
    u.words[1] = copy_.owner;
    u.words[2] = copy_.replica_host;
    u.words[3] = copy_.replicas;
    u.words[4] = static_cast<std::uint64_t>(copy_.start);
    u.words[5] = static_cast<std::uint64_t>(copy_.progress_at);
    u.words[6] = static_cast<std::uint64_t>(walk.step);
    u.words[7] = token_;
    u.words[8] = cancelled_early_;
    u.words[9] = events_;
    u.words[10] = replicas_not_started_;
    u.words[11] = polls[0];
    u.words[12] = polls[1];
    u.remaining = copy_.remaining;
    u.walk_x = walk.x;
    u.walk_y = walk.y;
    u.flags[0] = copy_.active;
    u.flags[1] = copy_.replica;
    u.flags[2] = assigned_;
    u.flags[3] = poll_in_flight_;
    u.flags[4] = monitor_stopped_;
    constexpr std::size_t kInline = 8;  // ranges kept without a heap buffer
    std::array<std::byte, sizeof(Undo) + kInline * sizeof(RangeMsg)> local;
    std::vector<std::byte> large;
    const std::size_t bytes = sizeof u + queue_.size() * sizeof(RangeMsg);
    std::byte* to = local.data();
    if (queue_.size() > kInline) {
      large.resize(bytes);
      to = large.data();
    }
    std::memcpy(to, &u, sizeof u);
    if (!queue_.empty()) std::memcpy(to + sizeof u, queue_.data(), queue_.size() * sizeof(RangeMsg));
    ctx.keep_bytes_for_reverse(to, static_cast<std::uint32_t>(bytes));
  }

  const ReplicationParams& p() const { return shared_->params; }
  Time net_to_server(double bytes) const { return shared_->network.host_to_server(host_, bytes); }
  Time net_to_host(std::uint64_t h, double bytes) const { return shared_->network.host_to_host(host_, h, bytes); }
  LpId lp_of(std::uint64_t h) const { return shared_->first_host + h; }
  std::uint64_t queued() const {
    std::uint64_t n = 0;
    for (const RangeMsg& r : queue_) n += r.count;
    return n;
  }

  ReportMsg state(Time now) { return ReportMsg{host_, avail_.speed_at(now), queued(), now}; }

  // Adaptive's monitor: the speed now and the queue, sent to the server, every interval until
  // the application is done.
  void measure(EventContext& ctx) {
    if (monitor_stopped_) return;
    ctx.send(shared_->server, p().monitor_lag + net_to_server(p().monitor_bytes), kMeasurement, state(ctx.now()));
    ctx.send(ctx.self(), p().monitor_interval, kMeasure);
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
  bool monitor_stopped_ = false;
};

}  // namespace tracewarp::replication::detail
