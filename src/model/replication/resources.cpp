#include "tracewarp/model/replication/resources.hpp"

#include <Random123/philox.h>

#include <numbers>

namespace tracewarp::replication {

Availability::Level Availability::level(std::int64_t n, double previous_x) const {
  using Philox = r123::Philox4x32;
  const auto step = static_cast<std::uint64_t>(n);
  // Stream "walk" of (seed, host): the top key word is tagged so that it never meets the
  // RandomStream of the same seed and LP.
  const Philox::ctr_type ctr = {{static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(step >> 32),
                                 static_cast<std::uint32_t>(host_), static_cast<std::uint32_t>(host_ >> 32)}};
  const Philox::key_type key = {
      {static_cast<std::uint32_t>(walk_->seed), static_cast<std::uint32_t>(walk_->seed >> 32) ^ 0x57a1c0deu}};
  const Philox::ctr_type r = Philox()(ctr, key);
  // Uniforms in (0, 1] and [0, 1) from 53 bits each; Box-Muller gives two independent normals.
  const auto bits = [](std::uint32_t hi, std::uint32_t lo) { return ((std::uint64_t{hi} << 32) | lo) >> 11; };
  const double u1 = (static_cast<double>(bits(r[0], r[1])) + 1) * 0x1.0p-53;
  const double u2 = static_cast<double>(bits(r[2], r[3])) * 0x1.0p-53;
  const double radius = std::sqrt(-2 * std::log(u1));
  const double u = radius * std::cos(2 * std::numbers::pi * u2), w = radius * std::sin(2 * std::numbers::pi * u2);
  const double x = n == 0 ? previous_x : std::clamp(previous_x + upsilon_sd_ * u, 0.0, 100.0);
  return {x, std::clamp(x + std::sqrt(walk_->omega_var) * w, 0.0, 100.0)};
}

double Availability::work_between(Time t0, Time t1) {
  double work = 0;
  for (Time t = t0; t < t1;) {
    advance_to(t / walk_->step);
    const Time end = std::min(t1, (step_ + 1) * walk_->step);
    work += peak_ * y_ / 100.0 * to_seconds(end - t);
    t = end;
  }
  advance_to(t1 / walk_->step);
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
  // A walk stuck at zero availability for ~30 years of simulated time is a model error.
  for (std::int64_t guard = 0; guard < 100'000'000; ++guard) {
    const Time end = (n + 1) * walk_->step;
    const double speed = peak_ * l.y / 100.0;
    const double can = speed * to_seconds(end - t);
    if (speed > 0 && can >= work)
      return t + std::max<Time>(1, static_cast<Time>(std::ceil(work / speed * kTicksPerSecond)));
    work -= can;
    t = end;
    l = level(++n, l.x);
  }
  return kTimeInfinity;
}

}  // namespace tracewarp::replication
