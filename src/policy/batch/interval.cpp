#include "tracewarp/policy/batch/interval.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <limits>

#include "pass_steps.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/parallel.hpp"

namespace tracewarp::batch {
namespace {

constexpr std::size_t kMaxIntervals = 64;  // one bit per interval in a segment's mask

// Bits first..last set.
std::uint64_t bits(std::size_t first, std::size_t last) {
  const std::uint64_t upto = last == 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (last + 1)) - 1;
  return upto & ~((std::uint64_t{1} << first) - 1);
}

// "10m" -> 600 s, "2h" -> 7200 s, "90" or "90s" -> 90 s.
Time parse_duration(std::string_view text, const std::string& spec) {
  const auto fail = [&] {
    return ConfigError("interval pattern '" + spec + "': '" + std::string(text) +
                       "' is not a duration (a whole number with unit s, m or h)");
  };
  if (text.empty()) throw fail();
  std::int64_t unit = 1;
  if (text.back() == 's' || text.back() == 'm' || text.back() == 'h') {
    unit = text.back() == 'h' ? 3600 : text.back() == 'm' ? 60 : 1;
    text.remove_suffix(1);
  }
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value <= 0 || value > 10'000'000) throw fail();
  return from_seconds(value * unit);
}

}  // namespace

Time IntervalPattern::horizon() const {
  Time sum = 0;
  for (const Time l : lengths) sum += l;
  return sum;
}

IntervalPattern parse_interval_pattern(const std::string& spec) {
  if (spec == "A") return {"A", parse_interval_pattern("10m:1h,30m:12h,2h:24h,4h:36h,8h:60h").lengths};
  if (spec == "B") return {"B", parse_interval_pattern("1h:60h").lengths};
  if (spec == "C") return {"C", parse_interval_pattern("60h:60h").lengths};
  IntervalPattern pattern{spec, {}};
  Time reached = 0;
  std::string_view rest = spec;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view pair = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const std::size_t colon = pair.find(':');
    if (colon == std::string_view::npos)
      throw ConfigError("interval pattern '" + spec + "': expected length:up_to pairs, got '" + std::string(pair) +
                        "' (or A, B, C)");
    const Time length = parse_duration(pair.substr(0, colon), spec);
    const Time up_to = parse_duration(pair.substr(colon + 1), spec);
    if (up_to <= reached || (up_to - reached) % length != 0)
      throw ConfigError("interval pattern '" + spec + "': '" + std::string(pair) +
                        "' must end a whole number of lengths after the previous pair's end");
    for (; reached < up_to; reached += length) pattern.lengths.push_back(length);
    if (pattern.lengths.size() > kMaxIntervals)
      throw ConfigError("interval pattern '" + spec + "' has more than 64 intervals");
  }
  if (pattern.lengths.empty()) throw ConfigError("interval pattern is empty");
  return pattern;
}

IntervalPlan::IntervalPlan(std::uint32_t nodes, Time now, const IntervalPattern& pattern) : nodes_(nodes) {
  begins_.reserve(pattern.lengths.size() + 1);
  begins_.push_back(now);
  for (const Time l : pattern.lengths) begins_.push_back(begins_.back() + l);
  if (nodes > 0) segments_.push_back({0, 0});
  free_.assign(pattern.lengths.size(), nodes);
}

bool IntervalPlan::enough_free(std::uint32_t count, std::uint64_t mask) const {
  for (; mask != 0; mask &= mask - 1)
    if (free_[static_cast<std::size_t>(std::countr_zero(mask))] < count) return false;
  return true;
}

std::uint64_t IntervalPlan::window(std::size_t first_interval, Time duration) const {
  const Time need = std::max<Time>(duration, 1);
  // The last interval is the first whose end covers the duration.
  const auto last = std::lower_bound(begins_.begin() + static_cast<std::ptrdiff_t>(first_interval) + 1, begins_.end(),
                                     detail::end_of(begins_[first_interval], need));
  if (last == begins_.end()) return 0;
  return bits(first_interval, static_cast<std::size_t>(last - begins_.begin()) - 1);
}

std::size_t IntervalPlan::windows(Time duration, std::array<std::uint64_t, 64>& masks) const {
  const Time need = std::max<Time>(duration, 1);
  const std::size_t k = intervals();
  std::size_t last = 1;  // index into begins_: the first boundary at or after the window's end
  for (std::size_t s = 0; s < k; ++s) {
    const Time end = detail::end_of(begins_[s], need);
    last = std::max(last, s + 1);  // ends only move later as the start does
    while (last <= k && begins_[last] < end) ++last;
    if (last > k) return s;
    masks[s] = bits(s, last - 1);
  }
  return k;
}

std::uint32_t IntervalPlan::end_of(std::size_t segment) const {
  return segment + 1 < segments_.size() ? segments_[segment + 1].first : nodes_;
}

