// The replication study's schedulers and resources as plain classes, checked by hand.
#include <catch2/catch.hpp>

#include <Random123/philox.h>

#include <bit>
#include <cmath>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/portable_math.hpp"
#include "tracewarp/model/replication/resources.hpp"
#include "tracewarp/model/replication/walk_draws.hpp"
#include "tracewarp/policy/replication/scheduling.hpp"

using namespace tracewarp;
using namespace tracewarp::replication;

namespace {
Time ms(std::int64_t n) { return n * kTicksPerSecond / 1000; }
}  // namespace

TEST_CASE("availability: progress is integrated exactly over the walk's piecewise-constant speeds",
          "[unit][replication]") {
  const WalkParams walk{from_seconds(std::int64_t{10}), 50, 1, 7};
  Availability probe(&walk, 3, 800e6, 9.87);
  const double s0 = probe.speed_at(from_seconds(std::int64_t{0}));
  const double s1 = probe.speed_at(from_seconds(std::int64_t{10}));
  const double s2 = probe.speed_at(from_seconds(std::int64_t{20}));
  REQUIRE(s0 != s1);  // the walk really moves
  REQUIRE(s1 != s2);

  // 10 s at s0, 10 s at s1, then 5 s at s2: the work ends at exactly 25 s (to the tick above).
  Availability fresh(&walk, 3, 800e6, 9.87);
  const double work = 10 * s0 + 10 * s1 + 5 * s2;
  const Time finish = fresh.finish_time(0, work);
  CHECK(std::llabs(finish - from_seconds(std::int64_t{25})) <= 1);

  // The same integral, queried in pieces across the step boundaries.
  Availability walker(&walk, 3, 800e6, 9.87);
  const double a = walker.work_between(from_seconds(std::int64_t{3}), from_seconds(std::int64_t{12}));
  const double b = walker.work_between(from_seconds(std::int64_t{12}), from_seconds(std::int64_t{27}));
  CHECK(a == Approx(7 * s0 + 2 * s1).epsilon(1e-12));
  CHECK(b == Approx(8 * s1 + 7 * s2).epsilon(1e-12));
  // Started late, the remaining work takes the later steps' speeds.
  CHECK(std::llabs(fresh.finish_time(from_seconds(std::int64_t{15}), 5 * s1 + 10 * s2) -
                   from_seconds(std::int64_t{30})) <= 1);
}

TEST_CASE("availability: a finish time moves the walk on to its start and looks ahead without moving",
          "[unit][replication]") {
  // A host that waited 700 s, ran a copy, and walks on: the same speeds, work and finish times as
  // a walk that never looked ahead.
  const WalkParams walk{from_seconds(std::int64_t{10}), 50, 1, 11};
  Availability memo(&walk, 5, 500e6, 4.0), plain(&walk, 5, 500e6, 4.0);
  const Time start = from_seconds(std::int64_t{700});
  const Time finish = memo.finish_time(start, 30e9);  // looks ahead of the wait's end
  for (Time t = start; t < finish; t += from_seconds(std::int64_t{7})) REQUIRE(memo.speed_at(t) == plain.speed_at(t));
  REQUIRE(memo.work_between(finish, finish + from_seconds(std::int64_t{500})) ==
          plain.work_between(finish, finish + from_seconds(std::int64_t{500})));
  REQUIRE(memo == plain);  // at the same step with the same levels
  Availability again(&walk, 5, 500e6, 4.0);
  REQUIRE(again.finish_time(start, 30e9) == finish);
}

TEST_CASE("availability: the walk is clamped to [0, 100] percent of the peak", "[unit][replication]") {
  const WalkParams walk{from_seconds(std::int64_t{10}), 50, 0, 1};
  Availability host(&walk, 0, 400e6, 1e8);  // huge steps: x hits the bounds at once
  bool saw_zero = false, saw_peak = false;
  for (std::int64_t n = 1; n < 200; ++n) {
    const double s = host.speed_at(from_seconds(10 * n));
    REQUIRE((s == 0 || s == 400e6));  // clamped, and with omega = 0, y = x
    saw_zero |= s == 0;
    saw_peak |= s == 400e6;
  }
  CHECK(saw_zero);
  CHECK(saw_peak);
  // No variance at all: the start value for ever.
  Availability still(&walk, 0, 400e6, 0);
  CHECK(still.speed_at(from_seconds(std::int64_t{12345})) == 200e6);
  CHECK(still.finish_time(0, 400e6) == from_seconds(std::int64_t{2}));
}

