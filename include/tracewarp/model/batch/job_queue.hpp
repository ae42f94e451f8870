// The batch scheduler's queue: queued jobs in arrival order (submit time, then workload index,
// so ids ascend), as policies read them. Its storage has a movable front, so FCFS starts (from
// the head) cost nothing; any other removal closes its hole from the shorter side. It keeps a
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

  std::span<QueuedJob> jobs() { return std::span<QueuedJob>(storage_).subspan(front_); }
  std::span<const QueuedJob> jobs() const { return std::span<const QueuedJob>(storage_).subspan(front_); }
  std::size_t size() const { return storage_.size() - front_; }
  bool empty() const { return size() == 0; }
  // The same jobs, indexed for backfill passes (SchedulingInput::index).
  const QueueIndex& index() const { return index_; }
  bool operator==(const JobQueue&) const = default;
  TRACEWARP_PERSIST(storage_, front_, index_)

 private:
  std::vector<QueuedJob> storage_;  // from front_ on
  std::size_t front_ = 0;           // jobs before it have started (removed lazily)
  QueueIndex index_;
};

}  // namespace tracewarp::batch
