#include "tracewarp/policy/replication/scheduling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tracewarp/core/named.hpp"

namespace tracewarp::replication {

const std::vector<Method>& replication_methods() {
  static const std::vector<Method> all = {
      {"wqr", "work queue with replication: idle hosts ask the server; replicas once the queue is empty", false, false,
       false, false},
      {"adaptive", "monitor and reschedule: static split, then collect every host and rebalance every period", true,
       true, false, false},
      {"proposed", "distributed replication: static split, then idle hosts poll for replicas (conditions 1-3)", true,
       false, true, true},
      {"proposed-no-cond3", "distributed replication without condition 3 (EST < ENT)", true, false, true, false},
  };
  return all;
}

const Method& find_method(const std::string& name) {
  return find_named(replication_methods(), name, "replication method");
}

std::vector<std::string> method_names() { return names_of(replication_methods()); }

std::vector<std::uint64_t> proportional_shares(std::uint64_t total, std::span<const double> weights) {
  const std::size_t n = weights.size();
  std::vector<std::uint64_t> share(n, 0);
  if (n == 0) return share;
  double sum = 0;
  for (const double w : weights) sum += std::max(0.0, w);
  std::vector<double> exact(n);
  for (std::size_t i = 0; i < n; ++i)
    exact[i] = sum > 0 ? static_cast<double>(total) * std::max(0.0, weights[i]) / sum
                       : static_cast<double>(total) / static_cast<double>(n);
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < n; ++i) {
    share[i] = std::min(total - given, static_cast<std::uint64_t>(std::floor(exact[i])));
    given += share[i];
  }
  // The rest, one each, to the largest remainders (ties: lowest index).
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return exact[a] - std::floor(exact[a]) > exact[b] - std::floor(exact[b]);
  });
  for (std::size_t k = 0; given < total; k = (k + 1) % n, ++given) ++share[order[k]];
  return share;
}

std::vector<Transfer> rebalance(std::span<const std::uint64_t> queued, std::span<const double> speeds) {
  const std::uint64_t total = std::accumulate(queued.begin(), queued.end(), std::uint64_t{0});
  const std::vector<std::uint64_t> target = proportional_shares(total, speeds);
  std::vector<Transfer> moves;
  std::size_t donor = 0, taker = 0;
  std::uint64_t surplus = 0, need = 0;
  const auto next_donor = [&] {
    while (surplus == 0 && donor < queued.size()) {
      if (queued[donor] > target[donor]) surplus = queued[donor] - target[donor];
      if (surplus == 0) ++donor;
    }
  };
  const auto next_taker = [&] {
    while (need == 0 && taker < queued.size()) {
      if (queued[taker] < target[taker]) need = target[taker] - queued[taker];
      if (need == 0) ++taker;
    }
  };
  for (next_donor(), next_taker(); surplus > 0 && need > 0; next_donor(), next_taker()) {
    const std::uint64_t c = std::min(surplus, need);
    moves.push_back({static_cast<std::uint32_t>(donor), static_cast<std::uint32_t>(taker), c});
    surplus -= c;
    need -= c;
    if (surplus == 0) ++donor;
    if (need == 0) ++taker;
  }
  return moves;
}

void WorkQueueReplication::reindex(std::uint64_t task, std::size_t old_running, std::size_t new_running) {
  by_copies_.erase({old_running, task});
  if (new_running > 0) by_copies_.insert({new_running, task});
}

WorkQueueReplication::Assignment WorkQueueReplication::assign(std::uint32_t host) {
  if (next_ < tasks_) {
    const std::uint64_t task = next_++;
    Running& r = running_[task];
    r.hosts.push_back(host);
    r.started = 1;
    by_copies_.insert({1, task});
    return {Assignment::original, task};
  }
  const auto least = by_copies_.begin();
  if (least == by_copies_.end() || least->first >= max_copies_) return {Assignment::none, 0};
  const std::uint64_t task = least->second;
  Running& r = running_.at(task);
  r.hosts.push_back(host);
  ++r.started;
  reindex(task, r.hosts.size() - 1, r.hosts.size());
  return {Assignment::replica, task};
}

WorkQueueReplication::Resolution WorkQueueReplication::finish(std::uint64_t task, std::uint32_t host) {
  const auto it = running_.find(task);
  if (it == running_.end()) return {false, 0, {}};  // a copy that finished after the winner
  Resolution res{true, it->second.started, {}};
  for (const std::uint32_t h : it->second.hosts)
    if (h != host) res.cancel.push_back(h);
  reindex(task, it->second.hosts.size(), 0);
  running_.erase(it);
  ++done_;
  return res;
}

Refusal judge_poll(const PolledState& polled, double task_work, double poller_speed, double extra_est_s,
                   std::uint32_t max_replicas, bool condition3) {
  if (!polled.processing_original) return Refusal::not_processing_original;
  if (polled.replicas >= max_replicas) return Refusal::replica_limit;
  if (condition3) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    const double ent = polled.speed > 0 ? polled.remaining_work / polled.speed : inf;
    const double est = poller_speed > 0 ? task_work / poller_speed + extra_est_s : inf;
    if (!(est < ent)) return Refusal::not_faster;
  }
  return Refusal::none;
}

}  // namespace tracewarp::replication
