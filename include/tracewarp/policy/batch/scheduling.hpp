// The contract between the batch model and its scheduling policies. A policy is a plain class:
// given the queue (in priority order), the running jobs and the free nodes at `now`, it decides
// which queued jobs start now and, where it plans ahead, when the others are expected to start.
// Policies read requested walltimes only, never actual run times, and know nothing of the
// engine: they are tested on hand-made inputs.
#pragma once

#include <concepts>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "tracewarp/core/time.hpp"
#include "tracewarp/jobs/job.hpp"

namespace tracewarp::batch {

using JobId = std::uint64_t;
class QueueIndex;     // policy/batch/queue_index.hpp
class PriorityLayer;  // policy/batch/priority.hpp

// A queued job as policies see it. `nodes` is in the scheduler's units (nodes, or processors:
// BatchParams::counts_processors); user, group and queue are the trace's numbers (-1 unknown).
struct QueuedJob {
  JobId id;
  std::uint32_t nodes;
  Time requested;  // requested walltime
  Time submit;
  std::int32_t user = -1;
  double wrsa = 1.0;  // the submitter's walltime-request accuracy score (WRSA policies)
  std::int32_t group = -1;
  std::int32_t queue = -1;
  double priority = 0;  // the priority layer's (priority.hpp): the queue is in descending order of it
  bool operator==(const QueuedJob&) const = default;
};

// The queued jobs in priority order, as a pass reads them. The model's queue leaves a started
// job's entry in place, marked, until enough marks have gathered to compact them all at once:
// closing each hole at once would move half of a long queue whenever a backfilled job leaves
// its middle. A view visits only the queued jobs; it iterates forward, and a policy that needs
// positions collects the jobs it considers. Any contiguous range of QueuedJob converts to a view.
class QueueView {
 public:
  // Marks a started job's entry: no queued job has 0 nodes (the model rejects such jobs).
  static bool is_started(const QueuedJob& entry) { return entry.nodes == 0; }

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = QueuedJob;
    using difference_type = std::ptrdiff_t;
    using pointer = const QueuedJob*;
    using reference = const QueuedJob&;
    iterator() = default;
    iterator(const QueuedJob* at, const QueuedJob* end) : at_(at), end_(end) { skip_started(); }
    reference operator*() const { return *at_; }
    pointer operator->() const { return at_; }
    iterator& operator++() {
      ++at_;
      skip_started();
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const iterator& other) const { return at_ == other.at_; }

   private:
    void skip_started() {
      while (at_ != end_ && is_started(*at_)) ++at_;
    }
    const QueuedJob* at_ = nullptr;
    const QueuedJob* end_ = nullptr;
  };

  QueueView() = default;
  // Entries of which `size` are queued jobs and the rest marked started.
  QueueView(std::span<const QueuedJob> entries, std::size_t size) : entries_(entries), size_(size) {}
  template <class Jobs>
  requires std::convertible_to<const Jobs&, std::span<const QueuedJob>> QueueView(const Jobs& jobs)
      : QueueView(std::span<const QueuedJob>(jobs), std::span<const QueuedJob>(jobs).size()) {}

