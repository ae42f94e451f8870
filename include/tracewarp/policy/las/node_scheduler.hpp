// One node's Least-Attained-Service scheduler of the multi-resource LAS study (docs/studies.md#las), as a
// plain class: tasks arrive (dispatch), finish (complete), and the node starts, suspends and
// resumes them, tracking each task's attained service. Our reading, in one place:
//
//  * A dispatched task starts at once if its demands fit the free resources. Otherwise the node
//    looks for running tasks to preempt:
//      - candidate sets (proposed): running tasks in descending attained service, at most the
//        first N; sets are tried in the order r0; r1, r0+r1; r2, r0+r2, r1+r2, r0+r1+r2; ...
//        (each new task alone, then joined to every earlier set in order); the first set that
//        frees enough of every resource is preempted;
//      - greedy (Kairos): running tasks in descending attained service are preempted one by one
//        until the task fits; if even all of them would not make room, none is preempted.
//    If no preemption makes room, the task waits with the suspended tasks.
//  * Suspended tasks wait in ascending attained service (ties: dispatch order). Whenever
//    resources change, the head is tried: started if it fits, else the same search restricted to
//    running tasks with strictly more attained service than the head and, for candidate sets,
//    that have run at least W since their start or last resume; repeated while heads start.
//    W protects running tasks only from preemption by suspended tasks (the study: "the minimum
//    run time before a task can be preempted by a suspended task"); a new task is never held
//    back by it. (An earlier reading applied W to new tasks too.)
//  * Quantum (Kairos's node monitor, `quantum` > 0): every quantum while tasks are suspended the
//    node re-evaluates: the head of the suspended tasks replaces running tasks whose attained
//    service exceeds its own by at least a quantum (greedily, most attained first), repeated
//    while heads start. The original Kairos NodeManager (epfl-labos/kairos, its
//    ProcessorSharingMonitor: a 1,000-ms processor-sharing window checked every 100 ms) swaps
//    the oldest running container for the youngest suspended one when their ages differ by a
//    window; 0 re-evaluates on arrivals and completions only.
//  * Suspending and resuming cost nothing; tasks never move to another node. A task whose service
//    completes at this very instant is never preempted (it ends now).
#pragma once

#include <cstdint>
#include <vector>

#include "tracewarp/core/persist.hpp"
#include "tracewarp/core/time.hpp"
#include "tracewarp/policy/las/placement.hpp"

namespace tracewarp::las {

struct LasTask {
  std::uint64_t id;
  Amounts demand;
  Time service;  // run time the task needs in total
  bool operator==(const LasTask&) const = default;
};

enum class Preemption { candidate_sets, greedy };

struct NodeSchedulerSettings {
  Preemption rule = Preemption::candidate_sets;
  Time min_run = 0;                // W: a task runs this long before a suspended task may preempt it
  std::size_t max_candidates = 4;  // N
  Time quantum = 0;                // re-evaluate every quantum while tasks are suspended; 0: never
  bool operator==(const NodeSchedulerSettings&) const = default;
};

struct NodeChanges {
  std::vector<std::uint64_t> started;    // started or resumed, in order
  std::vector<std::uint64_t> preempted;  // suspended, in order
};

class NodeScheduler {
 public:
  NodeScheduler(Amounts capacity, NodeSchedulerSettings settings);

  NodeChanges dispatch(const LasTask& task, Time now);
  // A running task has received its whole service at `now`; returns its preemption count
  // through `preemptions` and what the freed resources started.
  NodeChanges complete(std::uint64_t id, Time now, std::uint32_t* preemptions = nullptr);

  // A quantum has passed (settings.quantum > 0): suspended tasks replace running ones that have
  // attained at least a quantum more service.
  NodeChanges on_quantum(Time now);

  // When a running task finishes if left running; kTimeInfinity if it is not running.
  Time finish_time(std::uint64_t id) const;
  Time attained(std::uint64_t id, Time now) const;  // -1 if the task is not here
  const Amounts& used() const { return used_; }
  const Amounts& capacity() const { return capacity_; }
  Time quantum() const { return settings_.quantum; }
  std::size_t running() const { return running_.size(); }
  std::size_t suspended() const { return suspended_.size(); }
  std::uint64_t preemptions() const { return preemptions_; }
  bool operator==(const NodeScheduler&) const = default;
  TRACEWARP_PERSIST(used_, running_, suspended_, dispatched_, preemptions_)

 private:
  struct Entry {
    LasTask task;
    Time attained;        // service received before `since`
    Time since;           // start or last resume (running tasks)
    std::uint64_t order;  // dispatch order (ties among suspended tasks)
    std::uint32_t preemptions;
    bool operator==(const Entry&) const = default;
  };

  bool fits(const Amounts& demand) const;
  // Running tasks (indices) to preempt so that `demand` fits, or empty if none will do;
  // `above` is the attained service of the suspended task asking (only tasks with strictly more
  // are victims, and W applies), or -1 for a newly dispatched task (no restriction, no W).
  std::vector<std::size_t> victims(const Amounts& demand, Time above, Time now) const;
  void start(Entry entry, Time now, NodeChanges& changes);
  void preempt(const std::vector<std::size_t>& indices, Time now, NodeChanges& changes);
  void suspend(Entry entry);
  // Starts suspended heads while they fit or can preempt running tasks with more than
  // `margin` more attained service than theirs.
  void try_suspended(Time now, NodeChanges& changes, Time margin = 0);

  Amounts capacity_;
  NodeSchedulerSettings settings_;
  Amounts used_{};
  std::vector<Entry> running_;
  std::vector<Entry> suspended_;  // ascending attained service, then dispatch order
  std::uint64_t dispatched_ = 0;
  std::uint64_t preemptions_ = 0;
};

}  // namespace tracewarp::las
