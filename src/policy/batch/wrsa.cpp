#include "tracewarp/policy/batch/wrsa.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "pass_steps.hpp"
#include "tracewarp/policy/batch/profile.hpp"
#include "tracewarp/policy/batch/registry.hpp"

namespace tracewarp::batch {

using detail::considered;
using detail::end_of;

namespace {

// The queued jobs a WRSA policy considers: the first `depth` of the whole queue in descending
// WRSA, ties in queue order (all of it when depth is 0), in that order. (The view's entries lie
// in queue order in memory, so the addresses order ties.)
std::vector<const QueuedJob*> considered_by_wrsa(const SchedulingInput& in) {
  std::vector<const QueuedJob*> order;
  order.reserve(in.queue.size());
  for (const QueuedJob& job : in.queue) order.push_back(&job);
  const auto before = [](const QueuedJob* a, const QueuedJob* b) {
    return a->wrsa != b->wrsa ? a->wrsa > b->wrsa : std::less<>{}(a, b);
  };
  const std::size_t limit = considered(in).size();
  if (limit < order.size()) {  // only the top `limit` need sorting
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(limit), order.end(), before);
    order.resize(limit);
  }
  std::sort(order.begin(), order.end(), before);
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
  for (const QueuedJob* queued : considered_by_wrsa(in)) {
    const QueuedJob& job = *queued;
    detail::check_fits_machine(job, in);
    if (job.nodes > free) {
      if (on_misfit_ == OnMisfit::stop) break;
      continue;
    }
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
  // The considered jobs (top `depth` by WRSA) in the head reading's order start while they fit;
  // the first that does not is the head, the ones after it are the backfill candidates.
  std::vector<const QueuedJob*> order = considered_by_wrsa(in);
  if (settings_.or_head == WrsaSettings::Head::earliest_arrived)
    std::sort(order.begin(), order.end(), std::less<>{});  // queue order: entries lie in it in memory
  auto head_at = order.begin();
  for (; head_at != order.end(); ++head_at) {
    const QueuedJob& job = **head_at;
    detail::check_fits_machine(job, in);
    if (job.nodes > free) break;
    free -= job.nodes;
    running.push_back({job.id, job.nodes, in.now, end_of(in.now, job.requested)});
    out.start_now.push_back(job.id);
    out.reservations.push_back({job.id, in.now});
  }
  if (head_at == order.end()) return out;
  const QueuedJob& head = **head_at;
  std::vector<const QueuedJob*> candidates(head_at + 1, order.end());
  const auto by_wrsa = [](const QueuedJob* a, const QueuedJob* b) {
    return a->wrsa != b->wrsa ? a->wrsa > b->wrsa : std::less<>{}(a, b);
  };
  if (settings_.or_head == WrsaSettings::Head::earliest_arrived)
    std::sort(candidates.begin(), candidates.end(), by_wrsa);

  AvailabilityProfile profile(in.now, free, running);
  Time head_start = profile.earliest_start(head.nodes, head.requested);
  if (!head_ || head_->id != head.id) head_ = HeadPlan{head.id, head_start};  // first reserved now
  const Time relaxed =
      end_of(head_->t0, static_cast<Time>((settings_.alpha - 1) * static_cast<double>(head.requested)));
  for (const QueuedJob* queued : candidates) {
    const QueuedJob& job = *queued;
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

PassDecision WrsaAllReservedPolicy::pass(const SchedulingInput& in) {
  PassDecision out;
  AvailabilityProfile profile(in.now, in.free_nodes, in.running);
  const std::vector<const QueuedJob*> order = considered_by_wrsa(in);
  // Standing reservations go into the profile first (as in conservative backfill).
  std::map<JobId, Plan> standing;
  for (const QueuedJob* queued : order) {
    const QueuedJob& job = *queued;
    detail::check_fits_machine(job, in);
    const auto it = reserved_.find(job.id);
    if (it == reserved_.end()) continue;
    const Time start = std::max(it->second.start, in.now);
    if (!profile.fits(start, job.requested, job.nodes)) {
      ++out.broken_reservations;  // placed afresh below, keeping its bound
      continue;
    }
    profile.reserve(start, job.requested, job.nodes);
    standing[job.id] = {start, it->second.bound};
  }
  const auto slack = [&](const QueuedJob& job) {
    return static_cast<Time>((settings_.alpha - 1) * static_cast<double>(job.requested));
  };
  std::map<JobId, Plan> kept;
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const QueuedJob& job = *order[pos];
    Plan plan;
    if (const auto it = standing.find(job.id); it != standing.end()) {  // compress: only earlier
      profile.release(it->second.start, job.requested, job.nodes);
      plan = {profile.earliest_start(job.nodes, job.requested), it->second.bound};
      profile.reserve(plan.start, job.requested, job.nodes);
    } else {
      plan.start = profile.earliest_start(job.nodes, job.requested);
      // The relaxation: push back later reservations of lower-WRSA users, within their bounds.
      std::vector<const QueuedJob*> pushed;
      for (std::size_t later = pos + 1; later < order.size(); ++later) {
        const QueuedJob& other = *order[later];
        if (other.wrsa < job.wrsa && standing.count(other.id)) pushed.push_back(order[later]);
      }
      bool placed = false;
      if (!pushed.empty() && plan.start > in.now) {
        AvailabilityProfile trial = profile;
        for (const QueuedJob* k : pushed) trial.release(standing[k->id].start, k->requested, k->nodes);
        const Time earlier = trial.earliest_start(job.nodes, job.requested);
        trial.reserve(earlier, job.requested, job.nodes);
        bool within_bounds = earlier < plan.start;  // otherwise pushing gains nothing
        std::vector<Time> moved;
        for (std::size_t n = 0; within_bounds && n < pushed.size(); ++n) {
          const QueuedJob& other = *pushed[n];
          const Time at = trial.earliest_start(other.nodes, other.requested);
          within_bounds = at <= standing[other.id].bound;
          trial.reserve(at, other.requested, other.nodes);
          moved.push_back(at);
        }
        if (within_bounds) {
          profile = std::move(trial);
          for (std::size_t n = 0; n < pushed.size(); ++n) standing[pushed[n]->id].start = moved[n];
          plan.start = earlier;
          placed = true;
        }
      }
      if (!placed) profile.reserve(plan.start, job.requested, job.nodes);
      const auto before = reserved_.find(job.id);  // a broken reservation keeps its first bound
      plan.bound = before != reserved_.end() ? before->second.bound : end_of(plan.start, slack(job));
    }
    out.reservations.push_back({job.id, plan.start});
    if (plan.start == in.now)
      out.start_now.push_back(job.id);
    else
      kept[job.id] = plan;
  }
  reserved_ = std::move(kept);
  return out;
}

// ---- registrations (registry.hpp) ----
namespace {
// The WRSA policies' own keys; the scores' beta is the model's (batch.wrsa_beta), which keeps
// the scores for any policy that reads them.
struct WrsaPolicySettings {
  double wrsa_alpha = WrsaSettings{}.alpha;
  std::string wrsa_or_head = "earliest-arrived";
  WrsaSettings wrsa() const {
    return {wrsa_alpha, WrsaSettings{}.beta,
            wrsa_or_head == "highest-wrsa" ? WrsaSettings::Head::highest_wrsa : WrsaSettings::Head::earliest_arrived};
  }
};
const ParamTable<WrsaPolicySettings>& wrsa_keys() {
  using S = WrsaPolicySettings;
  static const auto table =
      ParamTable<S>("batch")
          .number("wrsa_alpha", &S::wrsa_alpha,
                  "policies wrsa-or, wrsa-ar: a reservation may move to T0 + (alpha - 1) x its walltime (wrsa.hpp)",
                  {.min = 1})
          .choice("wrsa_or_head", &S::wrsa_or_head, {"earliest-arrived", "highest-wrsa"},
                  "policy wrsa-or: which of the top queue_depth jobs by WRSA is the reserved head, the earliest "
                  "arrived (EASY's head within them) or the first in WRSA order (our reading: wrsa.hpp)");
  return table;
}

const RegisteredBatchPolicy lwjf("lwjf",
                                 "largest WRSA job first: FCFS over the queue in descending WRSA, stops at the first "
                                 "misfit",
                                 [] { return LwjfPolicy{}; });
const RegisteredBatchPolicy lwjf_fill("lwjf-fill",
                                      "LWJF variant: every job that fits starts, in descending WRSA, no reservations",
                                      [] { return LwjfPolicy{LwjfPolicy::OnMisfit::skip}; });
const RegisteredBatchPolicy wrsa_or(
    "wrsa-or", "EASY with backfill in descending WRSA; higher-WRSA users may delay the head up to alpha", wrsa_keys(),
    [](const WrsaPolicySettings& s) { return WrsaOneReservedPolicy{s.wrsa()}; });
const RegisteredBatchPolicy wrsa_ar(
    "wrsa-ar", "conservative backfill in descending WRSA; may push lower-WRSA reservations up to alpha", wrsa_keys(),
    [](const WrsaPolicySettings& s) { return WrsaAllReservedPolicy{s.wrsa()}; });
}  // namespace

}  // namespace tracewarp::batch
