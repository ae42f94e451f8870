// The worker LP of the MapReduce model (internal to src/model/mapreduce/): a node's containers,
// its cores shared exactly among the attempts it runs. An attempt is off the cores while it
// waits for its container and while an abnormal one sleeps between its batches of records; the
// others share the cores meanwhile. Its start-up's CPU part (JVM start) is work on the shared
// cores before its first record, and a killed attempt leaves clean-up work on them.
#pragma once

#include <limits>

#include "internal.hpp"

namespace tracewarp::mapreduce::detail {

class WorkerLp {
  // A killed attempt's clean-up runs as work of its own under this id (attempt ids count up from 0).
  static constexpr std::uint64_t kCleanup = ~std::uint64_t{0};

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
        const std::uint32_t batches = m.sleep_s > 0 ? shared_->params.abnormal_batches : 1;
        // The start-up's CPU part comes first in the remaining work: the first batch ends after it.
        running_.push_back({m.attempt, m.work + shared_->params.startup_core_s, m.work,
                            ctx.now() + shared_->params.startup, batches, batches, from_seconds(m.sleep_s / batches),
                            false});
        if (!reporting_) {
          reporting_ = true;
          ctx.send(ctx.self(), shared_->params.progress_report, kReport);
        }
        break;
      }
      case kKill: {
        const std::uint64_t attempt = ev.as<AttemptMsg>().attempt;
        // A kill that crossed the attempt's end finds nothing to clean up.
        if (std::erase_if(running_, [&](const Running& r) { return r.attempt == attempt && !r.cleanup(); }) > 0 &&
            shared_->params.kill_cleanup_core_s > 0) {
          const double work = shared_->params.kill_cleanup_core_s;
          running_.push_back({kCleanup, work, work, ctx.now(), 1, 1, 0, false});
        }
        break;
      }
      case kCores:
        cores_ = shared_->params.cores_after;
        break;
      case kComplete:
        if (ev.as<TokenMsg>().token != token_) return;  // superseded by a later change
        finish_due(ctx);
        break;
      case kReport:
        if (std::all_of(running_.begin(), running_.end(), [](const Running& r) { return r.cleanup(); })) {
          reporting_ = false;
          return;
        }
        for (const Running& r : running_)
          if (!r.cleanup())
            ctx.send(shared_->master, shared_->params.latency, kProgress,
                     AttemptMsg{r.attempt, r.progress(ctx.now()), 0});
        ctx.send(ctx.self(), shared_->params.progress_report, kReport);
        return;
      default:
        throw InvariantError("mapreduce worker: unexpected event kind " + std::to_string(ev.kind()));
    }
    reschedule(ctx);
  }
  bool operator==(const WorkerLp&) const = default;
  TRACEWARP_PERSIST(cores_, last_, running_, token_, reporting_)

 private:
  struct Running {
    std::uint64_t attempt;
    double remaining;  // core-seconds
    double total;
    Time working_from;  // off the cores (starting up, or asleep) until then
    std::uint32_t batches;
    std::uint32_t batches_left;  // batches whose sleep has not ended
    Time batch_sleep;            // 0 for a normal attempt
    bool asleep;
    bool operator==(const Running&) const = default;

    bool cleanup() const { return attempt == kCleanup; }
    double batch_work() const { return total / batches; }
    // The work left when the current batch's computing is done.
    double target() const { return batch_work() * (batches_left - 1); }
    bool sleeps() const { return batch_sleep > 0; }
    // Records done: work and sleep count alike (at every batch's end both fractions agree).
    double progress(Time t) const {
      const double worked = std::max(0.0, 1 - remaining / total);  // 0 during the start-up's CPU part
      if (!sleeps()) return worked;
      const double slept_batches =
          (batches - batches_left) +
          (asleep ? 1 - static_cast<double>(working_from - t) / static_cast<double>(batch_sleep) : 0.0);
      return (worked + slept_batches / batches) / 2;
    }
  };
  // Attempts on the cores at `t` (past their start-up, awake): they alone share the cores.
  std::size_t working(Time t) const {
    std::size_t n = 0;
    for (const Running& r : running_) n += r.working_from <= t;
    return n;
  }
  // Work units per second of each working attempt.
  double rate() const {
    const std::size_t n = working(last_);
    return n == 0 ? 0 : std::min(1.0, cores_ / static_cast<double>(n));
  }

  // Every start-up's and sleep's end is an event (reschedule), so the working set is the same
  // all along (last_, now].
  void advance(Time now) {
    const double done = rate() * to_seconds(now - last_);
    for (Running& r : running_)
      if (r.working_from <= last_) r.remaining -= done;
    last_ = now;
  }
  // Batches whose computing or sleep ends now move on; finished attempts are reported. Attempts
  // within rounding of an end get there together, in launch order.
  void finish_due(EventContext& ctx) {
    constexpr double kDone = 1e-6;
    const Time now = ctx.now();
    const auto finished = [&](Running& r) {
      if (r.working_from > now) return false;
      if (r.asleep) {  // its batch's sleep is over
        r.asleep = false;
        return --r.batches_left == 0;
      }
      if (r.remaining > r.target() + kDone) return false;
      r.remaining = r.target();
      if (!r.sleeps()) return --r.batches_left == 0;
      r.asleep = true;
      r.working_from = now + r.batch_sleep;
      return false;
    };
    for (Running& r : running_)
      if (finished(r) && !r.cleanup())
        ctx.send(shared_->master, shared_->params.latency, kAttemptDone, AttemptMsg{r.attempt, 1, now});
    std::erase_if(running_, [](const Running& r) { return r.batches_left == 0; });
  }
  // The next end of a batch's computing under the current sharing, or the next start-up's or
  // sleep's end, whichever is first; a token makes earlier predictions stale.
  void reschedule(EventContext& ctx) {
    ++token_;
    Time next = kTimeInfinity;
    for (const Running& r : running_)
      if (r.working_from > last_) next = std::min(next, r.working_from - last_);
    if (rate() > 0) {
      double least = std::numeric_limits<double>::infinity();
      for (const Running& r : running_)
        if (r.working_from <= last_) least = std::min(least, r.remaining - r.target());
      next = std::min(next,
                      std::max<Time>(1, static_cast<Time>(std::ceil(std::max(0.0, least) / rate() * kTicksPerSecond))));
    }
    if (next == kTimeInfinity) return;
    ctx.send(ctx.self(), next, kComplete, TokenMsg{token_});
  }

  const Shared* shared_;
  std::uint32_t node_;
  double cores_;
  Time last_ = 0;
  std::vector<Running> running_;
  std::uint64_t token_ = 0;
  bool reporting_ = false;  // a progress report is due (the node runs attempts)
};

}  // namespace tracewarp::mapreduce::detail
