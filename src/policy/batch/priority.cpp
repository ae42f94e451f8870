#include "tracewarp/policy/batch/priority.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "tracewarp/core/error.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {
namespace {

std::string show_queue_priorities(const std::map<std::int32_t, double>& priorities) {
  std::string out;
  for (const auto& [queue, priority] : priorities) {
    if (!out.empty()) out += ",";
    std::ostringstream number;
    number << priority;
    out += std::to_string(queue) + ":" + number.str();
  }
  return out;
}

// "QUEUE:PRIORITY,..." with QUEUE the trace's queue number (SWF field 15).
std::map<std::int32_t, double> parse_queue_priorities(const std::string& spec, const std::string& key) {
  std::map<std::int32_t, double> out;
  std::istringstream in(spec);
  for (std::string item; std::getline(in, item, ',');) {
    const std::size_t colon = item.find(':');
    std::size_t used_queue = 0, used_priority = 0;
    try {
      if (colon == std::string::npos) throw std::invalid_argument("no colon");
      const long queue = std::stol(item.substr(0, colon), &used_queue);
      const double priority = std::stod(item.substr(colon + 1), &used_priority);
      if (used_queue != colon || used_priority != item.size() - colon - 1 || queue < 0 || queue > INT32_MAX ||
          !std::isfinite(priority) || priority < 0)
        throw std::invalid_argument("range");
      if (!out.emplace(static_cast<std::int32_t>(queue), priority).second)
        throw ConfigError(key + ": queue " + std::to_string(queue) + " is listed twice");
    } catch (const std::logic_error&) {
      throw ConfigError(key + ": '" + item + "' is not QUEUE:PRIORITY (a queue number >= 0, a priority >= 0)");
    }
  }
  return out;
}

}  // namespace

const ParamTable<PrioritySettings>& priority_params() {
  using P = PrioritySettings;
  static const ParamTable<P> table =
      ParamTable<P>("batch")
          .choice("priority", &P::order, {"arrival", "multifactor"},
                  "the order every policy reads its queue in: arrival, or a weighted sum of factors "
                  "(policy/batch/priority.hpp, Slurm's multifactor form); ties in arrival order")
          .number("priority_weight_age", &P::weight_age, "multifactor: weight of min(wait / max age, 1)", {.min = 0})
          .number("priority_weight_fairshare", &P::weight_fairshare,
                  "multifactor: weight of 2^(-usage / share), the account's decayed usage over all accounts'",
                  {.min = 0})
          .number("priority_weight_job_size", &P::weight_job_size,
                  "multifactor: weight of requested / machine size (1 minus it with priority_favor_small)", {.min = 0})
          .number("priority_weight_queue", &P::weight_queue,
                  "multifactor: weight of the job's queue priority over the highest (queue_priorities)", {.min = 0})
          .number("priority_weight_expansion", &P::weight_expansion,
                  "multifactor: weight of 1 - request / (wait + request), Maui's expansion factor XF as 1 - 1/XF",
                  {.min = 0})
          .seconds("priority_max_age_s", &P::max_age,
                   "multifactor: the wait at which the age factor reaches 1 "
                   "(Slurm's PriorityMaxAge)",
                   {.min = 1})
          .seconds("priority_calc_period_s", &P::calc_period,
                   "multifactor: queued jobs' priorities are recomputed this often, seconds (Slurm's "
                   "PriorityCalcPeriod; 0 = at every pass); a job's own at its arrival",
                   {.min = 0})
          .seconds("fairshare_half_life_s", &P::half_life,
                   "multifactor: usage halves over this many seconds (Slurm's PriorityDecayHalfLife)", {.min = 1})
          .choice("fairshare_by", &P::fairshare_by, {"user", "group"},
                  "multifactor: the account usage is charged to: the job's user or its group (SWF field 13)")
          .flag("priority_favor_small", &P::favor_small,
                "multifactor: the job-size factor favours small jobs (Slurm's PriorityFavorSmall)")
          .mapped("queue_priorities", &P::queue_priority,
                  "multifactor: QUEUE:PRIORITY,... by the trace's queue number (SWF field 15); unlisted queues 0",
                  show_queue_priorities, parse_queue_priorities);
  return table;
}

