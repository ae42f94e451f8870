// The pending-event list of a rank: a ladder queue (Tang, Goh and Thng, ACM TOMACS 2005).
//
// Why not one heap: with millions of pending events a heap no longer fits any cache, and every
// push and pop walks a dozen levels of it, each a cache miss. Here a push usually appends to the
// tail of one bucket (a few thousand bucket tails stay in cache), and only the events of the
// current, narrow slice of time are ordered, a few hundred at a time.
//
//   top      unsorted; every time >= top_start_ (the far future)
//   rungs    rung 0 splits [its start, top_start_) into buckets of equal width; rung r+1 splits
//            the bucket of rung r that was too large to order directly; each rung's buckets
//            before its cursor are consumed
//   bottom   every event earlier than bottom_end_, the start of the deepest rung's current
//            bucket: the last bucket taken, sorted, and a heap of the events pushed since
//            (events pushed into the past by a rollback land here too)
//
// Entries of a later tier are never earlier than those of an earlier tier, so the bottom's top is
// the queue's top. The bottom orders by the full event key, so simultaneous events come out in key
// order whatever their buckets: the queue pops exactly the order of a single sorted list.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "event_pool.hpp"

namespace tracewarp::detail {

// Every cache line of [at, at + bytes), bytes > 0 (a range that does not start on a line
// boundary reaches one line further than bytes / 64 steps from its start).
[[gnu::always_inline]] inline void prefetch_lines(const void* at, std::size_t bytes) {
  const auto* first = static_cast<const char*>(at);
  for (std::size_t line = 0; line < bytes; line += 64) __builtin_prefetch(first + line);
  __builtin_prefetch(first + bytes - 1);
}

struct QueueEntry {
  Time time;
  std::uint32_t slot;
  std::uint32_t lp;  // local index of the destination LP
};

// Full event key order. Entries hold only the time; the rest of the key is read from the pool
// when two times tie, which keeps entries at 16 bytes in the common case.
inline bool entry_before(EventPool& pool, const QueueEntry& a, const QueueEntry& b) {
  if (a.time != b.time) return a.time < b.time;
  return pool[a.slot].key < pool[b.slot].key;
}

// A 4-ary min-heap of entries by full event key (four 16-byte children per cache line).
//
// pop() is lazy: it leaves the root vacant, and the next push() fills the vacancy with one
// sift-down instead of the two sifts of a pop followed by a push. Executing an event and
// scheduling its successor — the usual pattern — therefore costs one pass down the heap.
class EntryHeap {
 public:
  explicit EntryHeap(EventPool& pool) : pool_(pool) {}

  bool empty() {
    settle();
    return heap_.empty();
  }
  const QueueEntry& top() {
    settle();
    return heap_.front();
  }
  void push(const QueueEntry& x) {
    if (vacant_) {
      vacant_ = false;
      sift_down(0, x);
      return;
    }
    heap_.push_back(x);
    sift_up(heap_.size() - 1);
  }
  void pop() {
    settle();
    vacant_ = true;
  }
  const QueueEntry* likely_next() const {
    const std::size_t n = heap_.size();
    if (!vacant_ || n < 2) return nullptr;
    const std::size_t last = n < 5 ? n : 5;
    std::size_t best = 1;
    for (std::size_t c = 2; c < last; ++c)
      if (heap_[c].time < heap_[best].time) best = c;
    return &heap_[best];
  }

 private:
  bool before(const QueueEntry& a, const QueueEntry& b) const { return entry_before(pool_, a, b); }
  // Fills a vacant root with the last entry.
  void settle() {
    if (!vacant_) return;
    vacant_ = false;
    const QueueEntry last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, last);
  }
  void sift_up(std::size_t i) {
    const QueueEntry x = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before(x, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = x;
  }
  // Places x, which replaces the entry at i, where it belongs below i.
  void sift_down(std::size_t i, const QueueEntry x) {
    const std::size_t n = heap_.size();
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], x)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = x;
  }

  EventPool& pool_;
  std::vector<QueueEntry> heap_;
  bool vacant_ = false;
};

// The events of the current slice of time: the bucket they came in, sorted once and popped from
// the back — so the kernels can look a few events ahead and prefetch their LPs — and a heap for
// events pushed into the slice afterwards (zero-delay events, rollbacks).
class Bottom {
 public:
  explicit Bottom(EventPool& pool) : pool_(pool), late_(pool) {}

