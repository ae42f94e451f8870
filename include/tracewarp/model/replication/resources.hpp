// The resources of the replication study (docs/studies.md#replication): a host's available speed and the
// transit-stub network, as plain values the model's LPs hold.
//
// Availability. Step n covers [n * step, (n + 1) * step). x_0 = walk_start; for n >= 1
// x_n = clamp(x_{n-1} + u_n, 0, 100), and y_n = clamp(x_n + w_n, 0, 100) for every n, with
// u_n ~ N(0, upsilon_var) and w_n ~ N(0, omega_var) (variances). The host delivers
// peak * y_n / 100 during step n. The normals of step n are a pure function of (seed, host, n)
// (walk_draws.hpp): nothing is drawn, and no event is spent, for steps nobody asks about. A host
// only remembers the step it last reached, so walking on is O(steps crossed) and never goes
// backwards; it draws eight steps at a time, and at 10^5 hosts that is most of the model's time.
//
// Network (our reading; no contention: links are not shared, a message's delay depends only
// on its size and its end points). Hosts sit in transit domains of `domain_size` stubs
// (host h in domain h / domain_size); the server is one more stub in `server_domain`.
// Within a domain a message crosses stub-transit-stub (2 hops), between domains
// stub-transit-transit-stub (3 hops) plus half the extra inter-domain round trip; its delay is
// hops * hop_latency + size / bottleneck bandwidth (the 100 Mbit/s stub links).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tracewarp/core/persist.hpp"
#include "tracewarp/core/time.hpp"
#include "tracewarp/model/replication/walk_draws.hpp"

namespace tracewarp::replication {

struct WalkParams {
  Time step = 10 * kTicksPerSecond;
  double start = 50;     // x_0, percent
  double omega_var = 1;  // variance of w
  std::uint64_t seed = 1;
  double omega_sd() const { return std::sqrt(omega_var); }
  bool operator==(const WalkParams&) const = default;
};

class Availability {
 public:
  Availability() = default;
  Availability(const WalkParams* walk, std::uint64_t host, double peak_flops, double upsilon_var);

  double peak() const { return peak_; }
  // Speed (flop/s) at time t >= the last time asked about.
  double speed_at(Time t) {
    advance_to(t / walk_->step);
    return peak_ * y_ / 100.0;
  }
  // Work (flop) delivered over [t0, t1], t0 >= the last time asked about; moves on to t1.
  double work_between(Time t0, Time t1);
  // The first tick by which `work` flop are delivered from t0 on, t0 >= the last time asked about;
  // moves on to t0, and no further (what it looks at beyond t0 is drawn again as the host walks on).
  Time finish_time(Time t0, double work);

  // Where the walk stands (what asking about later times changes), for reverse computation.
  struct Position {
    std::int64_t step;
    double x, y;
  };
  Position position() const { return {step_, x_, y_}; }
  void set_position(const Position& p) {
    step_ = p.step;
    x_ = p.x;
    y_ = p.y;
  }

  bool operator==(const Availability&) const = default;
  TRACEWARP_PERSIST(step_, x_, y_)  // the rest is set by the constructor

 private:
  // x and y of one step.
  struct Level {
    double x, y;
  };
  // The levels of the step after one whose x is previous_x, from that step's normals (omega_sd is
  // walk_->omega_sd(), taken once per walk on rather than kept in every host).
  Level next_level(double previous_x, double u, double w, double omega_sd) const {
    const double x = std::clamp(previous_x + upsilon_sd_ * u, 0.0, 100.0);
    return {x, std::clamp(x + omega_sd * w, 0.0, 100.0)};
  }
  void advance_to(std::int64_t n) {
    if (step_ < n) walk_on_to(n, [](std::int64_t, double) {});
  }
  // Walks on to step n, kWalkBatch steps drawn at a time, and calls visit(step, y) at each step.
  template <class Visit>
  void walk_on_to(std::int64_t n, Visit visit);

  const WalkParams* walk_ = nullptr;
  std::uint64_t host_ = 0;
  double peak_ = 0;
  double upsilon_sd_ = 0;
  std::int64_t step_ = 0;  // the step x_ and y_ belong to
  double x_ = 0;
  double y_ = 0;
};

template <class Visit>
void Availability::walk_on_to(std::int64_t n, Visit visit) {
  const WalkKey key{walk_->seed, host_};
  const double omega_sd = walk_->omega_sd();
  StepNormals drawn;
  while (step_ < n) {
    draw_steps(key, static_cast<std::uint64_t>(step_ + 1), drawn);
    const auto count = static_cast<int>(std::min<std::int64_t>(kWalkBatch, n - step_));
    for (int i = 0; i < count; ++i) {
      const Level l = next_level(x_, drawn.u[i], drawn.w[i], omega_sd);
      x_ = l.x;
      y_ = l.y;
      visit(step_ + 1 + i, y_);
    }
    step_ += count;
  }
}

struct Network {
  std::uint32_t domain_size = 50;
  std::uint32_t server_domain = 0;
  double stub_bps = 100e6;
  double transit_bps = 1e9;
  Time hop_latency = kTicksPerSecond / 1000;
  Time inter_domain_rtt = kTicksPerSecond / 100;

  std::uint64_t domain_of(std::uint64_t host) const { return host / domain_size; }
  Time delay_between_domains(std::uint64_t a, std::uint64_t b, double bytes) const {
    const bool same = a == b;
    const double bottleneck = same ? stub_bps : std::min(stub_bps, transit_bps);
    return (same ? 2 : 3) * hop_latency + (same ? 0 : inter_domain_rtt / 2) + from_seconds(bytes * 8 / bottleneck);
  }
  Time host_to_host(std::uint64_t a, std::uint64_t b, double bytes) const {
    return delay_between_domains(domain_of(a), domain_of(b), bytes);
  }
  Time host_to_server(std::uint64_t host, double bytes) const {
    return delay_between_domains(domain_of(host), server_domain, bytes);
  }
  bool operator==(const Network&) const = default;
};

}  // namespace tracewarp::replication
