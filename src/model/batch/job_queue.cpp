#include "tracewarp/model/batch/job_queue.hpp"

#include <algorithm>
#include <string>

#include "tracewarp/core/error.hpp"

namespace tracewarp::batch {

void JobQueue::push(const QueuedJob& job) {
  if (!empty() && storage_.back().id >= job.id)
    throw InvariantError("batch queue: job " + std::to_string(job.id) + " arrived out of order");
  storage_.push_back(job);
  index_.insert(job.id, job.nodes, job.requested);
}

void JobQueue::remove(std::vector<JobId> started) {
  // Each is found by binary search (ids ascend).
  std::sort(started.begin(), started.end());
  std::vector<std::size_t> positions;
  positions.reserve(started.size());
  for (const JobId id : started) {
    const auto it = std::lower_bound(storage_.begin() + static_cast<std::ptrdiff_t>(front_), storage_.end(), id,
                                     [](const QueuedJob& q, JobId v) { return q.id < v; });
    if (it == storage_.end() || it->id != id)
      throw InvariantError("batch scheduler: started job " + std::to_string(id) + " is not queued");
    positions.push_back(static_cast<std::size_t>(it - storage_.begin()));
    index_.erase(id);
  }
  // In ascending order, each hole is closed from the shorter side: the jobs before it move one
  // place back (and the front one on), or the jobs after it one place forward. Only the latter
  // moves the positions still to come.
  std::size_t shifted_forward = 0;
  for (const std::size_t original : positions) {
    const std::size_t p = original - shifted_forward;
    const auto hole = storage_.begin() + static_cast<std::ptrdiff_t>(p);
    if (p - front_ <= storage_.size() - p) {
      std::move_backward(storage_.begin() + static_cast<std::ptrdiff_t>(front_), hole, hole + 1);
      ++front_;
    } else {
      storage_.erase(hole);
      ++shifted_forward;
    }
  }
  if (front_ > 1024 && 2 * front_ > storage_.size()) {  // compact now and then: amortised O(1)
    storage_.erase(storage_.begin(), storage_.begin() + static_cast<std::ptrdiff_t>(front_));
    front_ = 0;
  }
}

}  // namespace tracewarp::batch