  bool empty() { return run_.empty() && late_.empty(); }
  const QueueEntry& top() { return from_run() ? run_.back() : late_.top(); }
  void pop() {
    if (from_run())
      run_.pop_back();
    else
      late_.pop();
  }
  void push(const QueueEntry& e) { late_.push(e); }
  // The entry k places after the top, counted in the sorted run (late events may come first:
  // a hint for prefetching, not an order).
  const QueueEntry* ahead(std::size_t k) const {
    if (k < run_.size()) return &run_[run_.size() - 1 - k];
    return k == 0 ? late_.likely_next() : nullptr;
  }
  // Replaces the (empty) bottom by `entries`; `entries` receives the old storage, empty, so that
  // its capacity is reused.
  void assign(std::vector<QueueEntry>& entries) {
    run_.swap(entries);
    entries.clear();
    std::sort(run_.begin(), run_.end(),
              [this](const QueueEntry& a, const QueueEntry& b) { return entry_before(pool_, b, a); });
  }

 private:
  bool from_run() {
    if (run_.empty()) return false;
    return late_.empty() || entry_before(pool_, run_.back(), late_.top());
  }

  EventPool& pool_;
  std::vector<QueueEntry> run_;  // descending: the earliest at the back
  EntryHeap late_;
};

class EventQueue {
 public:
  // A bucket of at most this many entries is sorted into the bottom directly; a larger one
  // is split into a finer rung (unless its events share one tick, or the ladder is full).
  static constexpr std::size_t kBucketSplit = 512;
  // A new rung has about one bucket per kEntriesPerBucket entries, within these bounds: enough
  // buckets that each is small, few enough that the tails being appended to stay in cache.
  static constexpr std::size_t kEntriesPerBucket = 64;
  static constexpr std::size_t kMaxBuckets = 16384;
  static constexpr std::size_t kMaxRungs = 8;
  // The ladder's arithmetic stays far from overflow by serving only times within ±2^62 ticks
  // (±146 years of nanoseconds). When the top holds a time outside, the queue orders everything
  // in the bottom until it has drained: correct at any time, only slower.
  static constexpr Time kLadderBound = Time{1} << 62;

  explicit EventQueue(EventPool& pool) : bottom_(pool) {}

  bool empty() {
    refill_if_needed();
    return bottom_.empty();
  }
  std::size_t size() const noexcept { return size_; }
  const QueueEntry& top() {
    refill_if_needed();
    return bottom_.top();
  }
  // Adds an entry; true if it went into the bottom, among the next events to run (no prefetch
  // reaches it there in time: it did not exist when the events before it were popped).
  bool push(Time time, std::uint32_t slot, std::uint32_t lp) {
    ++size_;
    const QueueEntry entry{time, slot, lp};
    if (bottom_only_ || time < bottom_end_) {
      bottom_.push(entry);
      return true;
    }
    if (rungs_used_ == 0 || time >= top_start_) {
      top_.push_back(entry);
      top_min_ = std::min(top_min_, time);
      top_max_ = std::max(top_max_, time);
      return false;
    }
    // Coarsest first: a finer rung only holds times before its parent's current bucket.
    for (std::size_t r = 0;; ++r) {
      Rung& rung = rungs_[r];
      if (time >= rung.current_start()) {
        stage(entry, rung.buckets[rung.index_of(time)]);
        return false;
      }
    }
  }
  // Removes the top entry (which must exist).
  void pop() {
    refill_if_needed();
    bottom_.pop();
    --size_;
  }
  // After pop(): the entry most likely to be k places after the next top (only a newly pushed
  // earlier event can overtake it), or nullptr. The kernels prefetch events and LPs a few places
  // ahead while the current handler runs.
  const QueueEntry* ahead(std::size_t k) const { return bottom_.ahead(k); }

 private:
  struct Rung {
    Time start = 0;
    std::uint64_t width = 1;
    std::size_t cursor = 0;  // buckets before it are consumed
    std::vector<std::vector<QueueEntry>> buckets;

