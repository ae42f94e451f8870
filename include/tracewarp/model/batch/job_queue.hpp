// The batch scheduler's queue, as policies read it (a QueueView): in arrival order (submit
// time, then workload index, so ids ascend), or in priority order (descending
// QueuedJob::priority, ties in arrival order: policy/batch/priority.hpp). A started job's entry
// stays in place, marked, and the marks are swept out together once there are as many as queued
// jobs; starts from the head just move the front. In arrival order a removal costs O(log n)
// amortised and the queue keeps a QueueIndex of its jobs for the backfill passes; in priority
// order an arrival is inserted at its place and a pass's removals cost one walk over the queue.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "tracewarp/core/persist.hpp"
#include "tracewarp/policy/batch/queue_index.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {

class JobQueue {
 public:
  enum class Order { arrival, priority };
  explicit JobQueue(Order order = Order::arrival) : order_(order) {}

  // Adds an arriving job; its id is above every queued one.
  void push(const QueuedJob& job);
  // Takes started jobs out (in any order); InvariantError for one that is not queued.
  void remove(std::vector<JobId> started);

  // The queued jobs, in order.
  QueueView jobs() const { return QueueView(std::span<const QueuedJob>(storage_).subspan(front_), size_); }
  // Calls f(QueuedJob&) on every queued job, in order (to update what policies read).
  template <class F>
  void for_each(F&& f) {
    for (auto it = storage_.begin() + static_cast<std::ptrdiff_t>(front_); it != storage_.end(); ++it)
      if (!QueueView::is_started(*it)) f(*it);
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Priority order: gives every queued job priority(job) and restores the order. priority() is
  // called for each job independently, so a long queue is shared among the engine's threads
  // (engine.threads): the same priorities for any thread count.
  template <class F>
  void reprioritise(F&& priority) {
    compact();
    drop_started_priorities();
    constexpr std::size_t kGrain = 2048;  // below this, threads cost more than they save
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, storage_.size(), kGrain),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t i = r.begin(); i != r.end(); ++i)
                          storage_[i].priority = priority(std::as_const(storage_[i]));
                      });
    // The same jobs by id (started ones were dropped above): one sort, not a search per job.
    priority_by_id_.clear();
    for (const QueuedJob& job : storage_) priority_by_id_.emplace_back(job.id, job.priority);
    std::sort(priority_by_id_.begin(), priority_by_id_.end(),
              [](const std::pair<JobId, double>& a, const std::pair<JobId, double>& b) { return a.first < b.first; });
    if (!std::is_sorted(storage_.begin(), storage_.end(), Before{}))
      std::sort(storage_.begin(), storage_.end(), Before{});
  }
  Order order() const { return order_; }
  // In arrival order, the same jobs indexed for backfill passes (ArrivalOrderHints::index);
  // nullptr in priority order.
  const QueueIndex* index() const { return order_ == Order::arrival ? &index_ : nullptr; }
  bool operator==(const JobQueue&) const = default;
  TRACEWARP_PERSIST(storage_, front_, size_, index_, priority_by_id_)

 private:
  // The queue's order: by priority, then arrival (in arrival order every priority is 0).
  struct Before {
    bool operator()(const QueuedJob& a, const QueuedJob& b) const {
      return a.priority > b.priority || (a.priority == b.priority && a.id < b.id);
    }
  };
  void compact();
  void mark_started(std::vector<JobId> started);
  double* priority_by_id(JobId id);  // nullptr if not queued
  void drop_started_priorities();

  Order order_;
  std::vector<QueuedJob> storage_;  // from front_ on: the queued jobs and marked started ones
  std::size_t front_ = 0;           // entries before it have started (dropped lazily)
  std::size_t size_ = 0;            // queued jobs (unmarked entries)
  QueueIndex index_;
  // Priority order: each queued job's priority by id, to find its entry (ids ascend; a started
  // job's entry holds kStartedMark until they are dropped together: priorities are >= 0, and a
  // mark must compare equal to itself, as saved states are compared).
  static constexpr double kStartedMark = -1;
  std::vector<std::pair<JobId, double>> priority_by_id_;
};

}  // namespace tracewarp::batch
