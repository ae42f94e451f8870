#include "tracewarp/policy/batch/interval.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include "free_runs.hpp"
#include "interval_memory.hpp"
#include "interval_plan.hpp"
#include "pass_steps.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/parallel.hpp"
#include "tracewarp/policy/batch/registry.hpp"

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

// Cells by first node, a byte of the node number a pass (LSD radix): a comparison sort of a few
// hundred running jobs mispredicted about every other comparison.
void sort_by_first(std::vector<IntervalPlan::Cells>& cells, std::uint32_t nodes) {
  std::vector<IntervalPlan::Cells> sorted(cells.size());
  for (unsigned shift = 0; shift < 32 && (std::max(nodes, 1u) - 1) >> shift != 0; shift += 8) {
    std::array<std::uint32_t, 257> at{};  // at[d]: where digit d's cells go
    for (const IntervalPlan::Cells& c : cells) ++at[(c.first >> shift & 0xff) + 1];
    for (std::size_t d = 1; d < at.size(); ++d) at[d] += at[d - 1];
    for (const IntervalPlan::Cells& c : cells) sorted[at[c.first >> shift & 0xff]++] = c;
    cells.swap(sorted);
  }
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

IntervalPlan::IntervalPlan(std::uint32_t nodes, Time now, const IntervalPattern& pattern, std::string_view kernel)
    : nodes_(nodes), kernel_(&detail::free_run_kernel_named(kernel)) {
  begins_.reserve(pattern.lengths.size() + 1);
  begins_.push_back(now);
  for (const Time l : pattern.lengths) begins_.push_back(begins_.back() + l);
  if (nodes > 0) {
    firsts_.push_back(0);
    used_.push_back(0);
  }
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
  return segment + 1 < firsts_.size() ? firsts_[segment + 1] : nodes_;
}

void IntervalPlan::replace_segments(std::size_t at, std::size_t replaced, std::span<const Segment> line) {
  // The segments above move once in each column, by the change in length (most placements add
  // one or two segments, or none).
  const std::size_t size = firsts_.size(), above = at + replaced, moved = size - above;
  const auto shift = [&](auto& column) {
    if (line.size() > replaced) column.resize(size + line.size() - replaced);
    if (line.size() != replaced)
      std::memmove(column.data() + at + line.size(), column.data() + above, moved * sizeof(column[0]));
    if (line.size() < replaced) column.resize(size - (replaced - line.size()));
  };
  shift(firsts_);
  shift(used_);
  for (std::size_t i = 0; i < line.size(); ++i) {
    firsts_[at + i] = line[i].first;
    used_[at + i] = line[i].used;
  }
}

void IntervalPlan::occupy(std::uint32_t first, std::uint32_t count, std::uint64_t mask) {
  if (count == 0 || first >= nodes_ || count > nodes_ - first)
    throw InvariantError("interval plan: nodes outside the machine");
  const std::uint32_t last = first + count;
  // Segments lo..hi hold the range; they and their neighbours (merged where equal) are
  // rewritten in a scratch line, then put back with one move of the segments above.
  const std::size_t lo = segment_at(first);
  std::size_t hi = lo;
  while (hi + 1 < firsts_.size() && firsts_[hi + 1] < last) ++hi;
  const std::size_t below = lo > 0 ? lo - 1 : lo, above = std::min(hi + 1, firsts_.size() - 1);
  std::vector<Segment>& line = scratch_;
  line.clear();
  const auto add = [&](Segment seg) {
    if (line.empty() || line.back().used != seg.used) line.push_back(seg);
  };
  for (std::size_t i = below; i < lo; ++i) add({firsts_[i], used_[i]});
  if (firsts_[lo] < first) add({firsts_[lo], used_[lo]});
  for (std::size_t i = lo; i <= hi; ++i) {
    if (used_[i] & mask)
      throw InvariantError("interval plan: node " + std::to_string(std::max(firsts_[i], first)) + " used twice");
    add({std::max(firsts_[i], first), used_[i] | mask});
  }
  if (end_of(hi) > last) add({last, used_[hi]});
  for (std::size_t i = hi + 1; i <= above; ++i) add({firsts_[i], used_[i]});
  replace_segments(below, above - below + 1, line);
  for (std::uint64_t m = mask; m != 0; m &= m - 1) free_[static_cast<std::size_t>(std::countr_zero(m))] -= count;
}

void IntervalPlan::occupy_running(std::span<const RunningJob> jobs) {
  // Intervals that begin before the requested end; at least the first (the job runs now, even
  // past its walltime when jobs are not killed).
  const auto held = [&](const RunningJob& job) {
    const auto past = std::lower_bound(begins_.begin(), begins_.end() - 1, job.requested_end);
    return bits(0, std::max<std::size_t>(1, static_cast<std::size_t>(past - begins_.begin())) - 1);
  };
  if (used_.size() != 1 || used_[0] != 0) {  // not a fresh plan: one by one
    for (const RunningJob& job : jobs) occupy(job.first_node, job.nodes, held(job));
    return;
  }
  // A fresh plan is written in node order in one sweep.
  std::vector<Cells> by_node;
  by_node.reserve(jobs.size());
  for (const RunningJob& job : jobs) {
    if (job.nodes == 0 || job.first_node >= nodes_ || job.nodes > nodes_ - job.first_node)
      throw InvariantError("interval plan: nodes outside the machine");
    by_node.push_back({job.first_node, job.nodes, held(job)});
  }
  sort_by_first(by_node, nodes_);
  firsts_.clear();
  used_.clear();
  const auto add = [&](std::uint32_t first, std::uint64_t used) {
    if (used_.empty() || used_.back() != used) {
      firsts_.push_back(first);
      used_.push_back(used);
    }
  };
  std::uint32_t reached = 0;  // nodes below are written
  // A running job holds a prefix of the intervals: nodes_held_upto[c] counts the nodes of the
  // jobs that hold intervals 0..c-1, summed into the free counts once at the end.
  std::array<std::uint32_t, kMaxIntervals + 1> nodes_held_upto{};
  for (const Cells& job : by_node) {
    if (job.first < reached) throw InvariantError("interval plan: node " + std::to_string(job.first) + " used twice");
    if (job.first > reached) add(reached, 0);
    add(job.first, job.mask);
    reached = job.first + job.count;
    nodes_held_upto[static_cast<std::size_t>(std::bit_width(job.mask))] += job.count;
  }
  if (reached < nodes_) add(reached, 0);
  std::uint32_t held_now = 0;  // nodes of the jobs that hold interval i
  for (std::size_t i = intervals(); i-- > 0;) free_[i] -= held_now += nodes_held_upto[i + 1];
}

std::size_t IntervalPlan::segment_at(std::uint32_t node) const {
  return kernel_->locate != nullptr ? kernel_->locate(firsts_.data(), firsts_.size(), node)
                                    : detail::locate_by_halving(firsts_.data(), firsts_.size(), node);
}

bool IntervalPlan::is_free(std::uint32_t first, std::uint32_t count, std::uint64_t mask) const {
  if (count == 0 || first >= nodes_ || count > nodes_ - first) return false;
  for (std::size_t s = segment_at(first), n = firsts_.size(); s != n && firsts_[s] < first + count; ++s)
    if ((used_[s] & mask) != 0) return false;
  return true;
}

std::uint32_t IntervalPlan::longest_touching(std::uint32_t first, std::uint32_t last, std::uint64_t mask) const {
  std::uint32_t longest = 0;
  if (first >= std::min(last, nodes_)) return longest;
  const std::size_t n = firsts_.size();
  std::size_t s = segment_at(first);
  // A free run holding `first` may begin further down.
  if ((used_[s] & mask) == 0)
    while (s != 0 && (used_[s - 1] & mask) == 0) --s;
  while (s != n && firsts_[s] < last) {
    if ((used_[s] & mask) != 0) {
      ++s;
      continue;
    }
    const std::uint32_t run_first = firsts_[s];
    do ++s;
    while (s != n && (used_[s] & mask) == 0);
    longest = std::max(longest, (s == n ? nodes_ : firsts_[s]) - run_first);
  }
  return longest;
}

void IntervalPlan::touching_bounds(std::uint32_t first, std::uint32_t last,
                                   std::array<std::uint32_t, 64>& bounds) const {
  constexpr int kLookAside = 16;  // segments looked at on each side
  last = std::min(last, nodes_);
  const std::size_t n = firsts_.size();
  const std::size_t at_first = segment_at(first);
  std::uint64_t used_throughout = ~std::uint64_t{0};
  for (std::size_t s = at_first; s != n && firsts_[s] < last; ++s) used_throughout &= used_[s];
  // Free nodes below `first`, per interval: a bit leaves `open` at the first segment using it.
  std::array<std::uint32_t, 64> below, above;
  std::uint64_t open = ~std::uint64_t{0};
  std::size_t s = at_first;
  std::uint32_t reached = first;  // nodes from here up to `first` are free in the open intervals
  if (firsts_[s] < first) {       // the part of `first`'s segment below it
    for (std::uint64_t m = open & used_[s]; m != 0; m &= m - 1) below[std::countr_zero(m)] = 0;
    open &= ~used_[s];
    reached = firsts_[s];
  }
  for (int step = 0; open != 0 && s != 0 && step < kLookAside; ++step) {
    --s;
    for (std::uint64_t m = open & used_[s]; m != 0; m &= m - 1) below[std::countr_zero(m)] = first - reached;
    open &= ~used_[s];
    reached = firsts_[s];
  }
  for (std::uint64_t m = open; m != 0; m &= m - 1) below[std::countr_zero(m)] = first;  // assumed
  // Free nodes from `last` on.
  open = ~std::uint64_t{0};
  s = last < nodes_ ? segment_at(last) : n;
  reached = last;
  if (s != n && firsts_[s] < last) {  // `last` inside a segment: it starts there
    for (std::uint64_t m = open & used_[s]; m != 0; m &= m - 1) above[std::countr_zero(m)] = 0;
    open &= ~used_[s];
    reached = end_of(s);
    ++s;
  }
  for (int step = 0; open != 0 && s != n && step < kLookAside; ++step, ++s) {
    for (std::uint64_t m = open & used_[s]; m != 0; m &= m - 1) above[std::countr_zero(m)] = reached - last;
    open &= ~used_[s];
    reached = end_of(s);
  }
  for (std::uint64_t m = open; m != 0; m &= m - 1) above[std::countr_zero(m)] = nodes_ - last;  // assumed
  for (std::size_t i = 0; i < intervals(); ++i)
    bounds[i] = (used_throughout >> i & 1) != 0 ? 0 : below[i] + (last - first) + above[i];
}

void IntervalPlan::freed_since(const IntervalPlan& earlier, std::vector<Cells>& out) const {
  if (earlier.nodes_ != nodes_) throw InvariantError("interval plan: comparing plans of different machines");
  const std::size_t from = out.size();
  std::size_t i = 0, j = 0;  // the segments of this plan and of `earlier` holding node n
  for (std::uint32_t n = 0; n < nodes_;) {
    const std::uint32_t next = std::min(end_of(i), earlier.end_of(j));
    const std::uint64_t freed = earlier.used_[j] & ~used_[i];
    if (freed != 0) {
      if (out.size() > from && out.back().mask == freed && out.back().first + out.back().count == n)
        out.back().count += next - n;
      else
        out.push_back({n, next - n, freed});
    }
    n = next;
    if (n == end_of(i)) ++i;
    if (n == earlier.end_of(j)) ++j;
  }
}

bool IntervalPlan::same_cells(const IntervalPlan& other) const {
  // Lines are canonical (neighbouring segments differ), so equal cells mean equal segments.
  return nodes_ == other.nodes_ && free_ == other.free_ && firsts_ == other.firsts_ && used_ == other.used_;
}

void IntervalPlan::take_cells(const IntervalPlan& other) {
  if (other.nodes_ != nodes_ || other.intervals() != intervals())
    throw InvariantError("interval plan: taking the cells of another machine's plan");
  firsts_ = other.firsts_;
  used_ = other.used_;
  free_ = other.free_;
}

std::int64_t IntervalPlan::lowest_free_range(std::uint32_t count, std::uint64_t mask, std::uint32_t from,
                                             std::uint32_t* longest) const {
  if (from >= nodes_) return -1;
  const detail::FreeRunLine line{firsts_.data(), used_.data(), firsts_.size(), nodes_};
  const detail::FreeRunResult r = kernel_->search(line, from == 0 ? 0 : segment_at(from), {mask, count, from});
  if (r.first < 0 && longest != nullptr) *longest = std::max(*longest, r.longest);
  return r.first;
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
  // For each start tried in vain: the fewest nodes now known not to fit its window (a scan of
  // the whole line learns its longest free run, so every larger count is ruled out too), or 0
  // where the memo knew already and there is nothing to record (most starts: a search tries 30
  // on average on the K computer, 28 of them known).
  std::array<std::uint32_t, 64> misfit_from;
  const auto try_start = [&](std::size_t s, std::uint64_t mask) -> Placement {
    misfit_from[s] = 0;
    if (memo != nullptr && memo->known_misfit(s, last_of(mask), count)) return none;
    misfit_from[s] = count;
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
    if (memo != nullptr && misfit_from[s] != 0) memo->misfit(s, last_of(mask), misfit_from[s]);
  };
  const auto found = [&](const Placement& p) {
    if (memo != nullptr) memo->fit(p.interval, last_of(p.mask), count, p.first_node);
    return p;
  };
  // Small plans: in order, stop at the first fit. Large ones: batches of starts in parallel,
  // the earliest fit of the first batch that has one (the same for any thread count).
  constexpr std::size_t kParallelSegments = 512, kBatch = 8;
  if (firsts_.size() < kParallelSegments) {
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

std::uint64_t IntervalPlan::mask_of(std::uint32_t node) const { return used_[segment_at(node)]; }

IntervalPolicy::IntervalPolicy(IntervalPattern pattern, Passes passes, std::string kernel)
    : pattern_(std::move(pattern)), passes_(passes), kernel_(std::move(kernel)) {
  detail::free_run_kernel_named(kernel_);  // a kernel this CPU does not run is refused at set-up
}

namespace {

// The speed-ups of a pass, beside its rule: each gives the place IntervalPlan::earliest would
// find, and the plan cells it would read, with less work.
//   * A job at least as large and as long as one that fit nowhere fits nowhere: the plan only
//     fills up during the pass, and longer windows contain shorter ones.
//   * The last pass's place of a job, where provably unchanged (interval_memory.hpp).
//   * While the pass resumes the last one (all its places unchanged, in its order), the places
//     it takes over are written into the plan only when the resumption ends; once all are taken,
//     the last pass's final plan is this one's.
class PassShortcuts {
 public:
  struct Found {
    IntervalPlan::Placement place;
    std::uint64_t plan_cells;  // the cells a nodes x intervals table search would read
    bool fits;
  };
  PassShortcuts(IntervalPlan& plan, IntervalPassMemory& memory, bool keep_places)
      : plan_(plan), memory_(memory), memo_(plan.intervals()) {
    memory_.begin(plan_, keep_places);
    resuming_ = memory_.resumable();
  }

  Found earliest(const QueuedJob& job) {
    JobWindows windows(memory_.windows, plan_, job.requested);
    if (std::any_of(failed_.begin(), failed_.end(),
                    [&](const auto& f) { return job.nodes >= f.first && job.requested >= f.second; }))
      return {{}, std::uint64_t{windows.get().intervals_through(plan_.intervals())} * plan_.nodes(), false};
    std::optional<IntervalPassMemory::Kept> kept;
    if (resuming_) kept = memory_.resumed(job);
    if (!kept) {
      stop_resuming();
      kept = memory_.kept(job, plan_, windows);
    }
    Found found{};
    if (kept) {
      found.place = kept->place, found.plan_cells = kept->plan_cells;
    } else {
      found.place = plan_.earliest(job.nodes, windows.masks(), windows.starts(), &memo_);
      found.plan_cells = std::uint64_t{windows.get().intervals_through(found.place.interval)} * plan_.nodes();
      memory_.searched(found.place);
    }
    memory_.placed(job, found.place, found.plan_cells);
    found.fits = found.place.interval < plan_.intervals();
    if (!found.fits) {
      // Kept minimal: one it makes redundant (as large and as long) goes. The job itself was not
      // ruled out, so no kept entry makes it redundant.
      std::erase_if(failed_, [&](const auto& f) { return f.first >= job.nodes && f.second >= job.requested; });
      failed_.emplace_back(job.nodes, job.requested);
    }
    return found;
  }

  void occupy(const QueuedJob& job, const IntervalPlan::Placement& p) {
    if (resuming_)
      taken_over_.push_back({p.first_node, job.nodes, p.mask});
    else
      plan_.occupy(p.first_node, job.nodes, p.mask);
  }

  void finish() {
    stop_resuming();
    memory_.end(plan_);
  }

 private:
  void stop_resuming() {
    if (!std::exchange(resuming_, false)) return;
    if (memory_.resumed_all())
      plan_.take_cells(memory_.final_plan());
    else
      for (const IntervalPlan::Cells& c : taken_over_) plan_.occupy(c.first, c.count, c.mask);
  }

  IntervalPlan& plan_;
  IntervalPassMemory& memory_;
  IntervalPlan::SearchMemo memo_;
  std::vector<std::pair<std::uint32_t, Time>> failed_;  // (nodes, walltime) of jobs that fit nowhere
  bool resuming_ = false;
  std::vector<IntervalPlan::Cells> taken_over_;
};

}  // namespace

// The rule of the header: each queued job, in order, takes the earliest interval start, then the
// lowest node range, free in the plan for its walltime, or waits; the first interval starts now.
PassDecision IntervalPolicy::pass(const SchedulingInput& in) {
  PassDecision out;
  IntervalPlan plan(in.total_nodes, in.now, pattern_, kernel_);
  plan.occupy_running(in.running);
  PassShortcuts shortcuts(plan, memory_.get(), passes_ == Passes::keep_places);
  for (const QueuedJob& job : detail::considered(in)) {
    detail::check_fits_machine(job, in);
    const PassShortcuts::Found found = shortcuts.earliest(job);
    out.plan_cells += found.plan_cells;
    if (!found.fits) continue;
    shortcuts.occupy(job, found.place);
    out.reservations.push_back({job.id, plan.begin(found.place.interval)});
    if (found.place.interval == 0) {
      out.start_now.push_back(job.id);
      out.first_nodes.push_back(found.place.first_node);
    }
  }
  shortcuts.finish();
  return out;
}

// ---- registration (registry.hpp) ----
namespace {
struct IntervalSettings {
  std::string interval_pattern = "A";
  bool interval_from_scratch = false;
  std::string free_runs = "auto";
};
std::string show_pattern(const std::string& spec) { return spec; }
// A pattern is checked where it is read, so a bad one stops a run before it starts.
std::string checked_pattern(const std::string& spec, const std::string& key) {
  try {
    parse_interval_pattern(spec);
  } catch (const ConfigError& e) {
    throw ConfigError(key + ": " + e.what());
  }
  return spec;
}
const ParamTable<IntervalSettings>& interval_keys() {
  using S = IntervalSettings;
  static const auto table =
      ParamTable<S>("batch")
          .mapped("interval_pattern", &S::interval_pattern,
                  "policy interval: A, B, C or length:up_to pairs, e.g. 10m:1h,30m:12h,2h:24h,4h:36h,8h:60h",
                  show_pattern, checked_pattern)
          .choice("free_runs", &S::free_runs, {"auto", "portable", "avx2", "avx512"},
                  "policy interval: the free-run search kernel (auto = the fastest this CPU runs; the others for "
                  "comparing them: every kernel gives the same tables)")
          .flag("interval_from_scratch", &S::interval_from_scratch,
                "policy interval: search every job at every pass instead of keeping the places that provably did "
                "not change (same decisions; for pass wall times like a scheduler that plans from scratch)");
  return table;
}
const RegisteredBatchPolicy interval(
    "interval", "K computer interval scheduling: contiguous ranges planned on interval boundaries", interval_keys(),
    [](const IntervalSettings& s) {
      return IntervalPolicy{
          parse_interval_pattern(s.interval_pattern),
          s.interval_from_scratch ? IntervalPolicy::Passes::from_scratch : IntervalPolicy::Passes::keep_places,
          s.free_runs};
    },
    /*contiguous_only=*/true);
}  // namespace

}  // namespace tracewarp::batch
