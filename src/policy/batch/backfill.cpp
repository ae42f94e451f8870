#include "tracewarp/policy/batch/backfill.hpp"

#include <algorithm>

#include "pass_steps.hpp"
#include "tracewarp/policy/batch/profile.hpp"
#include "tracewarp/policy/batch/registry.hpp"

namespace tracewarp::batch {

using detail::check_fits_machine;
using detail::considered;
using detail::end_of;
using detail::for_each_queued;
using detail::start_in_order;
PassDecision FcfsPolicy::pass(const SchedulingInput& in) {
  PassDecision out;
  std::uint32_t free = in.free_nodes;
  std::vector<RunningJob> started;
  start_in_order(in, considered(in), free, started, out);
  return out;
}

PassDecision EasyBackfillPolicy::pass(const SchedulingInput& in) {
  PassDecision out;
  std::uint32_t free = in.free_nodes;
  std::vector<RunningJob> started;  // by this pass, in queue order
  const QueueView jobs = considered(in);
  const QueueView::iterator head_at = start_in_order(in, jobs, free, started, out);
  if (head_at == jobs.end()) return out;

  const QueuedJob& head = *head_at;
  const Shadow shadow_and_free = shadow_of(in.now, free, in.running, started, head.nodes, in.running_in_end_order);
  const Time shadow = shadow_and_free.start;
  out.reservations.push_back({head.id, shadow});
  std::uint32_t extra = shadow_and_free.free - head.nodes;  // nodes the head will not need
  // A job ends by the shadow if its request is at most this long (end_of(now, r) <= shadow,
  // asked of every candidate, without the saturating addition).
  const Time ends_by_shadow_if_within = shadow == kTimeInfinity ? kTimeInfinity : shadow - in.now;

  // Nothing can start once fewer nodes are free than the smallest queued job needs; jobs the
  // previous pass settled are still refused (the shadow and the extra nodes are unchanged and
  // the time only moved on: see ArrivalOrderHints::settled_below).
  const std::uint32_t smallest = std::max<std::uint32_t>(1, in.smallest_queued);
  if (free < smallest) return out;
  const auto may_hold = [&](const QueueIndex::Summary& s) {  // a stretch's smallest and shortest job
    return s.nodes <= free && (s.nodes <= extra || s.requested <= ends_by_shadow_if_within);
  };
  const auto backfill = [&](const QueuedJob& job) {
    if (job.nodes > free) return true;
    check_fits_machine(job, in);  // (only candidates: it is a check on the model, not a filter)
    const bool ends_by_shadow = job.requested <= ends_by_shadow_if_within;
    if (!ends_by_shadow && job.nodes > extra) return true;
    free -= job.nodes;
    if (!ends_by_shadow) extra -= job.nodes;
    out.start_now.push_back(job.id);
    out.reservations.push_back({job.id, in.now});
    return free >= smallest;
  };
  for_each_queued(in, jobs, std::next(head_at), may_hold, backfill);
  return out;
}

PassDecision ConservativeBackfillPolicy::pass(const SchedulingInput& in) {
  PassDecision out;
  AvailabilityProfile profile(in.now, in.free_nodes, in.running);
  const QueueView jobs = considered(in);
  // Every standing reservation goes into the profile first; one whose start has passed without
  // a pass (a scheduling tick) is kept from now on for what remains of its window.
  std::map<JobId, Time> standing;
  std::vector<AvailabilityProfile::Booking> bookings;
  for (const QueuedJob& job : jobs) {
    check_fits_machine(job, in);
    const auto it = reserved_.find(job.id);
    if (it == reserved_.end()) continue;
    const Time start = std::max(it->second, in.now);
    standing.emplace(job.id, start);
    bookings.push_back({start, job.requested, job.nodes});
  }
  // All at once when they all fit (the usual case, and the same profile); else one by one in
  // queue order, a reservation that no longer fits placed afresh below, like a new job.
  if (!profile.reserve_all(bookings)) {
    for (const QueuedJob& job : jobs) {
      const auto it = standing.find(job.id);
      if (it == standing.end()) continue;
      if (!profile.fits(it->second, job.requested, job.nodes)) {
        ++out.broken_reservations;
        standing.erase(it);
        continue;
      }
      profile.reserve(it->second, job.requested, job.nodes);
    }
  }
  // Compress in queue order: out with the job's own reservation, back in at its earliest fit.
  reserved_.clear();
  for (const QueuedJob& job : jobs) {
    const auto it = standing.find(job.id);
    Time start = kTimeInfinity;
    if (it == standing.end()) {  // a new job, or a broken reservation
      start = profile.earliest_start(job.nodes, job.requested);
      profile.reserve(start, job.requested, job.nodes);
    } else {
      const AvailabilityProfile::Booking own{it->second, job.requested, job.nodes};
      start = profile.earliest_start_if_released(own);
      if (start != own.start) {  // it moves earlier (a job that stays is left in place)
        profile.release(own.start, own.duration, own.nodes);
        profile.reserve(start, own.duration, own.nodes);
      }
    }
    out.reservations.push_back({job.id, start});
    if (start == in.now)
      out.start_now.push_back(job.id);
    else
      reserved_[job.id] = start;
  }
  return out;
}

PassDecision ReservingBackfillPolicy::pass(const SchedulingInput& in) {
  PassDecision out;
  AvailabilityProfile profile(in.now, in.free_nodes, in.running);
  const Time horizon = window_ == 0 ? kTimeInfinity : end_of(in.now, window_);
  std::size_t reserved = 0;
  // Once every reservation is given, only jobs that fit now matter: none can once fewer nodes are
  // free now than the smallest queued job needs, and a job needing more than are free now is
  // passed over without searching its window (both exact: fits() would refuse them).
  const std::uint32_t smallest = std::max<std::uint32_t>(1, in.smallest_queued);
  // Within a pass the profile only loses nodes, so a job of the same size and length as one
  // searched before cannot start earlier than that one's earliest start: its search starts
  // there (exact; on RICC 97.5% of the searches of K = 100 are of a shape searched before).
  std::map<std::pair<std::uint32_t, Time>, Time> searched;
  for (const QueuedJob& job : considered(in)) {
    const bool all_reserved = reserved_ != 0 && reserved == reserved_;
    const std::uint32_t free_now = profile.free_now();
    if (all_reserved && free_now < smallest) break;
    check_fits_machine(job, in);
    if (job.nodes <= free_now && profile.fits(in.now, job.requested, job.nodes)) {
      profile.reserve(in.now, job.requested, job.nodes);
      out.start_now.push_back(job.id);
      out.reservations.push_back({job.id, in.now});
      continue;
    }
    if (all_reserved) continue;  // backfilled if it fits now, else waits
    const auto shape = searched.try_emplace({job.nodes, job.requested}, in.now).first;
    const Time start = profile.earliest_start_from(job.nodes, job.requested, shape->second);
    shape->second = start;
    if (start > horizon) continue;  // beyond the window: no reservation (Slurm's bf_window)
    profile.reserve(start, job.requested, job.nodes);
    out.reservations.push_back({job.id, start});
    ++reserved;
  }
  return out;
}

// ---- registrations (registry.hpp) ----
namespace {
struct ReservingBackfillSettings {
  std::size_t reserved_jobs = 1;
  Time backfill_window = from_seconds(std::int64_t{86'400});
};
const ParamTable<ReservingBackfillSettings>& reserving_backfill_keys() {
  using S = ReservingBackfillSettings;
  static const auto table =
      ParamTable<S>("batch")
          .integer("reserved_jobs", &S::reserved_jobs,
                   "policy backfill: how many of the queue's first jobs (in priority order) that cannot start get a "
                   "reservation at each pass: 1 = EASY, 0 = every job (Slurm's bf_max_job_test)")
          .seconds("backfill_window_s", &S::backfill_window,
                   "policy backfill: no reservation starts later than this after the pass, seconds (Slurm's bf_window, "
                   "1 day by default; 0 = no window)",
                   {.min = 0});
  return table;
}

const RegisteredBatchPolicy fcfs(
    "fcfs", "first come, first served: start in queue order, stop at the first job that does not fit",
    [] { return FcfsPolicy{}; });
const RegisteredBatchPolicy easy("easy",
                                 "EASY backfill: the head reserved at its shadow time, later jobs backfilled around it",
                                 [] { return EasyBackfillPolicy{}; });
const RegisteredBatchPolicy conservative("conservative",
                                         "conservative backfill: every job reserved, schedule compressed each pass",
                                         [] { return ConservativeBackfillPolicy{}; });
const RegisteredBatchPolicy backfill(
    "backfill",
    "Slurm's backfill: replanned each pass in priority order, reservations for the first reserved_jobs jobs that "
    "cannot start (within backfill_window_s), the others started where they fit around them",
    reserving_backfill_keys(), [](const ReservingBackfillSettings& s) {
      return ReservingBackfillPolicy{s.reserved_jobs, s.backfill_window};
    });
}  // namespace

}  // namespace tracewarp::batch