std::size_t IntervalPlan::split(std::uint32_t node) {
  auto it = std::upper_bound(segments_.begin(), segments_.end(), node,
                             [](std::uint32_t n, const Segment& s) { return n < s.first; });
  const std::size_t containing = static_cast<std::size_t>(it - segments_.begin()) - 1;
  if (segments_[containing].first == node) return containing;
  segments_.insert(it, {node, segments_[containing].used});
  return containing + 1;
}

void IntervalPlan::occupy(std::uint32_t first, std::uint32_t count, std::uint64_t mask) {
  if (count == 0 || first + count > nodes_) throw InvariantError("interval plan: nodes outside the machine");
  const std::size_t from = split(first);
  const std::size_t to = first + count < nodes_ ? split(first + count) : segments_.size();
  for (std::size_t i = from; i < to; ++i) {
    if (segments_[i].used & mask)
      throw InvariantError("interval plan: node " + std::to_string(segments_[i].first) + " used twice");
    segments_[i].used |= mask;
  }
  for (std::uint64_t m = mask; m != 0; m &= m - 1) free_[static_cast<std::size_t>(std::countr_zero(m))] -= count;
  // Merge equal neighbours around the change so the line stays short.
  const std::size_t lo = from > 0 ? from - 1 : 0, hi = std::min(to, segments_.size() - 1);
  std::size_t out = lo;
  for (std::size_t i = lo + 1; i <= hi; ++i)
    if (segments_[i].used != segments_[out].used) segments_[++out] = segments_[i];
  segments_.erase(segments_.begin() + static_cast<std::ptrdiff_t>(out + 1),
                  segments_.begin() + static_cast<std::ptrdiff_t>(hi + 1));
}

void IntervalPlan::occupy_running(const RunningJob& job) {
  // Intervals that begin before the requested end; at least the first (the job runs now, even
  // past its walltime when jobs are not killed).
  const auto past = std::lower_bound(begins_.begin(), begins_.end() - 1, job.requested_end);
  const std::size_t count = std::max<std::size_t>(1, static_cast<std::size_t>(past - begins_.begin()));
  occupy(job.first_node, job.nodes, bits(0, count - 1));
}

std::int64_t IntervalPlan::lowest_free_range(std::uint32_t count, std::uint64_t mask, std::uint32_t from,
                                             std::uint32_t* longest) const {
  if (from >= nodes_) return -1;
  // Most segments are used somewhere in the window: the first inner loop passes them with one
  // test each, the second extends a free run. The longest run stays in a register (a store
  // through `longest` on every used segment could alias the segments and forced a reload).
  const Segment* s = &*std::prev(std::upper_bound(segments_.begin(), segments_.end(), from,
                                                  [](std::uint32_t n, const Segment& seg) { return n < seg.first; }));
  const Segment* const end = segments_.data() + segments_.size();
  std::uint32_t best = 0;
  for (;;) {
    // Four at a time while four remain: one end test per four segments.
    while (end - s >= 4 && (s[0].used & mask) != 0 && (s[1].used & mask) != 0 && (s[2].used & mask) != 0 &&
           (s[3].used & mask) != 0)
      s += 4;
    while (s != end && (s->used & mask) != 0) ++s;
    if (s == end) break;
    const std::uint32_t run_first = std::max(s->first, from);
    do ++s;
    while (s != end && (s->used & mask) == 0);
    const std::uint32_t run = (s == end ? nodes_ : s->first) - run_first;
    if (run >= count) return run_first;
    best = std::max(best, run);
  }
  if (longest != nullptr) *longest = std::max(*longest, best);
  return -1;
}

IntervalPlan::SearchMemo::SearchMemo(std::size_t intervals)
    : k_(intervals),
      smallest_(intervals * intervals, std::numeric_limits<std::uint32_t>::max()),
      fits_(intervals * intervals) {}

void IntervalPlan::SearchMemo::misfit(std::size_t first, std::size_t last, std::uint32_t count) {
  // Every window that contains first..last (starts no later, ends no earlier) holds no more. The
  // table only falls toward earlier starts and later ends, so a cell already known stops a row,
  // and a row already known at `last` stops the rest.
  for (std::size_t s = first + 1; s-- > 0;) {
    if (smallest_[s * k_ + last] <= count) break;
    for (std::size_t e = last; e < k_ && smallest_[s * k_ + e] > count; ++e) smallest_[s * k_ + e] = count;
  }
}

IntervalPlan::Placement IntervalPlan::earliest(std::uint32_t count, Time duration, SearchMemo* memo) const {
  std::array<std::uint64_t, 64> masks;
  const std::size_t starts = windows(duration, masks);
  return earliest(count, masks, starts, memo);
}

