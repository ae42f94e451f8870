// The server LP of the replication model (internal to src/model/replication/): the central
// scheduler, serving one event at a time at its service rate.
#pragma once

#include "internal.hpp"

namespace tracewarp::replication::detail {

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
    wait_sum_.add(wait);
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
  TimeSum wait_sum_;  // 10^7 waits of hours overflow a Time
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

}  // namespace tracewarp::replication::detail