    // Within the ladder's domain (see kLadderBound) this cannot overflow.
    Time bucket_start(std::size_t i) const { return start + static_cast<Time>(width * i); }
    Time current_start() const { return bucket_start(cursor); }
    std::size_t index_of(Time time) const {
      return static_cast<std::size_t>(static_cast<std::uint64_t>(time - start) / width);
    }
    void add(const QueueEntry& e) { buckets[index_of(e.time)].push_back(e); }
    // Lays out buckets over [lo, hi) and distributes `entries` (all within it) into them.
    void reset(Time lo, Time hi, const std::vector<QueueEntry>& entries) {
      const auto span = static_cast<std::uint64_t>(hi - lo);
      const std::size_t wanted = std::clamp<std::size_t>(entries.size() / kEntriesPerBucket, 1, kMaxBuckets);
      start = lo;
      width = std::max<std::uint64_t>(1, span / wanted + (span % wanted != 0));
      cursor = 0;
      buckets.clear();  // frees the previous buckets' storage: their sizes meant another time range
      buckets.resize(static_cast<std::size_t>(span / width + (span % width != 0)));
      // Exact sizes first: no regrowth while distributing, no doubled capacity left behind.
      std::vector<std::uint32_t> counts(buckets.size(), 0);
      for (const QueueEntry& e : entries) ++counts[index_of(e.time)];
      for (std::size_t i = 0; i < buckets.size(); ++i) buckets[i].reserve(counts[i]);
      for (const QueueEntry& e : entries) add(e);
    }
  };

  void refill_if_needed() {
    if (bottom_.empty()) refill();
  }

  // A push into a rung reaches its bucket kStaged pushes later. With millions of pending events
  // the bucket's record and the line its entry goes to are both cache misses, and the handler
  // that pushed cannot wait for them: the record is fetched when the entry is staged, the tail
  // line kStaged / 2 pushes later, and the entry written last. Only refill() reads the buckets,
  // and it flushes the stage first; the order of entries within a bucket does not matter (the
  // bottom sorts them).
  static constexpr std::size_t kStaged = 8;
  struct Staged {
    QueueEntry entry;
    std::vector<QueueEntry>* bucket;
  };
  void stage(const QueueEntry& entry, std::vector<QueueEntry>& bucket) {
    if (staged_count_ == kStaged) {
      const Staged& oldest = staged_[staged_head_];
      oldest.bucket->push_back(oldest.entry);
      staged_head_ = (staged_head_ + 1) % kStaged;
      --staged_count_;
    }
    if (staged_count_ >= kStaged / 2) {
      const std::vector<QueueEntry>& half = *staged_[(staged_head_ + staged_count_ - kStaged / 2) % kStaged].bucket;
      if (half.size() < half.capacity()) __builtin_prefetch(half.data() + half.size(), 1);
    }
    prefetch_lines(&bucket, sizeof bucket);
    staged_[(staged_head_ + staged_count_) % kStaged] = {entry, &bucket};
    ++staged_count_;
  }
  void flush_staged() {
    for (; staged_count_ > 0; --staged_count_) {
      const Staged& oldest = staged_[staged_head_];
      oldest.bucket->push_back(oldest.entry);
      staged_head_ = (staged_head_ + 1) % kStaged;
    }
  }

  // Moves the earliest non-empty bucket into the bottom, splitting large buckets into finer
  // rungs and spreading the top into a new rung 0 when the ladder has run out.
  void refill() {
    flush_staged();
    if (bottom_only_) {
      bottom_only_ = false;
      bottom_end_ = std::numeric_limits<Time>::min();
    }
    for (;;) {
      if (rungs_used_ == 0) {
        if (top_.empty()) return;
        if (top_min_ < -kLadderBound || top_max_ >= kLadderBound) {
          order_top_in_bottom();
          return;
        }
        start_ladder_from_top();
      }
      Rung& rung = rungs_[rungs_used_ - 1];
      while (rung.cursor < rung.buckets.size() && rung.buckets[rung.cursor].empty()) ++rung.cursor;
      if (rung.cursor == rung.buckets.size()) {
        --rungs_used_;
        bottom_end_ = rungs_used_ > 0 ? rungs_[rungs_used_ - 1].current_start() : top_start_;
        continue;
      }
      std::vector<QueueEntry>& bucket = rung.buckets[rung.cursor];
      const Time bucket_end = rung.bucket_start(rung.cursor + 1);
      ++rung.cursor;
      if (bucket.size() > kBucketSplit && rung.width > 1 && rungs_used_ < kMaxRungs && !one_time(bucket)) {
        split_into_new_rung(bucket, bucket_end);
        continue;
      }
      bottom_.assign(bucket);
      std::vector<QueueEntry>().swap(bucket);  // the old run's storage; consumed buckets hold none
      bottom_end_ = bucket_end;
      return;
    }
  }

  // Simultaneous events cannot be split by time (models often start many at one instant).
  static bool one_time(const std::vector<QueueEntry>& bucket) {
    const Time first = bucket.front().time;
    return std::all_of(bucket.begin(), bucket.end(), [first](const QueueEntry& e) { return e.time == first; });
  }