IntervalPlan::Placement IntervalPlan::earliest(std::uint32_t count, const std::array<std::uint64_t, 64>& masks,
                                               std::size_t starts, SearchMemo* memo) const {
  const std::size_t k = intervals();
  const Placement none{k, 0, 0};
  // Each start's window is computed once, when that start is tried; windows only grow toward
  // the horizon, so the first start whose window does not fit inside it ends the search.
  const auto last_of = [](std::uint64_t mask) { return static_cast<std::size_t>(63 - std::countl_zero(mask)); };
  // For each start tried in vain: the fewest nodes now known not to fit its window. A scan of
  // the whole line learns its longest free run, so every larger count is ruled out too.
  std::array<std::uint32_t, 64> misfit_from;
  const auto try_start = [&](std::size_t s, std::uint64_t mask) -> Placement {
    misfit_from[s] = count;
    if (memo != nullptr && memo->known_misfit(s, last_of(mask), count)) return none;
    if (!enough_free(count, mask)) return none;
    const std::uint32_t from = memo != nullptr ? memo->lowest_possible(s, last_of(mask), count) : 0;
    std::uint32_t longest = 0;
    const std::int64_t first = lowest_free_range(count, mask, from, &longest);
    if (first >= 0) return Placement{s, static_cast<std::uint32_t>(first), mask};
    // Below `from` no run reaches the count of the fit that set it (at most `count`).
    const std::uint32_t below = from > 0 ? memo->lowest_possible_count(s, last_of(mask)) - 1 : 0;
    misfit_from[s] = std::max(longest, below) + 1;
    return none;
  };
  const auto remember = [&](std::size_t s, std::uint64_t mask) {
    if (memo != nullptr) memo->misfit(s, last_of(mask), misfit_from[s]);
  };
  const auto found = [&](const Placement& p) {
    if (memo != nullptr) memo->fit(p.interval, last_of(p.mask), count, p.first_node);
    return p;
  };
  // Small plans: in order, stop at the first fit. Large ones: batches of starts in parallel,
  // the earliest fit of the first batch that has one (the same for any thread count).
  constexpr std::size_t kParallelSegments = 512, kBatch = 8;
  if (segments_.size() < kParallelSegments) {
    for (std::size_t s = 0; s < starts; ++s) {
      if (const Placement p = try_start(s, masks[s]); p.interval < k) return found(p);
      remember(s, masks[s]);
    }
    return none;
  }
  for (std::size_t from = 0; from < starts; from += kBatch) {
    const std::size_t n = std::min(kBatch, starts - from);
    const Placement p = deterministic_reduce(
        n, none, [&](std::size_t i) { return try_start(from + i, masks[from + i]); },
        [](const Placement& a, const Placement& b) { return b.interval < a.interval ? b : a; }, 1);
    for (std::size_t i = 0; i < n && from + i < p.interval; ++i) remember(from + i, masks[from + i]);
    if (p.interval < k) return found(p);
  }
  return none;
}

std::uint64_t IntervalPlan::mask_of(std::uint32_t node) const {
  auto it = std::upper_bound(segments_.begin(), segments_.end(), node,
                             [](std::uint32_t n, const Segment& s) { return n < s.first; });
  return std::prev(it)->used;
}

// The cells of a nodes x intervals table that a search reading start intervals 0..last (each
// start's whole window, on every node) reads for a job of `duration`; it stops where windows
// leave the horizon.
std::uint64_t table_cells(const std::array<std::uint64_t, 64>& masks, std::size_t starts, std::uint32_t nodes,
                          std::size_t last) {
  std::uint64_t intervals = 0;
  for (std::size_t s = 0; s <= last && s < starts; ++s)  // a window is a run of bits
    intervals += static_cast<std::uint64_t>(64 - std::countl_zero(masks[s]) - std::countr_zero(masks[s]));
  return intervals * nodes;
}

PassDecision IntervalPolicy::pass(const SchedulingInput& in) {
  PassDecision out;
  IntervalPlan plan(in.total_nodes, in.now, pattern_);
  for (const RunningJob& r : in.running) plan.occupy_running(r);
  // A job that did not fit rules out every later job at least as large and as long: the plan
  // only fills up during the pass, and longer windows contain shorter ones.
  std::vector<std::pair<std::uint32_t, Time>> failed;
  IntervalPlan::SearchMemo memo(plan.intervals());
  std::array<std::uint64_t, 64> masks;
  for (const QueuedJob& job : detail::considered(in)) {
    detail::check_fits_machine(job, in);
    const std::size_t starts = plan.windows(job.requested, masks);
    if (std::any_of(failed.begin(), failed.end(),
                    [&](const auto& f) { return job.nodes >= f.first && job.requested >= f.second; })) {
      out.plan_cells += table_cells(masks, starts, in.total_nodes, plan.intervals());  // a table would search
      continue;
    }
    const IntervalPlan::Placement p = plan.earliest(job.nodes, masks, starts, &memo);
    out.plan_cells += table_cells(masks, starts, in.total_nodes, p.interval);
    if (p.interval == plan.intervals()) {
      failed.emplace_back(job.nodes, job.requested);
      continue;
    }
    plan.occupy(p.first_node, job.nodes, p.mask);
    out.reservations.push_back({job.id, plan.begin(p.interval)});
    if (p.interval == 0) {
      out.start_now.push_back(job.id);
      out.first_nodes.push_back(p.first_node);
    }
  }
  return out;
}

}  // namespace tracewarp::batch
