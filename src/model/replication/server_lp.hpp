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
      case kMeasurement:
        return measurement(ev.as<ReportMsg>(), ctx);
      case kDone:
        if (++done_ == p().tasks && shared_->monitoring) stop_monitors(ctx);
        return;
      case kRound:
        if (done_ >= p().tasks) return;
        return shared_->monitoring ? rebalance_from_view(ctx) : start_round(ctx);
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
    out_->measurements = measurements_;
    out_->view_age_sum = view_age_sum_;
    out_->view_ages = view_ages_;
    out_->view_age_max = view_age_max_;
  }
  bool operator==(const ServerLp&) const = default;
  TRACEWARP_PERSIST(busy_until_, events_, wait_sum_, wait_max_, waits_, wqr_, first_copy_, done_, rounds_,
                    round_started_, reports_, speeds_, queued_, measured_at_, measurements_, view_age_sum_, view_ages_,
                    view_age_max_)

 private:
  const ReplicationParams& p() const { return shared_->params; }
  Time to_host(std::uint64_t h, double bytes) const { return shared_->network.host_to_server(h, bytes); }

  // One event of service; returns when it ends (its response leaves then).
  Time serve(Time now) {
    ++events_;
    return occupy(now, shared_->service);
  }
  Time occupy(Time now, Time service) {
    busy_until_ = std::max(now, busy_until_) + service;
    return busy_until_;
  }
  // What a message brings waits in the queue first: its wait is measured.
  void queue_arrival(EventContext& ctx) {
    const Time begin = std::max(ctx.now(), busy_until_);
    const Time wait = begin - ctx.now();
    wait_sum_.add(wait);
    wait_max_ = std::max(wait_max_, wait);
    ++waits_;
    if (wait > 0) ctx.emit(kWaitRecord, Interval{ctx.now(), begin});
  }
  Time serve_arrival(EventContext& ctx) {
    queue_arrival(ctx);
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
    measured_at_.assign(p().hosts, 0);
    for (std::uint32_t h = 0; h < p().hosts; ++h)
      ctx.send(shared_->first_host + h, to_host(h, p().message_bytes), kProbe);
  }

  void report(const ReportMsg& m, EventContext& ctx) {
    // A report whose probe was rolled back may arrive before its cancellation does.
    if (m.host >= speeds_.size()) return ctx.fault("replication server: a report outside a collection round");
    serve_arrival(ctx);
    see(m);
    if (++reports_ < p().hosts) return;
    if (rounds_++ == 0) {
      count_view_ages(ctx.now());
      const std::vector<std::uint64_t> shares = proportional_shares(p().tasks, speeds_);
      std::uint64_t first = 0;
      for (std::uint32_t h = 0; h < p().hosts; ++h) {
        ctx.send(shared_->first_host + h, serve(ctx.now()) - ctx.now() + to_host(h, p().input_bytes), kQueueTasks,
                 RangeMsg{first, shares[h]});
        first += shares[h];
      }
      queued_.assign(shares.begin(), shares.end());  // what the monitored view starts from
    } else {
      send_rebalancing(ctx);
    }
    end_round(ctx);
  }

  // Adaptive's monitoring: a host's latest measurement replaces what the view held of it.
  void measurement(const ReportMsg& m, EventContext& ctx) {
    queue_arrival(ctx);
    occupy(ctx.now(), shared_->measurement_service);
    ++measurements_;
    if (m.host >= speeds_.size()) return ctx.fault("replication server: a measurement before the static round");
    if (m.measured_at >= measured_at_[m.host]) see(m);
  }
  void see(const ReportMsg& m) {
    speeds_[m.host] = m.speed;
    queued_[m.host] = m.queued;
    measured_at_[m.host] = m.measured_at;
  }

  // A monitored round: no collection, the view as it stands.
  void rebalance_from_view(EventContext& ctx) {
    round_started_ = ctx.now();
    ++rounds_;
    send_rebalancing(ctx);
    end_round(ctx);
  }

  // One event per host for its rebalancing instructions; the transfers ordered update the view.
  void send_rebalancing(EventContext& ctx) {
    count_view_ages(ctx.now());
    std::vector<Time> slot_end(p().hosts);
    for (std::uint32_t h = 0; h < p().hosts; ++h) slot_end[h] = serve(ctx.now());
    for (const Transfer& t : rebalance(queued_, speeds_)) {
      ctx.send(shared_->first_host + t.from, slot_end[t.from] - ctx.now() + to_host(t.from, p().message_bytes), kGive,
               GiveMsg{t.to, t.count});
      queued_[t.from] -= t.count;
      queued_[t.to] += t.count;
    }
  }

  // The ages when the decision is made: once the server has served what came before it (FIFO),
  // so a view waits behind a backlog of measurements.
  void count_view_ages(Time arrival) {
    const Time now = std::max(arrival, busy_until_);
    for (const Time at : measured_at_) {
      view_age_sum_.add(now - at);
      view_age_max_ = std::max(view_age_max_, now - at);
    }
    view_ages_ += measured_at_.size();
  }

  void end_round(EventContext& ctx) {
    // Without monitoring the view is needed only within a round: a small state between rounds
    // is cheap to save.
    if (!shared_->monitoring) {
      std::vector<double>().swap(speeds_);
      std::vector<std::uint64_t>().swap(queued_);
      std::vector<Time>().swap(measured_at_);
    }
    if (shared_->method->rescheduling)
      ctx.send(ctx.self(), std::max(round_started_ + p().reschedule_period, busy_until_) - ctx.now(), kRound);
  }

  void stop_monitors(EventContext& ctx) {
    for (std::uint32_t h = 0; h < p().hosts; ++h)
      ctx.send(shared_->first_host + h, to_host(h, p().message_bytes), kEnd);
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
  std::vector<Time> measured_at_;
  std::uint64_t measurements_ = 0;
  TimeSum view_age_sum_;
  std::uint64_t view_ages_ = 0;
  std::int64_t view_age_max_ = 0;
};

}  // namespace tracewarp::replication::detail