  void start_ladder_from_top() {
    if (rungs_.empty()) rungs_.resize(kMaxRungs);
    rungs_[0].reset(top_min_, top_max_ + 1, top_);
    rungs_used_ = 1;
    top_start_ = rungs_[0].bucket_start(rungs_[0].buckets.size());
    bottom_end_ = top_min_;
    clear_top();
  }
  void order_top_in_bottom() {
    bottom_.assign(top_);
    bottom_only_ = true;
    clear_top();
  }
  void clear_top() {
    std::vector<QueueEntry>().swap(top_);  // the top can hold every event once (after on_init)
    top_min_ = std::numeric_limits<Time>::max();
    top_max_ = std::numeric_limits<Time>::min();
  }

  // The entries of a too-large bucket (ending at bucket_end) become the deepest rung, which
  // starts at their earliest time: nothing earlier remains above the bottom.
  void split_into_new_rung(std::vector<QueueEntry>& bucket, Time bucket_end) {
    Time lo = bucket.front().time;
    for (const QueueEntry& e : bucket) lo = std::min(lo, e.time);
    Rung& finer = rungs_[rungs_used_++];
    finer.reset(lo, bucket_end, bucket);
    bottom_end_ = lo;
    std::vector<QueueEntry>().swap(bucket);
  }

  Bottom bottom_;
  Time bottom_end_ = std::numeric_limits<Time>::min();
  std::vector<Rung> rungs_;  // kMaxRungs, once the ladder is first used; rungs_used_ are live
  std::size_t rungs_used_ = 0;
  Time top_start_ = std::numeric_limits<Time>::min();
  std::vector<QueueEntry> top_;
  Time top_min_ = std::numeric_limits<Time>::max();
  Time top_max_ = std::numeric_limits<Time>::min();
  std::size_t size_ = 0;
  std::array<Staged, kStaged> staged_{};
  std::size_t staged_head_ = 0;
  std::size_t staged_count_ = 0;
  bool bottom_only_ = false;  // the bottom holds every pending event (see kLadderBound)
};

// With many LPs each event's LP and payload are cache misses; fetching them a few events ahead,
// while the current handler runs, overlaps the misses. What the kernel keeps per LP goes first,
// kRecordAhead events ahead — record_of(entry) gives it as byte ranges — so that
// kObjectAhead events later the LP object's address and size, object_of(lp), are read without a
// stall and all of its lines fetched. The event's header lines are fetched kObjectAhead ahead,
// and its payload's lines, whose count the header gives, just before it runs. Every line fetched
// is one the event uses: the loop is bound by how many misses the core keeps in flight.
//
// The prefetches are issued here, in an always-inlined function, never in a helper of their own:
// GCC 12 finds such a helper free of side effects, marks it pure and deletes the calls to it (a
// pure call whose result is unused is dead code). That silently removed every prefetch of the
// sequential and optimistic kernels until 2026-11-24 — objdump showed none — and the 1 M-LP
// PHOLD ran at half the speed it runs with them (docs/performance-history.md).
struct PrefetchRange {
  const void* at = nullptr;
  std::size_t bytes = 0;
};
inline constexpr std::size_t kRecordAhead = 8;
inline constexpr std::size_t kObjectAhead = 4;

template <class RecordOf, class ObjectOf>
[[gnu::always_inline]] inline void prefetch_upcoming(const EventQueue& queue, EventPool& pool, RecordOf&& record_of,
                                                     ObjectOf&& object_of) {
  if (const QueueEntry* far = queue.ahead(kRecordAhead)) {
    for (const PrefetchRange& range : record_of(*far)) prefetch_lines(range.at, range.bytes);
  }
  if (const QueueEntry* near = queue.ahead(kObjectAhead)) {
    prefetch_lines(&pool[near->slot], offsetof(Event, payload));
    const PrefetchRange object = object_of(near->lp);
    prefetch_lines(object.at, object.bytes);
  }
  // The header arrived by now: fetch the payload's lines (often none: the header's line holds it).
  if (const QueueEntry* next = queue.ahead(0)) {
    const Event& event = pool[next->slot];
    if (event.payload_size != 0) prefetch_lines(event.payload, event.payload_size);
  }
}

// What a rank's pending events occupy, for the memory budget.
inline std::uint64_t pending_event_bytes(const EventPool& pool, const EventQueue& queue) {
  return static_cast<std::uint64_t>(static_cast<double>(pool.live()) * (sizeof(Event) + EventPool::kBookkeepingBytes)) +
         queue.size() * sizeof(QueueEntry);
}

}  // namespace tracewarp::detail