TEST_CASE("network: latency plus size over the stub bandwidth, +half the extra round trip between domains",
          "[unit][replication]") {
  const Network net;  // 50 stubs a domain, 100 Mbit/s stubs, 1 Gbit/s transit, 1 ms a hop, +10 ms RTT
  // Same domain: 2 hops + 100 KB at 100 Mbit/s = 2 ms + 8 ms.
  CHECK(net.host_to_host(3, 49, 100e3) == ms(10));
  // Different domains: 3 hops + 5 ms + 8 ms.
  CHECK(net.host_to_host(3, 50, 100e3) == ms(16));
  // 16 bytes: 1.28 microseconds on the wire.
  CHECK(net.host_to_host(0, 1, 16) == ms(2) + 1280);
  CHECK(net.host_to_server(10, 16) == ms(2) + 1280);   // the server sits in domain 0
  CHECK(net.host_to_server(120, 16) == ms(8) + 1280);  // domain 2
}

TEST_CASE("proportional shares: largest remainder, ties to the lowest index, equal split without speeds",
          "[unit][replication]") {
  const std::vector<double> w = {1, 1, 2};
  CHECK(proportional_shares(10, w) == std::vector<std::uint64_t>{3, 2, 5});  // 2.5, 2.5, 5
  CHECK(proportional_shares(7, std::vector<double>{0, 0, 0}) == std::vector<std::uint64_t>{3, 2, 2});
  CHECK(proportional_shares(0, w) == std::vector<std::uint64_t>{0, 0, 0});
}

TEST_CASE("adaptive rebalancing: surpluses go to the hosts below their share, in host order", "[unit][replication]") {
  // 12 queued tasks; speeds 1:1:2 -> shares 3, 3, 6.
  const std::vector<std::uint64_t> queued = {8, 4, 0};
  const std::vector<double> speeds = {1, 1, 2};
  const std::vector<Transfer> moves = rebalance(queued, speeds);
  REQUIRE(moves == std::vector<Transfer>{{0, 2, 5}, {1, 2, 1}});
  CHECK(rebalance(std::vector<std::uint64_t>{3, 3, 6}, speeds).empty());
}

TEST_CASE("wqr: originals first, then replicas of the task with fewest copies, up to the limit",
          "[unit][replication]") {
  using A = WorkQueueReplication::Assignment;
  WorkQueueReplication q(2, 2);  // 2 tasks, 2 replicas besides the original
  CHECK(q.assign(0).kind == A::original);
  CHECK(q.assign(1).task == 1);
  const A r2 = q.assign(2), r3 = q.assign(3), r4 = q.assign(4), r5 = q.assign(5);
  CHECK((r2.kind == A::replica && r2.task == 0));  // ties: the lowest task id
  CHECK(r3.task == 1);
  CHECK(r4.task == 0);
  CHECK(r5.task == 1);
  CHECK(q.assign(6).kind == A::none);  // every task has 3 copies

  // Host 2's replica of task 0 finishes first: hosts 0 and 4 are cancelled.
  const WorkQueueReplication::Resolution won = q.finish(0, 2);
  CHECK(won.first);
  CHECK(won.copies == 3);
  CHECK(won.cancel == std::vector<std::uint32_t>{0, 4});
  CHECK_FALSE(q.finish(0, 0).first);  // a late copy loses
  CHECK(q.done() == 1);
  CHECK(q.assign(7).kind == A::none);  // task 1 is still at its limit
}

TEST_CASE("distributed replication: each accept condition refuses on its own case", "[unit][replication]") {
  // The polled host has 1e10 flop left at 1e8 flop/s: ENT = 100 s. The task is 1e10 flop.
  const PolledState busy{true, 0, 1e10, 1e8};
  CHECK(judge_poll(busy, 1e10, 2e8, 0, 1, true) == Refusal::none);  // EST = 50 s < 100 s
  // (1) not processing an original task
  CHECK(judge_poll({false, 0, 1e10, 1e8}, 1e10, 2e8, 0, 1, true) == Refusal::not_processing_original);
  // (2) its task already has its one replica
  CHECK(judge_poll({true, 1, 1e10, 1e8}, 1e10, 2e8, 0, 1, true) == Refusal::replica_limit);
  // (3) the poller would not finish sooner: EST = 200 s >= 100 s
  CHECK(judge_poll(busy, 1e10, 5e7, 0, 1, true) == Refusal::not_faster);
  CHECK(judge_poll(busy, 1e10, 1e8, 0, 1, true) == Refusal::not_faster);   // equal is not sooner
  CHECK(judge_poll(busy, 1e10, 2e8, 60, 1, true) == Refusal::not_faster);  // transfer time counted
  CHECK(judge_poll(busy, 1e10, 5e7, 0, 1, false) == Refusal::none);        // without condition 3
  // A stalled polled host (speed 0) never finishes: any working poller is faster.
  CHECK(judge_poll({true, 0, 1e10, 0}, 1e10, 1e6, 0, 1, true) == Refusal::none);
  CHECK(judge_poll(busy, 1e10, 0, 0, 1, true) == Refusal::not_faster);
}

