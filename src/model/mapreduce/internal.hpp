// What the MapReduce model's LPs share (internal to src/model/mapreduce/): event kinds, messages,
// the per-run read-only data and each rank's collector of committed rows.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <tuple>

#include "tracewarp/core/random.hpp"
#include "tracewarp/engine/simulation.hpp"
#include "tracewarp/model/mapreduce/mapreduce_model.hpp"
#include "tracewarp/policy/mapreduce/detectors.hpp"

namespace tracewarp::mapreduce::detail {

// Event kinds: their numbers order what happens within one instant.
enum Kind : EventKind {
  kComplete = 1,     // worker, to itself: the attempt(s) due now are done
  kCores = 2,        // worker, to itself: usable cores change
  kKill = 3,         // master -> worker
  kLaunch = 4,       // master -> worker
  kReport = 5,       // worker, to itself: report progress
  kAttemptDone = 6,  // worker -> master
  kProgress = 7,     // worker -> master
  kJobArrival = 8,   // master, to itself
  kTick = 9,         // master, to itself: detectors and placement, every heartbeat
};
enum Record : RecordTag { kAttemptRecord = 1 };

struct LaunchMsg {
  std::uint64_t attempt;
  double work;     // core-seconds
  double sleep_s;  // an abnormal attempt's sleeps, all its records together (0: a normal one)
};
struct AttemptMsg {
  std::uint64_t attempt;
  double progress;  // kProgress: 0..1
  Time finish;      // kAttemptDone: when the worker finished it
};
struct TokenMsg {
  std::uint64_t token;
};
struct JobMsg {
  std::uint64_t job;
};

struct Shared {
  MapReduceParams params;
  const DetectorInfo* detector;
  LpId master = 0;
  LpId first_worker = 0;
  std::uint32_t tasks_per_job() const { return params.maps + params.reduces; }
};

struct Collector {
  std::vector<AttemptRow> attempts;
  TRACEWARP_PERSIST(attempts)
};

}  // namespace tracewarp::mapreduce::detail
