#include <stdexcept>

#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {

QueueView QueueView::first(std::size_t n) const {
  if (n >= size_) return *this;
  std::size_t seen = 0;
  const QueuedJob* at = entries_.data();
  while (seen < n)
    if (!is_started(*at++)) ++seen;
  return QueueView(entries_.first(static_cast<std::size_t>(at - entries_.data())), n);
}

JobId QueueView::last_id() const {
  if (size_ == 0) throw std::logic_error("QueueView::last_id of an empty queue");
  const QueuedJob* at = entries_.data() + entries_.size();
  while (is_started(*--at)) {
  }
  return at->id;
}

}  // namespace tracewarp::batch
