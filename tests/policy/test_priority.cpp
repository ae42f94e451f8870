// The priority layer (policy/batch/priority.hpp): each factor and the fair-share usage worked by
// hand.
#include <catch2/catch.hpp>

#include <cmath>

#include "tracewarp/core/config.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/policy/batch/limits.hpp"
#include "tracewarp/policy/batch/priority.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;

namespace {
constexpr double kDay = 86'400;

QueuedJob job(std::uint32_t units, double requested_s, double submit_s, std::int32_t user = 1,
              std::int32_t queue = -1) {
  QueuedJob q{0, units, from_seconds(requested_s), from_seconds(submit_s), user};
  q.queue = queue;
  return q;
}

PrioritySettings multifactor() {
  PrioritySettings s;
  s.order = "multifactor";
  return s;
}
}  // namespace

TEST_CASE("priority: arrival order gives every job the same priority and is never due", "[unit][batch][priority]") {
  const PriorityLayer arrival(PrioritySettings{}, 64, 3);
  CHECK(arrival.by_arrival());
  CHECK_FALSE(arrival.due(from_seconds(1e6)));
  CHECK(arrival.priority(job(8, 100, 0), from_seconds(5000.0)) == 0);
}

TEST_CASE("priority: age, job size, queue and expansion factors by hand", "[unit][batch][priority]") {
  PrioritySettings s = multifactor();
  s.queue_priority = {{1, 10}, {2, 5}};
  const PriorityLayer layer(s, 64, 1);
  // Submitted at 0, asks 16 of 64 units for 100 s, queue 2; now = 3.5 days.
  const PriorityFactors f = layer.factors(job(16, 100, 0, 1, 2), from_seconds(3.5 * kDay));
  CHECK(f.age == 0.5);                                                           // 3.5 days of a 7-day maximum age
  CHECK(f.job_size == 0.25);                                                     // 16 / 64
  CHECK(f.queue == 0.5);                                                         // 5 / the top queue priority 10
  CHECK(f.expansion == Approx(302'400.0 / 302'500.0));                           // wait / (wait + request)
  CHECK(layer.factors(job(16, 100, 0), from_seconds(10 * kDay)).age == 1);       // capped
  CHECK(layer.factors(job(16, 100, 0, 1, 3), 0).queue == 0);                     // an unlisted queue
  CHECK(layer.factors(job(16, 100, 0), from_seconds(300.0)).expansion == 0.75);  // XF 4: 1 - 1/4
  s.favor_small = true;
  CHECK(PriorityLayer(s, 64, 1).factors(job(16, 100, 0), 0).job_size == 0.75);
}

TEST_CASE("priority: the weighted sum of the factors", "[unit][batch][priority]") {
  PrioritySettings s = multifactor();
  s.weight_age = 1000;
  s.weight_job_size = 200;
  s.weight_expansion = 10;
  const PriorityLayer layer(s, 64, 1);
  // age 0.5, size 0.25, expansion 0.75 (wait 300 s of a 100-s request; max age 600 s)
  s.max_age = from_seconds(600.0);
  const PriorityLayer short_age(s, 64, 1);
  CHECK(short_age.priority(job(16, 100, 0), from_seconds(300.0)) == 1000 * 0.5 + 200 * 0.25 + 10 * 0.75);
}

