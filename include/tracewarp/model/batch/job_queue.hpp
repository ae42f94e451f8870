// The batch scheduler's queue: queued jobs in arrival order (submit time, then workload index,
// so ids ascend), as policies read them (a QueueView). A started job's entry stays in place,
// marked, and the marks are swept out together once there are as many as queued jobs, so any
// removal costs O(log n) amortised; starts from the head just move the front. It keeps a
// QueueIndex of its jobs for the backfill passes.
#pragma once

#include <span>
#include <vector>

#include "tracewarp/core/persist.hpp"
#include "tracewarp/policy/batch/queue_index.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {

class JobQueue {
 public:
  // Appends an arriving job; its id is above every queued one.
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
  // The same jobs, indexed for backfill passes (SchedulingInput::index).
  const QueueIndex& index() const { return index_; }
  bool operator==(const JobQueue&) const = default;
  TRACEWARP_PERSIST(storage_, front_, size_, index_)

 private:
  void compact();

  std::vector<QueuedJob> storage_;  // from front_ on: the queued jobs and marked started ones
  std::size_t front_ = 0;           // entries before it have started (dropped lazily)
  std::size_t size_ = 0;            // queued jobs (unmarked entries)
  QueueIndex index_;
};

}  // namespace tracewarp::batch
