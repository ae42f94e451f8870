#include "tracewarp/model/replication/resources.hpp"

#include "tracewarp/model/replication/walk_draws.hpp"

namespace tracewarp::replication {

Availability::Availability(const WalkParams* walk, std::uint64_t host, double peak_flops, double upsilon_var)
    : walk_(walk), host_(host), peak_(peak_flops), upsilon_sd_(std::sqrt(upsilon_var)) {
  StepNormals first;
  draw_steps({walk->seed, host}, 0, first);
  x_ = walk->start;  // x_0 is the start; step 0's u is not used
  y_ = std::clamp(x_ + walk->omega_sd() * first.w[0], 0.0, 100.0);
}

double Availability::work_between(Time t0, Time t1) {
  advance_to(t0 / walk_->step);
  const auto work_until = [&](Time from, std::int64_t step, double y) {
    const Time end = std::min(t1, (step + 1) * walk_->step);
    return end > from ? peak_ * y / 100.0 * to_seconds(end - from) : 0.0;
  };
  double work = work_until(t0, step_, y_);
  walk_on_to(t1 / walk_->step, [&](std::int64_t step, double y) { work += work_until(step * walk_->step, step, y); });
  return work;
}

Time Availability::finish_time(Time t0, double work) {
  // The walk moves on to t0 for good: a host that waited long in the server queue would
  // otherwise draw the steps of its wait here, and all of them again when its copy ends (WQR at
  // 10^5 hosts drew 1.8 steps per host-step; now 1.03).
  advance_to(t0 / walk_->step);
  std::int64_t n = step_;
  Level l{x_, y_};
  Time t = t0;
  const WalkKey key{walk_->seed, host_};
  const double omega_sd = walk_->omega_sd();
  StepNormals ahead;
  int next = kWalkBatch;  // the index in `ahead` of step n + 1; none drawn yet
  // A walk stuck at zero availability for ~30 years of simulated time is a model error.
  for (std::int64_t guard = 0; guard < 100'000'000; ++guard) {
    const Time end = (n + 1) * walk_->step;
    const double speed = peak_ * l.y / 100.0;
    const double can = speed * to_seconds(end - t);
    if (speed > 0 && can >= work)
      return t + std::max<Time>(1, static_cast<Time>(std::ceil(work / speed * kTicksPerSecond)));
    work -= can;
    t = end;
    if (next == kWalkBatch) {
      draw_steps(key, static_cast<std::uint64_t>(n + 1), ahead);
      next = 0;
    }
    l = next_level(l.x, ahead.u[next], ahead.w[next], omega_sd);
    ++next;
    ++n;
  }
  return kTimeInfinity;
}

}  // namespace tracewarp::replication
