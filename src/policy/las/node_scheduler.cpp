#include "tracewarp/policy/las/node_scheduler.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "tracewarp/core/error.hpp"

namespace tracewarp::las {
namespace {
constexpr double kSlack = 1e-9;  // demands are fractions of capacities: compare with a tolerance
}

NodeScheduler::NodeScheduler(Amounts capacity, NodeSchedulerSettings settings)
    : capacity_(capacity), settings_(settings) {
  if (settings.max_candidates > 16) throw ConfigError("LAS: at most 16 preemption candidates (N)");
}

bool NodeScheduler::fits(const Amounts& demand) const {
  for (std::size_t r = 0; r < kResources; ++r)
    if (used_[r] + demand[r] > capacity_[r] + kSlack) return false;
  return true;
}

std::vector<std::size_t> NodeScheduler::victims(const Amounts& demand, Time above, Time now) const {
  // Running tasks by attained service, longest first (ties: dispatch order).
  // A task whose service is complete at this instant ends now (its end event is due): never a
  // victim.
  const auto attained_now = [&](std::size_t i) { return running_[i].attained + (now - running_[i].since); };
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < running_.size(); ++i)
    if ((above < 0 || attained_now(i) > above) && attained_now(i) < running_[i].task.service) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return attained_now(a) > attained_now(b) ||
           (attained_now(a) == attained_now(b) && running_[a].order < running_[b].order);
  });
  const auto frees_enough = [&](const std::vector<std::size_t>& set) {
    Amounts after = used_;
    for (const std::size_t i : set)
      for (std::size_t r = 0; r < kResources; ++r) after[r] -= running_[i].task.demand[r];
    for (std::size_t r = 0; r < kResources; ++r)
      if (after[r] + demand[r] > capacity_[r] + kSlack) return false;
    return true;
  };
  if (settings_.rule == Preemption::greedy) {
    std::vector<std::size_t> set;
    for (const std::size_t i : order) {
      set.push_back(i);
      if (frees_enough(set)) return set;
    }
    return {};
  }
  // W shields a task that has just started or resumed from suspended tasks only: a new task
  // runs at once, whatever it must preempt.
  const bool for_suspended = above >= 0;
  std::vector<std::size_t> candidates;
  for (const std::size_t i : order)
    if ((!for_suspended || now - running_[i].since >= settings_.min_run) &&
        candidates.size() < settings_.max_candidates)
      candidates.push_back(i);
  // Sets as bit masks over the candidates, in the enumeration order of the study.
  std::vector<std::uint32_t> sets;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const std::size_t earlier = sets.size();
    sets.push_back(std::uint32_t{1} << k);
    for (std::size_t s = 0; s < earlier; ++s) sets.push_back(sets[s] | (std::uint32_t{1} << k));
    for (std::size_t s = earlier; s < sets.size(); ++s) {
      std::vector<std::size_t> set;
      for (std::size_t b = 0; b < candidates.size(); ++b)
        if (sets[s] & (std::uint32_t{1} << b)) set.push_back(candidates[b]);
      if (frees_enough(set)) return set;
    }
  }
  return {};
}

void NodeScheduler::start(Entry entry, Time now, NodeChanges& changes) {
  for (std::size_t r = 0; r < kResources; ++r) used_[r] += entry.task.demand[r];
  entry.since = now;
  changes.started.push_back(entry.task.id);
  running_.push_back(entry);
}

void NodeScheduler::suspend(Entry entry) {
  const auto at = std::upper_bound(suspended_.begin(), suspended_.end(), entry, [](const Entry& a, const Entry& b) {
    return a.attained < b.attained || (a.attained == b.attained && a.order < b.order);
  });
  suspended_.insert(at, entry);
}

void NodeScheduler::preempt(const std::vector<std::size_t>& indices, Time now, NodeChanges& changes) {
  for (const std::size_t i : indices) changes.preempted.push_back(running_[i].task.id);  // in the chosen order
  std::vector<std::size_t> sorted = indices;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());  // erase from the back
  for (const std::size_t i : sorted) {
    Entry e = running_[i];
    e.attained += now - e.since;
    ++e.preemptions;
    ++preemptions_;
    for (std::size_t r = 0; r < kResources; ++r) used_[r] -= e.task.demand[r];
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
    suspend(e);
  }
}

void NodeScheduler::try_suspended(Time now, NodeChanges& changes, Time margin) {
  while (!suspended_.empty()) {
    const Entry head = suspended_.front();
    if (!fits(head.task.demand)) {
      const std::vector<std::size_t> set = victims(head.task.demand, head.attained + margin, now);
      if (set.empty()) return;
      preempt(set, now, changes);
    }
    suspended_.erase(suspended_.begin());  // still first: its victims had more attained service
    start(head, now, changes);
  }
}

NodeChanges NodeScheduler::on_quantum(Time now) {
  NodeChanges changes;
  // Victims must have strictly more than head + quantum - 1 tick: at least a quantum more.
  if (settings_.quantum > 0) try_suspended(now, changes, settings_.quantum - 1);
  return changes;
}

NodeChanges NodeScheduler::dispatch(const LasTask& task, Time now) {
  for (std::size_t r = 0; r < kResources; ++r)
    if (task.demand[r] > capacity_[r] + kSlack)
      throw InvariantError("LAS node: task " + std::to_string(task.id) + " needs more than the node has");
  NodeChanges changes;
  Entry entry{task, 0, now, dispatched_++, 0};
  if (!fits(task.demand)) {
    const std::vector<std::size_t> set = victims(task.demand, -1, now);
    if (set.empty()) {
      suspend(entry);
      return changes;
    }
    preempt(set, now, changes);
  }
  start(entry, now, changes);
  try_suspended(now, changes);  // a preemption may have freed more than the new task takes
  return changes;
}

NodeChanges NodeScheduler::complete(std::uint64_t id, Time now, std::uint32_t* preemptions) {
  const auto it = std::find_if(running_.begin(), running_.end(), [&](const Entry& e) { return e.task.id == id; });
  if (it == running_.end())
    throw InvariantError("LAS node: completion of task " + std::to_string(id) + ", not running");
  if (it->attained + (now - it->since) != it->task.service)
    throw InvariantError("LAS node: task " + std::to_string(id) + " completed before its service was attained");
  if (preemptions) *preemptions = it->preemptions;
  for (std::size_t r = 0; r < kResources; ++r) used_[r] -= it->task.demand[r];
  running_.erase(it);
  NodeChanges changes;
  try_suspended(now, changes);
  return changes;
}

Time NodeScheduler::finish_time(std::uint64_t id) const {
  for (const Entry& e : running_)
    if (e.task.id == id) return e.since + (e.task.service - e.attained);
  return kTimeInfinity;
}

Time NodeScheduler::attained(std::uint64_t id, Time now) const {
  for (const Entry& e : running_)
    if (e.task.id == id) return e.attained + (now - e.since);
  for (const Entry& e : suspended_)
    if (e.task.id == id) return e.attained;
  return -1;
}

}  // namespace tracewarp::las