TEST_CASE("polling list: cyclic, and a host stops after a full round of refusals", "[unit][replication]") {
  PollingList list({5, 6, 7});
  CHECK(list.next() == 5u);
  list.refused();
  list.refused();
  CHECK(list.next() == 7u);
  list.accepted();  // 7 accepted: the count starts again, the walk goes on at 5
  CHECK(list.next() == 5u);
  list.refused();
  list.refused();
  CHECK(list.next() == 7u);
  list.refused();
  CHECK_FALSE(list.next().has_value());
  CHECK(list.exhausted());
}

TEST_CASE("replication methods: names from one registry", "[unit][replication]") {
  CHECK(method_names() == std::vector<std::string>{"wqr", "adaptive", "proposed", "proposed-no-cond3"});
  CHECK(find_method("proposed").condition3);
  CHECK_FALSE(find_method("proposed-no-cond3").condition3);
  CHECK_THROWS_AS(find_method("nope"), ConfigError);
}

TEST_CASE("availability walk: step n's normals are Box-Muller on Philox4x32-10 block n, the same bits in every kernel",
          "[unit][replication][determinism]") {
  const WalkKey key{0x0123456789abcdefull, 4242};
  const std::uint64_t first = (std::uint64_t{1} << 32) - 3;  // the counter's high word changes inside the batch
  StepNormals portable_draw{};
  walk_kernels().front().draw(key, first, portable_draw);
  for (int i = 0; i < kWalkBatch; ++i) {
    using Philox = r123::Philox4x32;
    const std::uint64_t n = first + static_cast<std::uint64_t>(i);
    const Philox::ctr_type ctr = {{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n >> 32),
                                   static_cast<std::uint32_t>(key.host), static_cast<std::uint32_t>(key.host >> 32)}};
    const Philox::key_type k = {
        {static_cast<std::uint32_t>(key.seed), static_cast<std::uint32_t>(key.seed >> 32) ^ 0x57a1c0deu}};
    const Philox::ctr_type r = Philox()(ctr, k);
    const auto top53 = [](std::uint32_t hi, std::uint32_t lo) {
      return static_cast<double>(((std::uint64_t{hi} << 32) | lo) >> 11);
    };
    const double radius = std::sqrt(-2 * portable::log_positive_normal((top53(r[0], r[1]) + 1) * 0x1.0p-53));
    const portable::SinCos angle = portable::sin_cos_of_turns(top53(r[2], r[3]) * 0x1.0p-53);
    CHECK(portable_draw.u[i] == radius * angle.cos);
    CHECK(portable_draw.w[i] == radius * angle.sin);
  }
  // Every kernel this CPU runs gives the portable kernel's bits, batch after batch.
  for (const WalkKernel& kernel : walk_kernels()) {
    INFO("kernel " << kernel.name);
    for (std::uint64_t batch = 0; batch < 1000; ++batch) {
      StepNormals a{}, b{};
      walk_kernels().front().draw({batch * 7919, batch}, batch * kWalkBatch, a);
      kernel.draw({batch * 7919, batch}, batch * kWalkBatch, b);
      for (int i = 0; i < kWalkBatch; ++i) {
        REQUIRE(std::bit_cast<std::uint64_t>(a.u[i]) == std::bit_cast<std::uint64_t>(b.u[i]));
        REQUIRE(std::bit_cast<std::uint64_t>(a.w[i]) == std::bit_cast<std::uint64_t>(b.w[i]));
      }
    }
  }
}

TEST_CASE("availability walk: the normals are standard and independent", "[unit][replication]") {
  // 2^18 pairs: the mean within 4 standard errors of 0, the variance of 1, no correlation.
  double su = 0, sw = 0, suu = 0, sww = 0, suw = 0, su_next = 0, previous_u = 0;
  constexpr int kBatches = (1 << 18) / kWalkBatch;
  for (std::uint64_t b = 0; b < kBatches; ++b) {
    StepNormals d{};
    draw_steps({3, 17}, b * kWalkBatch, d);
    for (int i = 0; i < kWalkBatch; ++i) {
      su += d.u[i];
      sw += d.w[i];
      suu += d.u[i] * d.u[i];
      sww += d.w[i] * d.w[i];
      suw += d.u[i] * d.w[i];
      su_next += previous_u * d.u[i];
      previous_u = d.u[i];
    }
  }
  const double n = kBatches * kWalkBatch, bound = 4 / std::sqrt(n);
  CHECK(std::fabs(su / n) < bound);
  CHECK(std::fabs(sw / n) < bound);
  CHECK(std::fabs(suu / n - 1) < 4 * std::sqrt(2 / n));
  CHECK(std::fabs(sww / n - 1) < 4 * std::sqrt(2 / n));
  CHECK(std::fabs(suw / n) < bound);
  CHECK(std::fabs(su_next / n) < bound);
}
