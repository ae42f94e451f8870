#include "tracewarp/model/batch/job_queue.hpp"

#include <algorithm>
#include <string>

#include "tracewarp/core/error.hpp"

namespace tracewarp::batch {

void JobQueue::push(const QueuedJob& job) {
  if (QueueView::is_started(job)) throw InvariantError("batch queue: job " + std::to_string(job.id) + " of 0 nodes");
  if (order_ == Order::priority) {
    storage_.insert(
        std::upper_bound(storage_.begin() + static_cast<std::ptrdiff_t>(front_), storage_.end(), job, Before{}), job);
    priority_by_id_.emplace_back(job.id, job.priority);
    ++size_;
    return;
  }
  if (storage_.size() > front_ && storage_.back().id >= job.id)
    throw InvariantError("batch queue: job " + std::to_string(job.id) + " arrived out of order");
  storage_.push_back(job);
  ++size_;
  index_.insert(job.id, job.nodes, job.requested);
}

void JobQueue::remove(std::vector<JobId> started) {
  mark_started(std::move(started));
  while (front_ < storage_.size() && QueueView::is_started(storage_[front_])) ++front_;
  const std::size_t marked = storage_.size() - front_ - size_;
  if (marked > std::max<std::size_t>(size_, 64) || (front_ > 1024 && 2 * front_ > storage_.size())) compact();
}

void JobQueue::mark_started(std::vector<JobId> started) {
  const auto first = storage_.begin() + static_cast<std::ptrdiff_t>(front_);
  const auto mark = [&](QueuedJob& entry) {
    entry.nodes = 0;  // the mark (QueueView::is_started)
    --size_;
  };
  const auto not_queued = [](JobId id) {
    return InvariantError("batch scheduler: started job " + std::to_string(id) + " is not queued");
  };
  if (order_ == Order::arrival) {
    for (const JobId id : started) {  // found by binary search: ids ascend, marked entries included
      const auto it = std::lower_bound(first, storage_.end(), id, [](const QueuedJob& q, JobId v) { return q.id < v; });
      if (it == storage_.end() || it->id != id || QueueView::is_started(*it)) throw not_queued(id);
      mark(*it);
      index_.erase(id);
    }
    return;
  }
  // Priority order: each found by binary search on its (priority, id), marked entries included.
  for (const JobId id : started) {
    double* priority = priority_by_id(id);
    if (priority == nullptr) throw not_queued(id);
    QueuedJob key{};
    key.id = id;
    key.priority = *priority;
    const auto it = std::lower_bound(first, storage_.end(), key, Before{});
    if (it == storage_.end() || it->id != id || QueueView::is_started(*it)) throw not_queued(id);
    mark(*it);
    *priority = kStartedMark;
  }
  if (priority_by_id_.size() > 2 * std::max<std::size_t>(size_, 64)) drop_started_priorities();
}

double* JobQueue::priority_by_id(JobId id) {
  const auto it = std::lower_bound(priority_by_id_.begin(), priority_by_id_.end(), id,
                                   [](const std::pair<JobId, double>& e, JobId v) { return e.first < v; });
  return it == priority_by_id_.end() || it->first != id || it->second == kStartedMark ? nullptr : &it->second;
}

void JobQueue::drop_started_priorities() {
  std::erase_if(priority_by_id_, [](const std::pair<JobId, double>& e) { return e.second == kStartedMark; });
}

// Drops every marked entry (those before the front are all marked): O(entries), run when they
// outnumber the queued jobs, so O(1) amortised per removal.
void JobQueue::compact() {
  std::erase_if(storage_, [](const QueuedJob& q) { return QueueView::is_started(q); });
  front_ = 0;
}

}  // namespace tracewarp::batch
