// The MapReduce study's detectors as plain functions, on the spec's worked example and by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "tracewarp/core/error.hpp"
#include "tracewarp/policy/mapreduce/detectors.hpp"

using namespace tracewarp;
using namespace tracewarp::mapreduce;

TEST_CASE("poisson detector: the worked example flags only the 20-s task", "[unit][mapreduce]") {
  // Times 5, 4, 20, 5, 7, 4 s; bins of 5 s: [0,5) holds 4, 4; [5,10) holds 5, 5, 7 (the mode);
  // 20 s is in bin 4, k' = 3, P(1, 3) = e^-1 / 6 = 0.0613 < 0.1; the others have k' = 0,
  // P(1, 0) = 0.368.
  const std::vector<double> times = {5, 4, 20, 5, 7, 4};
  const PoissonRule rule{5, 1, 0.1};
  const std::int64_t mode = mode_bin(times, rule.bin_width_s);
  CHECK(mode == 1);
  CHECK(poisson_probability(1, 3) == Approx(std::exp(-1.0) / 6));
  CHECK(poisson_probability(1, 0) == Approx(0.3679).epsilon(1e-3));
  for (const double t : times) CHECK(poisson_abnormal(t, mode, rule) == (t == 20));
  CHECK_FALSE(poisson_abnormal(20, mode, {5, 1, 0.05}));   // P' = 0.05: 0.0613 is not below it
  CHECK(mode_bin(std::vector<double>{1, 6, 12}, 5) == 0);  // ties: the lowest bin
  CHECK(mode_bin(std::vector<double>{}, 5) == -1);
}

TEST_CASE("estimate history: the minimum of the last five estimates", "[unit][mapreduce]") {
  EstimateHistory h;
  CHECK(h.empty());
  for (const double e : {10.0, 8.0, 12.0, 9.0, 11.0}) h.add(e);
  CHECK(h.estimate() == 8);
  h.add(13);  // 10 drops out: 8, 12, 9, 11, 13
  CHECK(h.estimate() == 8);
  h.add(30);  // 12, 9, 11, 13, 30
  CHECK(h.estimate() == 9);
  h.add(30);
  h.add(30);  // 11, 13, 30, 30, 30
  CHECK(h.estimate() == 11);
}

TEST_CASE("duration estimates: from launch a start-up inflates a young attempt's; from its first progress not",
          "[unit][mapreduce]") {
  // A 2-s start-up, then 1% of the work a second (a 102-s attempt). Reports at 3 s (1%) and 6 s
  // (4%): from launch 3 / 0.01 = 300 s and 6 / 0.04 = 150 s; from the first progress, the rate
  // since 3 s is 3% in 3 s, so 6 s plus 96% at 1%/s = 102 s, the true duration.
  CHECK(estimate_from_launch(3, 0.01) == Approx(300));
  CHECK(estimate_from_launch(6, 0.04) == Approx(150));
  CHECK(estimate_from_first_progress(6, 0.04, 3, 0.01) == Approx(102));
  // Late in the attempt the two agree closely: at 90 s (88%), 102.3 against 102.
  CHECK(estimate_from_launch(90, 0.88) == Approx(102.27).epsilon(1e-3));
  CHECK(estimate_from_first_progress(90, 0.88, 3, 0.01) == Approx(102));
}

TEST_CASE("window detector: acts after the set number of abnormal checks in a row", "[unit][mapreduce]") {
  const WindowRule rule{{15, 1, 0.05}, 3, 60};
  // The mode bin is 1 ([15, 30) s); an estimate of 90 s is bin 6, k' = 5: P = 0.003, abnormal.
  std::uint32_t checks = 0;
  const AttemptCheck slow{0.1, 9, 90.0}, normal{0.5, 10, 20.0};
  CHECK_FALSE(window_check(slow, 1, rule, checks));
  CHECK_FALSE(window_check(slow, 1, rule, checks));
  CHECK_FALSE(window_check(normal, 1, rule, checks));  // a normal check starts the count again
  CHECK(checks == 0);
  CHECK_FALSE(window_check(slow, 1, rule, checks));
  CHECK_FALSE(window_check(slow, 1, rule, checks));
  CHECK(window_check(slow, 1, rule, checks));  // the third in a row
  // An estimate of 60 s is bin 4, k' = 3: P(1, 3) = 0.061 is not below 0.05.
  checks = 0;
  CHECK_FALSE(window_check({0.1, 6, 60.0}, 1, {{15, 1, 0.05}, 1, 60}, checks));
}

