// The schedulers of the replication study (docs/studies.md#replication), as plain classes the model calls.
// Every reading of the study that is ours is written here once, next to the rule it shapes.
//
//  * Methods (the registry `replication_methods()` below): wqr, adaptive, proposed and
//    proposed-no-cond3. The model's keys list their names from here.
//  * Proportional assignment (static initial assignment and the adaptive scheduler): a count is
//    split in proportion to weights by the largest-remainder rule, ties to the lowest index; if
//    every weight is zero (every host measured at speed 0) the split is equal.
//  * Adaptive rebalancing: the queued (not started) tasks of the collected view are re-split in
//    proportion to the measured speeds; hosts holding more than their share give the surplus to
//    hosts holding less, matched in host order (so at most hosts - 1 transfers). Surplus leaves
//    from the back of a donor's queue. The view is what each host reported when probed, so it
//    is as old as the collection took; with monitoring (replication.monitor_interval_s), what
//    each host last measured (model/replication/replication_model.hpp says what that costs).
//  * WQR: a host asking for work gets the next unassigned task; when none is left, a replica of
//    the running task with the fewest copies running (ties: lowest task id) that has fewer than
//    1 + max_replicas copies — "maximum replication count 4" read as 4 replicas besides the
//    original (5 copies); else no work, and the host stops asking. The first result to reach the
//    server wins; every other running copy of that task is cancelled.
//  * Distributed replication (proposed): a polled host accepts a replica only if (1) it is
//    processing an original task, (2) that task has fewer than max_replicas replicas (1), and
//    (3) EST < ENT, ENT = the polled host's remaining work on the task / its current speed,
//    EST = the task's whole work / the poller's reported speed (+ the input transfer time when
//    est_includes_transfer is set). Speed 0 makes ENT (or EST) infinite. The variant
//    proposed-no-cond3 drops (3). A poller walks its list cyclically and stops after as many
//    consecutive refusals as the list is long (a full unsuccessful round).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "tracewarp/core/persist.hpp"

namespace tracewarp::replication {

// ---- the methods, by name ----

struct Method {
  std::string name;
  std::string description;
  bool static_assignment;  // tasks split over the hosts at the start (adaptive, proposed)
  bool rescheduling;       // periodic collect-and-reschedule rounds (adaptive)
  bool polling;            // idle hosts poll for replicas (proposed)
  bool condition3;         // EST < ENT checked (proposed)
};
const std::vector<Method>& replication_methods();
const Method& find_method(const std::string& name);  // throws ConfigError
std::vector<std::string> method_names();

// ---- proportional assignment ----

// `total` split in proportion to `weights` (largest remainder; ties to the lowest index).
std::vector<std::uint64_t> proportional_shares(std::uint64_t total, std::span<const double> weights);

struct Transfer {
  std::uint32_t from;
  std::uint32_t to;
  std::uint64_t count;
  bool operator==(const Transfer&) const = default;
};
// Moves that bring `queued` to the proportional split of its sum by `speeds`.
std::vector<Transfer> rebalance(std::span<const std::uint64_t> queued, std::span<const double> speeds);

// ---- work queue with replication ----

class WorkQueueReplication {
 public:
  WorkQueueReplication(std::uint64_t tasks, std::uint32_t max_replicas)
      : tasks_(tasks), max_copies_(max_replicas + 1) {}

  struct Assignment {
    enum Kind : std::uint8_t { original, replica, none } kind;
    std::uint64_t task;
  };
  // A host with nothing to do asks for work.
  Assignment assign(std::uint32_t host);

  struct Resolution {
    bool first;                         // this result completes the task
    std::uint32_t copies;               // copies the task had started, this one included
    std::vector<std::uint32_t> cancel;  // hosts still running another copy
  };
  // A copy of `task` run by `host` has finished and its result reached the server.
  Resolution finish(std::uint64_t task, std::uint32_t host);

  std::uint64_t done() const { return done_; }
  bool operator==(const WorkQueueReplication&) const = default;
  TRACEWARP_PERSIST(next_, done_, running_, by_copies_)

 private:
  struct Running {
    std::vector<std::uint32_t> hosts;  // hosts running a copy now
    std::uint32_t started = 0;         // copies ever started
    bool operator==(const Running&) const = default;
    TRACEWARP_PERSIST(hosts, started)
  };
  void reindex(std::uint64_t task, std::size_t old_running, std::size_t new_running);

  std::uint64_t tasks_;
  std::uint32_t max_copies_;
  std::uint64_t next_ = 0;
  std::uint64_t done_ = 0;
  std::map<std::uint64_t, Running> running_;
  std::set<std::pair<std::size_t, std::uint64_t>> by_copies_;  // (copies running, task) of running tasks
};

// ---- distributed replication ----

struct PolledState {
  bool processing_original;
  std::uint32_t replicas;  // of its current task
  double remaining_work;   // flop
  double speed;            // flop/s, now
};
enum class Refusal : std::uint8_t { none, not_processing_original, replica_limit, not_faster };
// Whether a polled host accepts (Refusal::none) a replica of its current task.
Refusal judge_poll(const PolledState& polled, double task_work, double poller_speed, double extra_est_s,
                   std::uint32_t max_replicas, bool condition3);

// A poller's list of hosts to ask, walked cyclically.
class PollingList {
 public:
  PollingList() = default;
  explicit PollingList(std::vector<std::uint32_t> targets) : targets_(std::move(targets)) {}
  // The host to poll next, or nothing once a full round in a row has refused.
  std::optional<std::uint32_t> next() const {
    if (targets_.empty() || refusals_ >= targets_.size()) return std::nullopt;
    return targets_[at_];
  }
  void refused() {
    ++refusals_;
    at_ = (at_ + 1) % targets_.size();
  }
  void accepted() {
    refusals_ = 0;
    at_ = (at_ + 1) % targets_.size();
  }
  bool exhausted() const { return !next(); }
  const std::vector<std::uint32_t>& targets() const { return targets_; }
  // Where the round stands (what refused and accepted change), for reverse computation.
  std::array<std::uint64_t, 2> position() const { return {at_, refusals_}; }
  void set_position(const std::array<std::uint64_t, 2>& p) {
    at_ = static_cast<std::size_t>(p[0]);
    refusals_ = static_cast<std::size_t>(p[1]);
  }
  bool operator==(const PollingList&) const = default;
  TRACEWARP_PERSIST(targets_, at_, refusals_)

 private:
  std::vector<std::uint32_t> targets_;
  std::size_t at_ = 0;
  std::size_t refusals_ = 0;
};

}  // namespace tracewarp::replication