PriorityLayer::PriorityLayer(PrioritySettings settings, std::uint64_t machine_units, std::uint64_t accounts)
    : settings_(std::move(settings)),
      arrival_(settings_.by_arrival()),
      by_group_(settings_.fairshare_by == "group"),
      machine_units_(static_cast<double>(std::max<std::uint64_t>(machine_units, 1))),
      share_(1.0 / static_cast<double>(std::max<std::uint64_t>(accounts, 1))) {
  for (const auto& entry : settings_.queue_priority) top_queue_priority_ = std::max(top_queue_priority_, entry.second);
}

void PriorityLayer::begin_computation(Time now) {
  next_calc_ = now + settings_.calc_period;  // period 0: due again at the next pass
  fairshare_.clear();
  if (settings_.weight_fairshare <= 0 || total_usage_ <= 0) return;
  for (const auto& [account, used] : usage_) fairshare_.emplace_back(account, std::exp2(-used / total_usage_ / share_));
}

double PriorityLayer::fairshare_factor(const QueuedJob& job) const {
  const std::int32_t account = account_of(job.user, job.group);
  const auto it =
      std::lower_bound(fairshare_.begin(), fairshare_.end(), account,
                       [](const std::pair<std::int32_t, double>& e, std::int32_t a) { return e.first < a; });
  return it != fairshare_.end() && it->first == account ? it->second : 1.0;
}

double PriorityLayer::queue_factor(const QueuedJob& job) const {
  if (top_queue_priority_ <= 0) return 0;
  const auto it = settings_.queue_priority.find(job.queue);
  return it == settings_.queue_priority.end() ? 0.0 : it->second / top_queue_priority_;
}

double PriorityLayer::job_size_factor(const QueuedJob& job) const {
  const double size = std::min(static_cast<double>(job.nodes) / machine_units_, 1.0);
  return settings_.favor_small ? 1.0 - size : size;
}

PriorityFactors PriorityLayer::factors(const QueuedJob& job, Time now) const {
  PriorityFactors f;
  const double wait = to_seconds(std::max<Time>(now - job.submit, 0));
  f.age = std::min(wait / to_seconds(settings_.max_age), 1.0);
  if (settings_.weight_fairshare > 0) f.fairshare = fairshare_factor(job);
  f.job_size = job_size_factor(job);
  f.queue = queue_factor(job);
  f.expansion = wait / (wait + std::max(to_seconds(job.requested), 1.0));  // 1 - request / (wait + request)
  return f;
}

// The weighted sum of factors()'s factors, each computed only where its weight counts: a pass
// over a long queue computes this for every job.
double PriorityLayer::priority(const QueuedJob& job, Time now) const {
  if (by_arrival()) return 0;
  const PrioritySettings& s = settings_;
  const double wait = to_seconds(std::max<Time>(now - job.submit, 0));
  double sum = 0;
  if (s.weight_age > 0) sum += s.weight_age * std::min(wait / to_seconds(s.max_age), 1.0);
  if (s.weight_fairshare > 0) sum += s.weight_fairshare * fairshare_factor(job);
  if (s.weight_job_size > 0) sum += s.weight_job_size * job_size_factor(job);
  if (s.weight_queue > 0) sum += s.weight_queue * queue_factor(job);
  if (s.weight_expansion > 0) sum += s.weight_expansion * (wait / (wait + std::max(to_seconds(job.requested), 1.0)));
  return sum;
}

void PriorityLayer::decay_to(Time now) {
  if (now <= decayed_at_) return;
  const double keep = std::exp2(-to_seconds(now - decayed_at_) / to_seconds(settings_.half_life));
  decayed_at_ = now;
  total_usage_ = 0;
  for (auto& entry : usage_) {
    entry.second *= keep;
    total_usage_ += entry.second;
  }
}

void PriorityLayer::charge(std::int32_t account, double unit_seconds) {
  if (unit_seconds <= 0) return;
  usage_[account] += unit_seconds;
  total_usage_ += unit_seconds;
}

double PriorityLayer::usage(std::int32_t account) const {
  const auto it = usage_.find(account);
  return it == usage_.end() ? 0.0 : it->second;
}

}  // namespace tracewarp::batch
