#include "tracewarp/model/batch/job_queue.hpp"

#include <algorithm>
#include <string>

#include "tracewarp/core/error.hpp"

namespace tracewarp::batch {

void JobQueue::push(const QueuedJob& job) {
  if (storage_.size() > front_ && storage_.back().id >= job.id)
    throw InvariantError("batch queue: job " + std::to_string(job.id) + " arrived out of order");
  if (QueueView::is_started(job)) throw InvariantError("batch queue: job " + std::to_string(job.id) + " of 0 nodes");
  storage_.push_back(job);
  ++size_;
  index_.insert(job.id, job.nodes, job.requested);
}

void JobQueue::remove(std::vector<JobId> started) {
  const auto first = storage_.begin() + static_cast<std::ptrdiff_t>(front_);
  for (const JobId id : started) {  // found by binary search: ids ascend, marked entries included
    const auto it = std::lower_bound(first, storage_.end(), id, [](const QueuedJob& q, JobId v) { return q.id < v; });
    if (it == storage_.end() || it->id != id || QueueView::is_started(*it))
      throw InvariantError("batch scheduler: started job " + std::to_string(id) + " is not queued");
    it->nodes = 0;  // the mark (QueueView::is_started)
    --size_;
    index_.erase(id);
  }
  while (front_ < storage_.size() && QueueView::is_started(storage_[front_])) ++front_;
  const std::size_t marked = storage_.size() - front_ - size_;
  if (marked > std::max<std::size_t>(size_, 64) || (front_ > 1024 && 2 * front_ > storage_.size())) compact();
}

// Drops every marked entry (those before the front are all marked): O(entries), run when they
// outnumber the queued jobs, so O(1) amortised per removal.
void JobQueue::compact() {
  std::erase_if(storage_, [](const QueuedJob& q) { return QueueView::is_started(q); });
  front_ = 0;
}

}  // namespace tracewarp::batch
