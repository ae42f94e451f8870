// The K computer job-mix generator: published class shares, offered load, seeds.
#include <catch2/catch.hpp>

#include <cmath>

#include "tracewarp/core/error.hpp"
#include "tracewarp/workload/kcomputer_mix.hpp"

using namespace tracewarp;
using namespace tracewarp::workload;

namespace {
KComputerMix mix(double days, bool small, std::uint64_t seed = 1) {
  KComputerMix m;
  m.days = days;
  m.groups = kcomputer_groups(small, 0.9, 0.9);
  m.seed = seed;
  return m;
}
}  // namespace

TEST_CASE("K computer mix: the published class shares and the offered load are matched", "[unit][workload]") {
  const workload::Workload w = generate_kcomputer_mix(mix(90, false));
  REQUIRE(w.jobs.size() > 20'000);
  double walltime_class[4] = {}, node_class[4] = {}, node_seconds = 0;
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const workload::Job& j = w.jobs[i];
    REQUIRE(j.id == i + 1);
    if (i > 0) REQUIRE(j.submit >= w.jobs[i - 1].submit);
    REQUIRE(j.nodes >= 385);
    REQUIRE(j.nodes <= 36'864);
    REQUIRE(j.procs == 8 * j.nodes);
    REQUIRE(j.run >= kTicksPerSecond);
    REQUIRE(j.run <= j.requested);
    REQUIRE(j.requested <= 24 * 3600 * kTicksPerSecond);
    REQUIRE(j.requested % (60 * kTicksPerSecond) == 0);  // whole minutes
    const double h = to_seconds(j.requested) / 3600;
    walltime_class[h <= 1 ? 0 : h <= 4 ? 1 : h <= 12 ? 2 : 3] += 1;
    node_class[j.nodes <= 1'080 ? 0 : j.nodes <= 4'320 ? 1 : j.nodes <= 10'800 ? 2 : 3] += 1;
    node_seconds += j.nodes * to_seconds(j.run);
  }
  const double n = static_cast<double>(w.jobs.size());
  const double walltime_share[4] = {0.38, 0.34, 0.20, 0.08}, node_share[4] = {0.75, 0.20, 0.03, 0.02};
  for (int c = 0; c < 4; ++c) {
    CAPTURE(c);
    REQUIRE(std::abs(walltime_class[c] / n - walltime_share[c]) < 0.01);
    REQUIRE(std::abs(node_class[c] / n - node_share[c]) < 0.01);
  }
  // Offered load on the large group: 0.9 within sampling noise (heavy-tailed: a few percent).
  const double load = node_seconds / (73'728.0 * 90 * 86'400);
  REQUIRE(load == Approx(0.9).epsilon(0.08));
}

TEST_CASE("K computer mix: a month lies in the study's 20,000-60,000 jobs; seeds reproduce", "[unit][workload]") {
  const workload::Workload month = generate_kcomputer_mix(mix(30, true));
  REQUIRE(month.jobs.size() >= 20'000);
  REQUIRE(month.jobs.size() <= 60'000);
  std::size_t small = 0;
  for (const workload::Job& j : month.jobs) small += j.nodes <= 384;
  REQUIRE(small > 0);
  REQUIRE(small < month.jobs.size());

  const workload::Workload a = generate_kcomputer_mix(mix(3, true, 7)), b = generate_kcomputer_mix(mix(3, true, 7));
  const workload::Workload c = generate_kcomputer_mix(mix(3, true, 8));
  REQUIRE(a.jobs.size() == b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    REQUIRE(a.jobs[i].submit == b.jobs[i].submit);
    REQUIRE(a.jobs[i].nodes == b.jobs[i].nodes);
    REQUIRE(a.jobs[i].run == b.jobs[i].run);
    REQUIRE(a.jobs[i].user == b.jobs[i].user);
  }
  REQUIRE(
      (a.jobs.size() != c.jobs.size() || a.jobs[0].submit != c.jobs[0].submit || a.jobs[0].nodes != c.jobs[0].nodes));
}

TEST_CASE("K computer mix: settings out of range are refused", "[unit][workload]") {
  KComputerMix m = mix(1, true);
  m.days = 0;
  REQUIRE_THROWS_WITH(generate_kcomputer_mix(m), Catch::Contains("days"));
  m = mix(1, true);
  m.full_share = 1.5;
  REQUIRE_THROWS_AS(generate_kcomputer_mix(m), ConfigError);
  m = mix(1, true);
  m.groups[0].load = 0;
  REQUIRE_THROWS_WITH(generate_kcomputer_mix(m), Catch::Contains("offered load"));
}

namespace {
// Coefficient of variation over days of the number of jobs submitted per day in the study's
// most common class (385-1,080 nodes, up to 1 h), or of the scaled equivalent.
double daily_count_cv(const workload::Workload& w, double days, std::uint32_t max_nodes) {
  std::vector<double> per_day(static_cast<std::size_t>(days), 0.0);
  for (const workload::Job& j : w.jobs)
    if (j.nodes <= max_nodes && j.requested <= 3600 * kTicksPerSecond)
      per_day[static_cast<std::size_t>(to_seconds(j.submit) / 86'400)] += 1;
  double mean = 0, var = 0;
  for (const double c : per_day) mean += c / days;
  for (const double c : per_day) var += (c - mean) * (c - mean) / (days - 1);
  return std::sqrt(var) / mean;
}
}  // namespace

TEST_CASE("K computer mix: bursty submissions vary per class from day to day; daily_cv = 0 is Poisson",
          "[unit][workload]") {
  // About 120 such jobs a day: Poisson alone gives a CV near 1/sqrt(120) = 0.09; a daily factor
  // of CV 0.5 gives about sqrt(0.5^2 + 0.09^2) = 0.51.
  KComputerMix bursty = mix(90, false), plain = mix(90, false);
  plain.daily_cv = 0;
  const double cv_bursty = daily_count_cv(generate_kcomputer_mix(bursty), 90, 1'080);
  const double cv_plain = daily_count_cv(generate_kcomputer_mix(plain), 90, 1'080);
  CAPTURE(cv_bursty, cv_plain);
  REQUIRE(cv_plain < 0.15);
  REQUIRE(cv_bursty > 0.35);
  REQUIRE(cv_bursty < 0.7);
}

TEST_CASE("K computer mix: on the 768-node machine the offered load is measured after scaling and rounding",
          "[unit][workload]") {
  const workload::Workload w = generate_kcomputer_mix(scaled_large_group_mix(mix(90, false), 768, 0.9));
  REQUIRE(w.max_nodes == 768);
  double node_seconds = 0;
  for (const workload::Job& j : w.jobs) {
    REQUIRE(j.nodes >= 4);    // ceil(385 x 768 / 82,944) = ceil(3.56)
    REQUIRE(j.nodes <= 342);  // ceil(36,864 x 768 / 82,944) = ceil(341.3)
    node_seconds += j.nodes * to_seconds(j.run);
  }
  REQUIRE(node_seconds / (768.0 * 90 * 86'400) == Approx(0.9).epsilon(0.08));
  // Pacing for the full large group and scaling afterwards (the first reading) offered about
  // 0.81 instead: the 73,728-node group is only 683 of the 768 nodes' worth (rounding up adds ~1%).
  double unscaled = 0;
  for (const workload::Job& j : generate_kcomputer_mix(mix(90, false)).jobs)
    unscaled += scaled_nodes(j.nodes, 82'944, 768) * to_seconds(j.run);
  const double first_reading_load = unscaled / (768.0 * 90 * 86'400);
  CAPTURE(first_reading_load);
  REQUIRE(first_reading_load < 0.9 * 0.95);
}
