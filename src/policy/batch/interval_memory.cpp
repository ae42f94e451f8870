#include "interval_memory.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace tracewarp::batch {
namespace {
// Past this many groups of freed cells the rest of the pass searches every job: groups pile up
// when placements cascade (a job moves into freed space, the next into its old place, ...), and
// then most later jobs move too. On the K computer's bursty 21-day run (pattern A) a cap of 4
// took 6.3 s, 12 5.9 s, 64 6.9 s.
constexpr std::size_t kMostFreed = 12;
}  // namespace

void IntervalPassMemory::begin(const IntervalPlan& start, bool keep) {
  windows.trim();
  freed_count_ = 0;
  now_.clear();
  next_ = 0;
  pending_.reset();
  touching_.clear();
  intervals_ = start.intervals();
  keeping_ = keep;
  resumable_ = false;
  if (!keep) {  // nothing is kept, nothing recorded for the next pass
    base_.reset();
    final_.reset();
    last_.clear();
    given_up_ = true;
    return;
  }
  given_up_ = !base_ || base_->nodes() != start.nodes() || base_->intervals() != start.intervals() || !last_by_id_;
  freed_cells_.clear();
  if (!given_up_) start.freed_since(*base_, freed_cells_);
  for (const IntervalPlan::Cells& f : freed_cells_) add_freed(f);
  start_ = start;
  resumable_ = !given_up_ && freed_count_ == 0 && final_ && final_->nodes() == start.nodes() &&
               final_->intervals() == start.intervals() && start.same_cells(*base_);
}

void IntervalPassMemory::pass_started() {
  while (next_ < last_.size() && last_[next_].place.interval == 0) ++next_;  // running now
}

std::optional<IntervalPassMemory::Kept> IntervalPassMemory::resumed(const QueuedJob& job) {
  if (!resumable_) return std::nullopt;
  pass_started();
  if (next_ < last_.size()) {
    const Record& r = last_[next_];
    if (r.id == job.id && r.nodes == job.nodes && r.requested == job.requested) {
      ++next_;
      return Kept{r.place, r.plan_cells};
    }
  }
  resumable_ = false;
  return std::nullopt;
}

bool IntervalPassMemory::resumed_all() {
  pass_started();
  return next_ == last_.size();
}

void IntervalPassMemory::add_freed(const IntervalPlan::Cells& cells) {
  if (given_up_ || freed_count_ == kMostFreed) {
    given_up_ = true;
    return;
  }
  if (freed_count_ == freed_.size()) freed_.emplace_back();
  freed_[freed_count_].cells = cells;
  freed_[freed_count_++].bounded = false;
  touching_.resize(touching_.size() + intervals_ * intervals_, std::numeric_limits<std::uint32_t>::max());
}

bool IntervalPassMemory::may_touch(std::size_t f, std::uint32_t count, std::uint64_t window, const IntervalPlan& plan) {
  Freed& group = freed_[f];
  if ((window & group.cells.mask) == 0) return false;
  const std::uint32_t group_end = group.cells.first + group.cells.count;
  if (!group.bounded) {
    plan.touching_bounds(group.cells.first, group_end, group.least[0]);
    group.most = 0;
    for (std::uint64_t m = group.cells.mask; m != 0; m &= m - 1)
      group.most = std::max(group.most, group.least[0][static_cast<std::size_t>(std::countr_zero(m))]);
    for (std::size_t j = 1; j < group.least.size(); ++j)
      for (std::size_t i = 0; i + (std::size_t{1} << j) <= intervals_; ++i)
        group.least[j][i] = std::min(group.least[j - 1][i], group.least[j - 1][i + (std::size_t{1} << (j - 1))]);
    group.bounded = true;
  }
  if (group.most < count) return false;
  const auto first = static_cast<std::size_t>(std::countr_zero(window));
  const auto last = static_cast<std::size_t>(63 - std::countl_zero(window));
  const auto j = static_cast<std::size_t>(std::bit_width(last - first + 1) - 1);
  if (std::min(group.least[j][first], group.least[j][last + 1 - (std::size_t{1} << j)]) < count) return false;
  std::uint32_t& longest = touching_[(f * intervals_ + first) * intervals_ + last];
  if (longest < count) return false;
  longest = plan.longest_touching(group.cells.first, group_end, window);
  return longest >= count;
}

