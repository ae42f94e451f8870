// The straggler detectors of the MapReduce study (docs/studies.md#mapreduce), as plain
// functions and classes the application master calls. Our readings, written once:
//
//  * Estimated completion time (duration) of a running attempt: elapsed / progress, taking the
//    minimum of its last 5 estimates (EstimateHistory). Our option (mapreduce.estimate_from =
//    first_progress, not the study's): elapsed plus the remaining progress at the rate measured
//    since the attempt's first report of progress, so that a start-up, which makes no progress,
//    does not inflate a young attempt's estimate (estimate_from_first_progress).
//  * Time-window + Poisson (proposed): per task kind, the sample is the durations of attempts of
//    that kind completed within the last `window` plus the estimates of the running ones; an
//    equal-width histogram of it (bin k holds [k w, (k+1) w)); k_mode = the fullest bin (ties:
//    the lowest); a running attempt in bin k gets k' = max(k - k_mode, 0) and is abnormal when
//    P(lambda, k') = lambda^k' e^-lambda / k'! < P'. It is acted on after `consecutive`
//    abnormal estimates in a row: a check counts only when a progress report came since the last
//    one (the master checks every heartbeat, tasks report every 3 s, and the same report judged
//    three times is one piece of evidence, not three); an attempt with no progress
//    `zero_progress` after its start is abnormal at once. The conventional detector is the same with a 480-s window.
//  * Hadoop's default speculation (on in every run): only when free containers exist and no task
//    of the phase is pending; among running tasks with one attempt that ran at least
//    `min_run`, those whose progress rate is below mean - slow_sigma x standard deviation of the
//    phase's rates; the one with the longest estimated remaining time gets one copy per check.
//    Hadoop 2's limits (MapReduceParams::speculation_*): a job has at most max(10, 1% of its
//    tasks, 10% of its running attempts) speculative attempts in flight, and the next check
//    waits 15 s after one that launched a copy, 1 s after one that launched none.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tracewarp::mapreduce {

class EstimateHistory {
 public:
  void add(double estimate) {
    last_[next_ % last_.size()] = estimate;
    ++next_;
  }
  bool empty() const { return next_ == 0; }
  std::uint32_t count() const { return next_; }  // estimates added so far
  double estimate() const;                       // the minimum of the last (up to) 5
  bool operator==(const EstimateHistory&) const = default;

 private:
  std::array<double, 5> last_{};
  std::uint32_t next_ = 0;
};

// A running attempt's estimated duration (s) from a report of `progress` (0..1] at `elapsed_s`
// after its launch: the study's.
inline double estimate_from_launch(double elapsed_s, double progress) { return elapsed_s / progress; }
// The same from the rate since its first report of progress (`first_progress` at
// `first_elapsed_s`); progress > first_progress.
inline double estimate_from_first_progress(double elapsed_s, double progress, double first_elapsed_s,
                                           double first_progress) {
  const double rate = (progress - first_progress) / (elapsed_s - first_elapsed_s);
  return elapsed_s + (1 - progress) / rate;
}

struct PoissonRule {
  double bin_width_s = 15;
  double lambda = 1;
  double threshold = 0.05;  // P'
};

double poisson_probability(double lambda, std::int64_t k);
// The fullest bin of the sample (ties: the lowest); -1 for an empty sample.
std::int64_t mode_bin(std::span<const double> durations, double bin_width_s);
// Whether a duration is abnormal against the sample's mode bin.
bool poisson_abnormal(double duration, std::int64_t mode, const PoissonRule& rule);
// lambda estimated from the sample itself (mapreduce.lambda_from_sample; the study fixes it at
// 1 in its worked example): the mean of k' = max(bin - mode bin, 0) over the sample, which is
// the maximum-likelihood Poisson mean of the shifted bins; `fixed` when that mean is 0 (a
// sample with no spread above its mode gives no estimate).
double sample_lambda(std::span<const double> durations, std::int64_t mode, double bin_width_s, double fixed);

// One check of one running attempt by the window detector. `abnormal_checks` is the attempt's
// count of abnormal estimates in a row (kept by the caller); returns whether to act on it now.
struct AttemptCheck {
  double progress;                 // 0..1, as last reported
  double elapsed_s;                // since its start
  std::optional<double> estimate;  // its estimated duration, if it has one
  bool new_report = true;          // a progress report came since the last check: the estimate is new
};
struct WindowRule {
  PoissonRule poisson;
  std::uint32_t consecutive = 3;
  double zero_progress_s = 60;
};
bool window_check(const AttemptCheck& attempt, std::int64_t mode, const WindowRule& rule,
                  std::uint32_t& abnormal_checks);

struct RunningAttempt {
  std::uint64_t task;
  double progress;  // 0..1
  double elapsed_s;
  bool speculated;  // the task already has a copy, or its job is at its cap: counted, not picked
};
// Hadoop's choice of a task to copy now, if any.
std::optional<std::uint64_t> hadoop_speculation(std::span<const RunningAttempt> running, double min_run_s,
                                                double slow_sigma);

// The detectors by name.
struct DetectorInfo {
  std::string name;
  std::string description;
  bool window_detector;   // the time-window + Poisson detector runs (else Hadoop's speculation only)
  double fixed_window_s;  // > 0: this window whatever mapreduce.window_s says
};
const std::vector<DetectorInfo>& detectors();
std::vector<std::string> detector_names();
const DetectorInfo& find_detector(const std::string& name);

}  // namespace tracewarp::mapreduce