  iterator begin() const { return {entries_.data(), entries_.data() + entries_.size()}; }
  iterator end() const { return {entries_.data() + entries_.size(), entries_.data() + entries_.size()}; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The first n queued jobs (all of them when n >= size(): O(1); else a walk over them).
  QueueView first(std::size_t n) const;
  // The id of the last queued job (the view must not be empty).
  JobId last_id() const;
  // Every entry, the started ones marked (is_started) included: for code that hands the queue
  // on whole (the Python policies' arrays).
  std::span<const QueuedJob> entries() const { return entries_; }
  // Whether this view starts where `other` does: a prefix of the same queue, not a reordering.
  bool starts_with_entries_of(const QueueView& other) const { return entries_.data() == other.entries_.data(); }

 private:
  std::span<const QueuedJob> entries_;
  std::size_t size_ = 0;
};

struct RunningJob {
  JobId id;
  std::uint32_t nodes;
  Time start;
  Time requested_end;            // start + requested walltime: when the policy must assume it ends
  std::uint32_t first_node = 0;  // of its (contiguous) range; read by placement-aware policies
  bool operator==(const RunningJob&) const = default;
};

// Shortcuts that hold only for a queue in arrival order (ids ascending), which the model sets
// only when its queue is in that order (batch.priority = "arrival"). The pass helpers use them
// only over the input's own queue (pass_steps.hpp: for_each_queued), so a policy that visits
// the jobs in an order of its own cannot be misled by them.
struct ArrivalOrderHints {
  // The queued jobs with ids below `settled_below` were all considered by the previous pass and
  // not started, and since then jobs have only arrived (none ended, no running job is past its
  // requested end). Their answer cannot have changed for a policy whose tests only get stricter
  // as free nodes shrink and time passes (FCFS, EASY), so it may skip them. 0 = none.
  JobId settled_below = 0;
  // An index over exactly the jobs of the queue. Lets a backfill pass skip stretches with no
  // candidate; the decisions are the same with or without it.
  const QueueIndex* index = nullptr;
};

struct SchedulingInput {
  Time now = 0;
  QueueView queue;  // in priority order (descending QueuedJob::priority, then arrival)
  std::span<const RunningJob> running;
  std::uint32_t total_nodes = 0;
  std::uint32_t free_nodes = 0;
  std::size_t depth = 0;  // queued jobs one pass considers; 0 = all
  // Optional hint: no queued job needs fewer nodes than this (0 = unknown). Lets a pass stop
  // looking for backfill candidates once fewer nodes are free.
  std::uint32_t smallest_queued = 0;
  // Optional: set only when `queue` is in arrival order (see ArrivalOrderHints).
  const ArrivalOrderHints* arrival_order = nullptr;
  // Optional hint: `running` is in requested-end order (the model keeps it so), which spares a
  // pass checking the order of every running job.
  bool running_in_end_order = false;
  // Optional: whatever else a policy may order by. `records` are the jobs' records as the trace
  // gave them (jobs/job.hpp: processors asked, partition, the trace's status, its logged wait,
  // the actual run time for oracle studies), indexed by QueuedJob::id, which the model sets to
  // the job's index in its workload; `priorities` is the priority layer, whose factors(job, now)
  // a policy may weigh its own way. Both empty in hand-made inputs.
  std::span<const workload::Job> records{};
  const PriorityLayer* priorities = nullptr;
  const workload::Job* record_of(const QueuedJob& job) const {
    return job.id < records.size() ? &records[job.id] : nullptr;
  }
};

struct Reservation {
  JobId id;
  Time start;  // planned start (== now for jobs that start now)
};

struct PassDecision {
  std::vector<JobId> start_now;  // in the order they are started
  // Placement-aware policies (interval scheduling): the first node of each start_now job's
  // contiguous range, in the same order; empty = the model's allocation rule places them.
  std::vector<std::uint32_t> first_nodes;
  std::vector<Reservation> reservations;  // plans made this pass (including start_now jobs)
  // Reservations from earlier passes that could not be kept: a plan counts on each running job
  // ending by its requested end, so a job that runs past it (batch.kill_at_walltime = false, or
  // within batch.walltime_grace_s) holds nodes a reservation was given; a scheduling tick (a
  // planned start falling between two passes) or a speculative state that the engine will roll
  // back does too. Models report the count.
  std::uint64_t broken_reservations = 0;
  // Interval scheduling: the node x interval cells a per-node, per-interval plan table would read
  // in this pass (the K computer study's cost argument: it grows with nodes x intervals), counted
  // whatever the plan's own data structure; 0 for the other policies.
  std::uint64_t plan_cells = 0;
};

// A policy is a plain class with
//   PassDecision pass(const SchedulingInput& in);   // one scheduling pass
//   bool reads_wrsa() const;         // whether pass() reads QueuedJob::wrsa (models keep it current)
//   Time longest_plannable() const;  // the longest walltime it can ever plan (longer jobs are
//                                    // rejected at submission rather than wait forever)
// and equality (its state is saved and compared like any LP state). policy/batch/registry.hpp
// lists them by name.
template <class P>
concept SchedulingPolicy = std::equality_comparable<P> && requires(P& p, const P& cp, const SchedulingInput& in) {
  { p.pass(in) } -> std::same_as<PassDecision>;
  { cp.reads_wrsa() } -> std::same_as<bool>;
  { cp.longest_plannable() } -> std::same_as<Time>;
};

}  // namespace tracewarp::batch