void IntervalPassMemory::forget(const Record& r) {
  // A job started by the last pass (first interval) is in base_; what of it is free now is in
  // freed_ already.
  if (r.place.interval == 0 || r.place.interval >= intervals_) return;
  add_freed({r.place.first_node, r.nodes, r.place.mask});
}

std::vector<IntervalPassMemory::Record>::const_iterator IntervalPassMemory::record_from(
    std::vector<Record>::const_iterator from, JobId id) const {
  // The queue follows the records' order, so the record sought is nearly always the first or
  // one of the next few: gallop from there before halving, instead of halving over the rest.
  const auto before = [](const Record& r, JobId sought) { return r.id < sought; };
  std::ptrdiff_t step = 1;
  auto lo = from;
  while (last_.end() - lo > step && before(lo[step - 1], id)) {
    lo += step;
    step *= 2;
  }
  return std::lower_bound(lo, lo + std::min(step, last_.end() - lo), id, before);
}

std::optional<IntervalPassMemory::Kept> IntervalPassMemory::kept(const QueuedJob& job, const IntervalPlan& plan,
                                                                 JobWindows& windows) {
  pending_.reset();
  if (given_up_) return std::nullopt;
  const auto from = last_.cbegin() + static_cast<std::ptrdiff_t>(next_);
  const auto it = record_from(from, job.id);
  if (it == last_.end() || it->id != job.id) return std::nullopt;  // new since the last pass
  std::for_each(from, it, [&](const Record& r) { forget(r); });    // no longer queued
  next_ = static_cast<std::size_t>(it - last_.cbegin()) + 1;
  const Record& r = *it;
  if (r.nodes != job.nodes || r.requested != job.requested) {
    forget(r);
    return std::nullopt;
  }
  pending_ = r;
  if (given_up_) return std::nullopt;
  const IntervalPlan::Placement& p = r.place;
  if (p.interval < plan.intervals() && !plan.is_free(p.first_node, job.nodes, p.mask)) return std::nullopt;
  // The windows that meet a group's intervals are consecutive starts: each window's last
  // interval is no earlier than the one before's. Walk them down from the latest start.
  for (std::size_t f = 0; f < freed_count_; ++f) {
    if (freed_[f].bounded && freed_[f].most < job.nodes) continue;
    const std::size_t latest = std::min(windows.starts(), p.interval + 1);
    const std::array<std::uint64_t, 64>& masks = windows.masks();
    const auto lowest_freed = static_cast<unsigned>(std::countr_zero(freed_[f].cells.mask));
    const auto highest_freed = static_cast<std::size_t>(63 - std::countl_zero(freed_[f].cells.mask));
    for (std::size_t s = std::min(latest, highest_freed + 1); s-- > 0;) {
      if (std::bit_width(masks[s]) <= lowest_freed) break;  // ends before the group's intervals
      if (may_touch(f, job.nodes, masks[s], plan)) return std::nullopt;
    }
  }
  pending_.reset();
  return Kept{p, r.plan_cells};
}

void IntervalPassMemory::searched(const IntervalPlan::Placement& p) {
  if (pending_ && (pending_->place.interval != p.interval || pending_->place.first_node != p.first_node))
    forget(*pending_);
  pending_.reset();
}

void IntervalPassMemory::placed(const QueuedJob& job, const IntervalPlan::Placement& p, std::uint64_t plan_cells) {
  if (keeping_) now_.push_back({job.id, job.nodes, job.requested, p, plan_cells});
}

void IntervalPassMemory::end(const IntervalPlan& final) {
  if (!keeping_) return;
  if (final_)
    *final_ = final;  // into the old one's buffers
  else
    final_ = final;
  std::swap(base_, start_);  // the old base's buffers take the next start plan
  for (const Record& r : now_)
    if (r.place.interval == 0) base_->occupy(r.place.first_node, r.nodes, r.place.mask);
  last_.swap(now_);
  last_by_id_ = std::adjacent_find(last_.begin(), last_.end(),
                                   [](const Record& a, const Record& b) { return a.id >= b.id; }) == last_.end();
}

}  // namespace tracewarp::batch
