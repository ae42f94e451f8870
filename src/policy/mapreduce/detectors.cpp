#include "tracewarp/policy/mapreduce/detectors.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "tracewarp/core/named.hpp"

namespace tracewarp::mapreduce {

double EstimateHistory::estimate() const {
  const std::size_t n = std::min<std::size_t>(next_, last_.size());
  return *std::min_element(last_.begin(), last_.begin() + static_cast<std::ptrdiff_t>(n));
}

double poisson_probability(double lambda, std::int64_t k) {
  return std::exp(static_cast<double>(k) * std::log(lambda) - lambda - std::lgamma(static_cast<double>(k) + 1));
}

std::int64_t mode_bin(std::span<const double> durations, double bin_width_s) {
  std::map<std::int64_t, std::uint32_t> counts;
  for (const double d : durations) ++counts[static_cast<std::int64_t>(std::floor(d / bin_width_s))];
  std::int64_t mode = -1;
  std::uint32_t best = 0;
  for (const auto& [bin, count] : counts)
    if (count > best) best = count, mode = bin;  // ascending bins: ties keep the lowest
  return mode;
}

bool poisson_abnormal(double duration, std::int64_t mode, const PoissonRule& rule) {
  const auto bin = static_cast<std::int64_t>(std::floor(duration / rule.bin_width_s));
  return poisson_probability(rule.lambda, std::max<std::int64_t>(bin - mode, 0)) < rule.threshold;
}

double sample_lambda(std::span<const double> durations, std::int64_t mode, double bin_width_s, double fixed) {
  if (durations.empty() || mode < 0) return fixed;
  double sum = 0;
  for (const double d : durations)
    sum +=
        static_cast<double>(std::max<std::int64_t>(static_cast<std::int64_t>(std::floor(d / bin_width_s)) - mode, 0));
  const double mean = sum / static_cast<double>(durations.size());
  return mean > 0 ? mean : fixed;
}

bool window_check(const AttemptCheck& a, std::int64_t mode, const WindowRule& rule, std::uint32_t& abnormal_checks) {
  if (a.progress == 0 && a.elapsed_s >= rule.zero_progress_s)
    abnormal_checks = rule.consecutive;  // stalled: abnormal at once
  else if (!a.new_report)
    return false;  // nothing new to judge: the count stands
  else if (mode >= 0 && a.estimate && poisson_abnormal(*a.estimate, mode, rule.poisson))
    ++abnormal_checks;
  else
    abnormal_checks = 0;
  return abnormal_checks >= rule.consecutive;
}

std::optional<std::uint64_t> hadoop_speculation(std::span<const RunningAttempt> running, double min_run_s,
                                                double slow_sigma) {
  double sum = 0, sum2 = 0, n = 0;
  for (const RunningAttempt& a : running) {
    if (a.elapsed_s <= 0) continue;
    const double rate = a.progress / a.elapsed_s;
    sum += rate, sum2 += rate * rate, n += 1;
  }
  if (n < 2) return std::nullopt;
  const double mean = sum / n, sd = std::sqrt(std::max(0.0, sum2 / n - mean * mean));
  std::optional<std::uint64_t> pick;
  double longest = -1;
  for (const RunningAttempt& a : running) {
    if (a.speculated || a.elapsed_s < min_run_s) continue;
    const double rate = a.progress / a.elapsed_s;
    if (!(rate < mean - slow_sigma * sd)) continue;
    const double remaining = rate > 0 ? (1 - a.progress) / rate : 1e300;
    if (remaining > longest) longest = remaining, pick = a.task;  // ties: the first (lowest task)
  }
  return pick;
}

const std::vector<DetectorInfo>& detectors() {
  static const std::vector<DetectorInfo> all = {
      {"hadoop", "Hadoop's default speculation only", false, 0},
      {"proposed", "time-window (mapreduce.window_s) + Poisson detector, with Hadoop's speculation", true, 0},
      {"conventional", "the same detector with a 480-s window (history kept), with Hadoop's speculation", true, 480},
  };
  return all;
}

std::vector<std::string> detector_names() { return names_of(detectors()); }
const DetectorInfo& find_detector(const std::string& name) { return find_named(detectors(), name, "detector"); }

}  // namespace tracewarp::mapreduce