TEST_CASE("window detector: only a new progress report counts toward the checks in a row", "[unit][mapreduce]") {
  // Reports every 3 s, checks every second: the same abnormal estimate judged three times is one
  // abnormal estimate; a check without a new report neither adds nor starts the count again.
  const WindowRule rule{{15, 1, 0.05}, 3, 60};
  std::uint32_t checks = 0;
  const AttemptCheck reported{0.1, 9, 90.0, true}, stale{0.1, 10, 90.0, false};
  CHECK_FALSE(window_check(reported, 1, rule, checks));
  CHECK_FALSE(window_check(stale, 1, rule, checks));
  CHECK_FALSE(window_check(stale, 1, rule, checks));
  CHECK(checks == 1);
  CHECK_FALSE(window_check(reported, 1, rule, checks));
  CHECK_FALSE(window_check(stale, 1, rule, checks));
  CHECK(window_check(reported, 1, rule, checks));  // the third abnormal report in a row
  // No progress for 60 s is abnormal at once, report or not.
  checks = 0;
  CHECK(window_check({0, 60, std::nullopt, false}, 1, rule, checks));
}

TEST_CASE("window detector: no progress 60 s after the start is abnormal at once", "[unit][mapreduce]") {
  const WindowRule rule{{15, 1, 0.05}, 3, 60};
  std::uint32_t checks = 0;
  CHECK_FALSE(window_check({0, 59.9, std::nullopt}, 1, rule, checks));
  CHECK(window_check({0, 60, std::nullopt}, 1, rule, checks));
  checks = 0;
  CHECK_FALSE(window_check({0.01, 600, std::nullopt}, 1, rule, checks));  // some progress: no estimate yet
  CHECK_FALSE(window_check({0, 10, std::nullopt}, -1, rule, checks));     // empty sample, early
}

TEST_CASE("hadoop speculation: the slowest task far behind the others, once, after its minimum run",
          "[unit][mapreduce]") {
  // Rates 0.1, 0.1, 0.1, 0.02 per s after 5 s: mean 0.08, sd 0.035; 0.02 < 0.045.
  std::vector<RunningAttempt> running = {
      {1, 0.5, 5, false}, {2, 0.5, 5, false}, {3, 0.5, 5, false}, {4, 0.1, 5, false}};
  CHECK(hadoop_speculation(running, 1, 1) == 4u);
  CHECK_FALSE(hadoop_speculation(running, 10, 1).has_value());  // not run long enough
  running[3].speculated = true;
  CHECK_FALSE(hadoop_speculation(running, 1, 1).has_value());  // one copy per task
  CHECK_FALSE(hadoop_speculation(std::vector<RunningAttempt>{{1, 0.5, 5, false}}, 1, 1).has_value());
}

TEST_CASE("detectors by name", "[unit][mapreduce]") {
  CHECK(detector_names() == std::vector<std::string>{"hadoop", "proposed", "conventional"});
  CHECK(find_detector("conventional").fixed_window_s == 480);
  CHECK_FALSE(find_detector("hadoop").window_detector);
  CHECK_THROWS_AS(find_detector("late"), ConfigError);
}

TEST_CASE("poisson detector: lambda from the sample is the mean of the bins above the mode", "[unit][mapreduce]") {
  // 15-s bins: 10, 12 -> bin 0 (the mode), 20 -> 1, 40 -> 2: k' = 0, 0, 1, 2, mean 0.75.
  const std::vector<double> sample = {10, 12, 20, 40};
  const std::int64_t mode = mode_bin(sample, 15);
  REQUIRE(mode == 0);
  REQUIRE(sample_lambda(sample, mode, 15, 1.0) == 0.75);
  // No spread above the mode, or no sample: the fixed lambda.
  const std::vector<double> flat = {10, 11, 12};
  REQUIRE(sample_lambda(flat, mode_bin(flat, 15), 15, 1.0) == 1.0);
  REQUIRE(sample_lambda({}, -1, 15, 2.0) == 2.0);
}