TEST_CASE("priority: fair share after a known usage history", "[unit][batch][priority]") {
  PrioritySettings s = multifactor();
  s.weight_fairshare = 1;
  s.half_life = from_seconds(100.0);
  PriorityLayer layer(s, 64, 2);  // two accounts: each has a share S of 1/2
  // No usage yet: every account's factor is 2^0 = 1.
  CHECK(layer.factors(job(1, 10, 0, 1), 0).fairshare == 1);
  // User 1 used 3,000 unit-seconds, user 2 1,000: U = 3/4 and 1/4 of the total.
  layer.charge(1, 3000);
  layer.charge(2, 1000);
  layer.begin_computation(0);
  CHECK(layer.factors(job(1, 10, 0, 1), 0).fairshare == Approx(std::pow(2.0, -1.5)));  // 2^(-0.75 / 0.5)
  CHECK(layer.factors(job(1, 10, 0, 2), 0).fairshare == Approx(std::pow(2.0, -0.5)));  // 2^(-0.25 / 0.5)
  CHECK(layer.factors(job(1, 10, 0, 3), 0).fairshare == 1);                            // no usage
  // One half-life later the usages are 1,500 and 500; user 2 then uses 1,000 more: 1,500 each.
  layer.decay_to(from_seconds(100.0));
  CHECK(layer.usage(1) == Approx(1500));
  CHECK(layer.usage(2) == Approx(500));
  layer.charge(2, 1000);
  // Factors move only when the priorities are recomputed (the calc period), not at each charge.
  CHECK(layer.factors(job(1, 10, 0, 1), 0).fairshare == Approx(std::pow(2.0, -1.5)));
  layer.begin_computation(from_seconds(100.0));
  CHECK(layer.factors(job(1, 10, 0, 1), 0).fairshare == Approx(0.5));  // 2^(-0.5 / 0.5)
  CHECK(layer.factors(job(1, 10, 0, 2), 0).fairshare == Approx(0.5));
  // The next computation is due one calc period (5 minutes by default) later.
  CHECK_FALSE(layer.due(from_seconds(399.0)));
  CHECK(layer.due(from_seconds(400.0)));
}

TEST_CASE("priority: fair share by group charges the job's group", "[unit][batch][priority]") {
  PrioritySettings s = multifactor();
  s.fairshare_by = "group";
  const PriorityLayer layer(s, 64, 2);
  CHECK(layer.account_of(7, 3) == 3);
  CHECK(PriorityLayer(multifactor(), 64, 2).account_of(7, 3) == 7);
}

TEST_CASE("priority: the keys are read and refused with the key named", "[unit][batch][priority]") {
  Config c(priority_params().schema());
  c.set("batch.priority", ConfigValue(std::string("multifactor")), "test");
  c.set("batch.queue_priorities", ConfigValue(std::string("1:10,2:5")), "test");
  c.set("batch.priority_calc_period_s", ConfigValue(0.0), "test");
  const PrioritySettings s = priority_params().read(c);
  CHECK_FALSE(s.by_arrival());
  CHECK(s.queue_priority == std::map<std::int32_t, double>{{1, 10}, {2, 5}});
  CHECK(s.calc_period == 0);
  c.set("batch.queue_priorities", ConfigValue(std::string("1-10")), "test");
  CHECK_THROWS_WITH(priority_params().read(c),
                    Catch::Contains("batch.queue_priorities") && Catch::Contains("'1-10' is not QUEUE:PRIORITY"));
  c.set("batch.queue_priorities", ConfigValue(std::string("1:10,1:5")), "test");
  CHECK_THROWS_WITH(priority_params().read(c), Catch::Contains("queue 1 is listed twice"));
}

TEST_CASE("user limits: a user at a limit is held until one of its jobs ends", "[unit][batch][limits]") {
  UserLimits jobs_limit(LimitSettings{.user_max_running_jobs = 2});
  CHECK_FALSE(jobs_limit.holds(1, 100));
  jobs_limit.started(1, 4);
  jobs_limit.started(1, 4);
  CHECK(jobs_limit.holds(1, 1));        // a third job of user 1
  CHECK_FALSE(jobs_limit.holds(2, 1));  // another user
  jobs_limit.ended(1, 4);
  CHECK_FALSE(jobs_limit.holds(1, 1));
  CHECK_THROWS_AS(jobs_limit.ended(3, 1), InvariantError);

  UserLimits units_limit(LimitSettings{.user_max_units = 16});
  units_limit.started(1, 10);
  CHECK_FALSE(units_limit.holds(1, 6));  // 16: at the limit, not past it
  CHECK(units_limit.holds(1, 7));
  CHECK(units_limit.exceeds_alone(17));
  CHECK_FALSE(UserLimits().holds(1, 1'000'000));  // no limits
}
