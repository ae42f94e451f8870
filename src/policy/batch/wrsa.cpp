#include "tracewarp/policy/batch/wrsa.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "pass_steps.hpp"
#include "tracewarp/policy/batch/profile.hpp"

namespace tracewarp::batch {

using detail::considered;
using detail::end_of;
using detail::start_in_order;

namespace {

// Positions 0..limit-1 of the queue in descending WRSA, ties in queue order.
std::vector<std::size_t> by_wrsa(const SchedulingInput& in, std::size_t first, std::size_t limit) {
  std::vector<std::size_t> order(limit - first);
  std::iota(order.begin(), order.end(), first);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return in.queue[a].wrsa > in.queue[b].wrsa; });
  return order;
}

}  // namespace

double WrsaScores::score(std::int32_t user) const {
  const auto it = scores_.find(user);
  return it == scores_.end() ? 1.0 : it->second;
}

void WrsaScores::on_completion(std::int32_t user, Time executed, Time requested, bool killed) {
  const double wra =
      killed || requested <= 0 ? 1.0 : std::min(1.0, static_cast<double>(executed) / static_cast<double>(requested));
  const double old = score(user);
  scores_[user] = settings_.beta * old + (1 - settings_.beta) * wra;
}

PassDecision LwjfPolicy::pass(const SchedulingInput& in) {
  PassDecision out;
  std::uint32_t free = in.free_nodes;
  for (const std::size_t i : by_wrsa(in, 0, considered(in))) {
    const QueuedJob& job = in.queue[i];
    if (job.nodes > free) continue;
    free -= job.nodes;
    out.start_now.push_back(job.id);
    out.reservations.push_back({job.id, in.now});
  }
  return out;
}

PassDecision WrsaOneReservedPolicy::pass(const SchedulingInput& in) {
  PassDecision out;
  std::uint32_t free = in.free_nodes;
  std::vector<RunningJob> running(in.running.begin(), in.running.end());
  const std::size_t limit = considered(in);
  const std::size_t head_index = start_in_order(in, limit, free, running, out);  // FCFS from the head
  if (head_index == limit) return out;

  const QueuedJob& head = in.queue[head_index];
  AvailabilityProfile profile(in.now, free, running);
  const Time t0 = profile.earliest_start(head.nodes, head.requested);
  Time head_start = t0;
  const Time relaxed = end_of(t0, static_cast<Time>((settings_.alpha - 1) * static_cast<double>(head.requested)));
  for (const std::size_t i : by_wrsa(in, head_index + 1, limit)) {
    const QueuedJob& job = in.queue[i];
    if (job.nodes > free) continue;
    AvailabilityProfile trial = profile;
    trial.reserve(in.now, job.requested, job.nodes);
    const Time moved = trial.earliest_start(head.nodes, head.requested);
    const Time bound = job.wrsa > head.wrsa ? std::max(relaxed, head_start) : head_start;
    if (moved > bound) continue;
    profile = std::move(trial);
    head_start = moved;
    free -= job.nodes;
    out.start_now.push_back(job.id);
    out.reservations.push_back({job.id, in.now});
  }
  out.reservations.push_back({head.id, head_start});
  return out;
}

}  // namespace tracewarp::batch
