// Optimistic mode (Time Warp). Each rank executes its LPs' events speculatively in key order.
// An event arriving in an LP's past (a straggler) or the cancellation of an event the LP already
// executed rolls the LP back: its state is restored, the events it sent since are cancelled by
// anti-messages, and the undone events return to the pending list. Periodic GVT rounds find the
// time below which nothing can change any more; events below it are committed (their output
// released, in key order per LP) and their memory reclaimed (fossil collection).
//
// Where things happen:
//   execute()          runs one event, saving state first (every event or every k-th)
//   execute_final()    runs one event that no rollback can reach (below safe_until_) and commits
//                      it at once, with nothing saved
//   rollback()         undoes an LP back to a key: anti-messages, requeue, then restore and coast
//                      forward, or (LP types with reverse computation) on_reverse, newest first
//   annihilate()       a cancellation meets its event (pending: dropped; processed: rollback)
//   open_round()       the GVT algorithm (see transport.hpp), with round_ended()
//   fossil_collect()   commit below GVT, then free what no rollback can need
//   check_event()      rollback-check mode: execute, undo, redo, compare
//   save_checkpoint()  undo everything uncommitted, wait for quiet, save (checkpoint.hpp)
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>

#include "checkpoint.hpp"
#include "event_pool.hpp"
#include "event_queue.hpp"
#include "idle_wait.hpp"
#include "kernel.hpp"
#include "optimism_tuner.hpp"
#include "output_log.hpp"
#include "remote_index.hpp"
#include "tracewarp/core/error.hpp"
#include "transport.hpp"

namespace tracewarp::detail {
namespace {

constexpr std::uint32_t kRemoteSlot = ~0u;
constexpr std::uint64_t kBudgetExhausted = 1;
constexpr std::uint64_t kCheckpointDue = 2;  // rank 0's clock asks for a checkpoint at this GVT
// A periodic LP's state copies space out to this many times its type's interval while it is not
// rolled back (LpTypeOptions): the batch scheduler's copies of its queue were 40% of a 2-rank
// RICC run, and it is never rolled back there.
constexpr std::uint64_t kMostCheckpointGrowth = 16;
// What execute_final() reads of an LpState: its first cache line (an LP that keeps committed
// records also reads the history ring on the second).
constexpr std::size_t kFinalRecordBytes = 64;

// One executed, not yet fossil-collected event of an LP.
struct ProcessedEvent {
  std::uint32_t slot = 0;            // the event, in the pool
  std::uint32_t sent_count = 0;      // events it sent (the last ones in the LP's sent log)
  std::uint64_t seq_before = 0;      // the LP's send counter before it ran
  std::uint64_t checkpoint_abs = 0;  // history position of the newest state copy at or before it
  std::uint64_t kept = 0;            // reverse computation: EventContext::keep_for_reverse
  OutputLog::Span output;            // rows emitted, in the rank's log until commit or undo
  double wall_us = -1;               // handler wall-clock time (timed LP types)
};

// Enough to cancel a sent event: where it went and which it was.
struct SentRef {
  EventKey key;
  LpId dest;
  std::uint32_t slot;  // pool slot if the destination is on this rank, else kRemoteSlot
};

// The first cache line holds everything an event committed at once reads and writes of its LP
// (execute_final, and the prefetches before it), copies of LocalLp's hot fields included. Such an
// event touches this line (kFinalRecordBytes) besides the LP's object, where it touched five
// before the record was laid out for it, and two before it could tell from this line alone that
// the LP holds no records (in_dirty_list, keeps_committed_records).
struct alignas(64) LpState {
  LpRuntime* runtime = nullptr;  // lp->runtime
  std::uint64_t send_seq = 0;
  EventKey last_key = kMinKey;     // key of the last executed event
  std::uint32_t object_bytes = 0;  // lp->object_bytes
  bool timed = false;              // lp->timed
  bool reverse = false;            // lp->reverse
  // Holds uncommitted records (cleared by fossil collection once all are committed). An LP out
  // of the list holds no records at all, unless it keeps committed ones:
  bool in_dirty_list = false;
  // A type with periodic state copies keeps its newest copy and the records after it, committed
  // (free_unneeded says why).
  bool keeps_committed_records = false;
  // History positions are absolute (they count from the LP's first event) so that records keep
  // their identity while the front is fossil-collected.
  std::uint64_t base_abs = 0;       // position of history.front()
  std::uint64_t committed_abs = 0;  // positions below this are committed
  Ring<ProcessedEvent> history;
  Ring<SentRef> sent;
  std::uint64_t last_checkpoint_abs = 0;
  std::uint32_t checkpoint_interval = 1;  // now: LpTypeOptions' k, doubled while not rolled back
  std::uint32_t state_bytes = 0;          // lp->state_bytes (for the memory held in state copies)

  std::uint64_t end_abs() const { return base_abs + history.size(); }
  ProcessedEvent& at_abs(std::uint64_t abs) { return history[abs - base_abs]; }
  const ProcessedEvent& at_abs(std::uint64_t abs) const { return history[abs - base_abs]; }
};

// Two cache lines: an event that is not committed at once reads both, and so does a commit.
static_assert(offsetof(LpState, history) == kFinalRecordBytes && alignof(LpState) == 64 && sizeof(LpState) == 128);

class OptimisticKernel final : public KernelPort {
 public:
  explicit OptimisticKernel(KernelSetup& setup)
      : setup_(setup),
        config_(setup.config),
        end_(setup.config.end_time),
        check_mode_(setup.config.sync == SyncMode::rollback_check),
        transport_(setup.comm),
        ctx_(*this, setup.lp_count),
        states_(setup.lps.size()),
        progress_(setup.config, setup.comm.rank() == 0),
        checkpointer_(setup),
        window_(setup.config.optimism_window),
        gvt_interval_(setup.config.gvt_interval) {
    if (config_.tune_optimism) tuner_.emplace(OptimismTuner::Settings{window_, gvt_interval_}, config_.tune_epoch_s);
    if (config_.commit_within_lookahead && !check_mode_) final_lookahead_ = setup.lookahead;
    for (std::size_t i = 0; i < states_.size(); ++i) {
      LpState& s = states_[i];
      const LocalLp& lp = setup.lps[i];
      s.runtime = lp.runtime.get();
      s.object_bytes = lp.object_bytes;
      if (lp.state_bytes > std::numeric_limits<std::uint32_t>::max())
        throw UsageError("LP " + std::to_string(lp.id) + ": a state of " + std::to_string(lp.state_bytes) +
                         " bytes is too large to copy before each event (at most 4 GiB)");
      s.state_bytes = static_cast<std::uint32_t>(lp.state_bytes);
      s.timed = lp.timed;
      s.reverse = lp.reverse;
      s.checkpoint_interval = lp.checkpoint_interval;
      s.keeps_committed_records = lp.checkpoint_interval > 1;
    }
  }

  RankStats run() {
    start();

    // A GVT round opens every gvt_interval events (or when nothing may run) and goes on while
    // the rank executes: its reductions are non-blocking, tested at every poll and once more
    // when the next round is due. A rank never waits for a round while it has events to run
    // (waiting for the slowest rank was most of a round's cost), so the next round opens at
    // the first test that finds this one ended.
    std::uint64_t executed = 0;    // since the last round opened
    std::uint32_t until_poll = 0;  // exchanges every poll_interval events, from the first
    for (;;) {
      if (until_poll-- == 0) {
        exchange_messages();
        until_poll = config_.poll_interval - 1;
        if (round_open_ && round_ended()) {
          idle_.heard();
          fossil_collect(gvt_);
          progress_.tick(gvt_, stats_.committed);
          if (gvt_ >= end_) break;
          // A checkpoint undoes every event above GVT: one more at the same GVT would save
          // the same state and undo the work since, and could do so forever.
          if (checkpoint_agreed_ && gvt_ > saved_gvt_) {
            save_checkpoint();
            executed = 0;  // the next round waits for gvt_interval events of the work redone
          }
        } else if (round_open_ && round_outlasted_silence()) {
          stop_on_silence(steady_seconds() - round_opened_s_);
        }
      }
      if (executed >= gvt_interval_) {
        if (!round_open_) {
          open_round();
          executed = 0;
        } else if (executed == gvt_interval_) {
          until_poll = 0;  // the next round is due: test this one at once
        }
      }
      const QueueEntry next = next_executable();
      if (next.slot == kRemoteSlot) {  // nothing this rank may execute before a new GVT
        if (!round_open_) open_round();
        executed = 0;
        until_poll = 0;
        idle_.wait();
        if (idle_.silent()) stop_on_silence(idle_.waited_s());
        continue;
      }
      idle_.heard();
      if (check_mode_)
        check_event(next.slot, states_[next.lp]);
      else
        execute(next.slot, states_[next.lp]);
      ++executed;
    }
    transport_.drain_all([](const Event&, bool) {});
    for (LpState& s : states_) {
      FinishContext finish(lp_of(s).id, end_);
      s.runtime->finish(finish);
    }
    stats_.peak_engine_bytes = peak_bytes_;
    stats_.window_end_ns = static_cast<std::uint64_t>(window_);
    stats_.gvt_interval_end = gvt_interval_;
    checkpointer_.report(stats_);
    return stats_;
  }

 private:
  // Runs on_init, or restores the newest checkpoint (its events become plain pending events:
  // the events that sent them are committed, so no cancellation can ever come for them).
  void start() {
    if (std::optional<CommittedState> restored = checkpointer_.restore()) {
      for (std::size_t i = 0; i < states_.size(); ++i) states_[i].send_seq = restored->send_seq[i];
      for (const Event& ev : restored->pending) {
        const std::uint32_t slot = pool_.alloc();
        pool_.store(slot, ev);
        queue_.push(ev.key.time, slot, setup_.local_index[ev.dest]);
      }
      gvt_ = saved_gvt_ = restored->at;
      stats_.committed = restored->committed;
      return;
    }
    for (LpState& s : states_) {
      current_ = &s;
      current_record_ = nullptr;
      ctx_.bind(*this, lp_of(s).id, 0, &s.send_seq, EventContext::kNoCause);
      s.runtime->init(ctx_);
    }
    current_ = nullptr;
    drain_deferred();
  }

  // Every rank, at the same GVT: undoes every event at or after GVT (so that each LP holds its
  // committed state), lets the cancellations this sends arrive, and saves what is left pending.
  // The undone events are executed again afterwards, exactly as after any rollback.
  void save_checkpoint() {
    // Events below safe_until_ can never be undone, and some LPs committed theirs at once
    // (execute_final): every LP commits them before the rest is undone.
    const Time final_below = std::max(gvt_, safe_until_);
    for (LpState& s : states_) {
      commit_below(s, final_below);
      if (s.committed_abs < s.end_abs()) rollback(s, pool_[s.at_abs(s.committed_abs).slot].key, /*inclusive=*/true);
    }
    drain_deferred();
    transport_.begin_round();
    Transport::Reduction r;
    do {
      exchange_messages();
      r = transport_.reduce(pending_min(), 0);
    } while (r.white_in_transit != 0);
    transport_.end_round();

    CommittedState state;
    state.at = gvt_;
    state.committed = stats_.committed;
    for (const LpState& s : states_) state.send_seq.push_back(s.send_seq);
    state.pending = pending_events(pool_, queue_, [this](std::uint32_t slot) {
      if (pool_.state(slot) != SlotState::cancelled) return false;
      pool_.state(slot) = SlotState::pending;
      release(slot);
      --cancelled_queued_;
      return true;
    });
    checkpointer_.save(state);
    saved_gvt_ = gvt_;
  }

  LpState& state_of(LpId id) { return states_[setup_.local_index[id]]; }
  // The LP's set-up record: its id and type options (kept out of LpState, which they would push
  // past two cache lines).
  const LocalLp& lp_of(const LpState& s) const { return setup_.lps[static_cast<std::size_t>(&s - states_.data())]; }

  // ---- executing -------------------------------------------------------------------------

  // The lowest pending event if this rank may execute it now, else an entry whose slot is
  // kRemoteSlot.
  QueueEntry next_executable() {
    constexpr QueueEntry kNone{0, kRemoteSlot, 0};
    const Time top = pending_min();
    if (top >= end_) return kNone;
    if (window_ > 0 && top > gvt_ && top - gvt_ > window_) return kNone;
    // Over budget, only events that cannot be rolled back (at GVT) may run: they free memory
    // at the next fossil collection and guarantee progress.
    if (over_budget_ && top > gvt_) return kNone;
    const QueueEntry entry = queue_.top();
    queue_.pop();
    prefetch_ahead();
    return entry;
  }

  [[gnu::always_inline]] void prefetch_ahead() {
    prefetch_upcoming(
        queue_, pool_,
        [this](const QueueEntry& e) {
          // An event that will be committed at once reads the record's first line only.
          return std::array<PrefetchRange, 1>{{{&states_[e.lp], record_bytes_read(e.time)}}};
        },
        [this](std::uint32_t lp) {
          return PrefetchRange{states_[lp].runtime, states_[lp].object_bytes};
        });
    // Two events ahead the LP's record and object are in cache: where its next history record
    // and state copy go can be read (unless that event will be committed at once, with neither).
    if (const QueueEntry* soon = queue_.ahead(2); soon != nullptr && soon->time >= safe_until_) {
      const LpState& s = states_[soon->lp];
      if (const ProcessedEvent* record = s.history.next_slot()) __builtin_prefetch(record, 1);
      if (const SentRef* sent = s.sent.next_slot()) __builtin_prefetch(sent, 1);
      if (!s.reverse)
        if (const void* copy = s.runtime->next_snapshot_slot()) __builtin_prefetch(copy, 1);
    }
  }

  // Time of the lowest pending event, dropping cancelled entries on the way (only where some
  // are queued: the check reads each top event's slot, a cache miss at 16,384 LPs).
  [[gnu::always_inline]] Time pending_min() {
    if (cancelled_queued_ == 0) [[likely]]
      return queue_.empty() ? kTimeInfinity : queue_.top().time;
    return drop_cancelled_then_min();
  }
  [[gnu::noinline]] Time drop_cancelled_then_min() {
    while (!queue_.empty()) {
      const QueueEntry& top = queue_.top();
      if (pool_.state(top.slot) != SlotState::cancelled) return top.time;
      const std::uint32_t slot = top.slot;
      queue_.pop();
      pool_.state(slot) = SlotState::pending;
      release(slot);
      --cancelled_queued_;
    }
    return kTimeInfinity;
  }

  // Runs the event in `slot` on its LP, s.
  void execute(std::uint32_t slot, LpState& s) {
    const Event& ev = pool_[slot];
    if (ev.time() < safe_until_ && !s.in_dirty_list) return execute_final(slot, s);
    const std::uint64_t abs = s.end_abs();
    if (s.reverse) {
      s.last_checkpoint_abs = abs;  // no copies: every record is where a rollback may stop
    } else if (s.history.empty() || abs - s.last_checkpoint_abs >= s.checkpoint_interval) {
      s.runtime->push_snapshot();
      s.last_checkpoint_abs = abs;
      snapshot_bytes_ += s.state_bytes;
      if (s.keeps_committed_records)
        s.checkpoint_interval = static_cast<std::uint32_t>(
            std::min({2 * std::uint64_t{s.checkpoint_interval}, kMostCheckpointGrowth * lp_of(s).checkpoint_interval,
                      std::uint64_t{std::numeric_limits<std::uint32_t>::max()}}));
    }
    ProcessedEvent& rec = s.history.push_back_slot();
    rec.slot = slot;
    rec.seq_before = s.send_seq;
    rec.checkpoint_abs = s.last_checkpoint_abs;
    pool_.state(slot) = SlotState::processed;
    ++uncommitted_;
    if (!s.in_dirty_list) {
      s.in_dirty_list = true;
      dirty_.push_back(static_cast<std::uint32_t>(&s - states_.data()));
    }
    output_log_.open();
    rec.wall_us = run_event(s, ev, &rec);
    rec.output = output_log_.close();
    rec.sent_count = cancellable_sent_;
    rec.kept = ctx_.kept_for_reverse();
    drain_deferred();
  }

  // Runs ev's handler on s, its sends recorded in `record` and its rows going to the output log
  // (to final_output_ for an event committed at once, with no record); the handler's wall time
  // for timed LP types.
  double run_event(LpState& s, const Event& ev, ProcessedEvent* record) {
    current_ = &s;
    current_record_ = record;
    in_handler_ = true;
    cancellable_sent_ = 0;
    current_time_ = ev.time();
    if (executed_bound_ < ev.key) executed_bound_ = ev.key;
    ctx_.bind(*this, ev.dest, ev.time(), &s.send_seq, ev.kind());
    ctx_.set_keeping_for_reverse(record != nullptr && s.reverse);
    const double wall_us = run_handler(s.timed, [&] { s.runtime->execute(ev, ctx_); });
    current_ = nullptr;
    current_record_ = nullptr;
    in_handler_ = false;
    s.last_key = ev.key;
    return wall_us;
  }

  // An event below safe_until_ is final when it runs: it is executed with no history record, no
  // state copy and nothing kept for reverse computation, and committed at once. Only an LP with
  // no uncommitted records comes here; committed ones it kept are dropped first: a coast-forward
  // from an older copy would miss this event (none can happen below safe_until_, but the records
  // would stay wrong).
  void execute_final(std::uint32_t slot, LpState& s) {
    if (s.keeps_committed_records) free_records(s, s.end_abs());
    const Event& ev = pool_[slot];
    final_output_.clear();
    const double wall_us = run_event(s, ev, nullptr);
    CommitContext commit(ev.dest, final_output_, wall_us);
    commit_event(*s.runtime, ev.dest, ev, commit);
    ++stats_.committed;
    ++stats_.committed_at_once;
    release(slot);
    drain_deferred();
  }

  // KernelPort: a send from the running handler.
  void deliver(const Event& ev) override {
    if (coasting_) return;  // coast-forward re-execution: these events were sent the first time
    if (capture_) captured_.push_back(ev);
    // Sends from on_init belong to no executed event and can never be cancelled.
    const bool cancellable = current_record_ != nullptr;
    // Counted here, stored in the record once the handler returns: the record's line is often
    // still on its way when the first send comes.
    cancellable_sent_ += cancellable;
    if (const std::uint32_t index = setup_.local_index[ev.dest]; index != kNotLocal) {
      const std::uint32_t slot = pool_.alloc();
      pool_.store(slot, ev);
      if (cancellable) current_->sent.push_back({ev.key, ev.dest, slot});
      // An event beyond every key executed here cannot roll anything back: it joins the queue at
      // once. Others wait until the handler has returned.
      if (executed_bound_ < ev.key)
        push_pending(ev.key.time, slot, index);
      else
        deferred_.push_back({slot, false});
    } else {
      if (in_handler_ && ev.key.time - current_time_ < final_lookahead_) [[unlikely]]
        throw lookahead_broken("optimistic", ev, "from an event at " + std::to_string(current_time_), final_lookahead_,
                               "engine.commit_within_lookahead = false");
      if (cancellable) current_->sent.push_back({ev.key, ev.dest, kRemoteSlot});
      transport_.post(setup_.partition.rank_of(ev.dest), ev, /*anti=*/false);
      ++stats_.remote_sent;
    }
  }

  void emit(RecordTag tag, const void* row, std::uint32_t size) override {
    if (coasting_) return;
    if (!in_handler_) throw InvariantError(kEmitInInit);
    if (current_record_ != nullptr)
      output_log_.append(tag, row, size);
    else
      CommitContext::append(final_output_, tag, row, size);
  }

  // ---- arrivals, cancellations and rollback ---------------------------------------------------

  struct Delivery {
    std::uint32_t slot;
    bool anti;
  };

  // Local sends that could be stragglers, and cancellations, are applied after the handler
  // returns (never inside it), in the order they were made; applying them can roll back LPs,
  // which adds more.
  void drain_deferred() {
    for (std::size_t i = 0; i < deferred_.size(); ++i) {
      const Delivery d = deferred_[i];
      if (d.anti)
        annihilate(d.slot);
      else
        enqueue(d.slot);
    }
    deferred_.clear();
  }

  void enqueue(std::uint32_t slot) {
    const Event& ev = pool_[slot];
    const std::uint32_t index = setup_.local_index[ev.dest];
    // Only an arrival below some executed key can be a straggler; the others need not look at
    // their LP's (often cold) record.
    if (ev.key < executed_bound_) {
      LpState& s = states_[index];
      if (ev.key < s.last_key) rollback(s, ev.key, /*inclusive=*/false);
    }
    push_pending(ev.key.time, slot, index);
  }

  // Queues a pending event; one that will run soon has its LP's record fetched now, since the
  // prefetches a few events ahead (prefetch_ahead) have passed its place in the order.
  void push_pending(Time time, std::uint32_t slot, std::uint32_t index) {
    if (queue_.push(time, slot, index)) prefetch_lines(&states_[index], record_bytes_read(time));
  }

  // What executing an event at `time` will read of its LP's record: an event committed at once,
  // the first line; another, all of it.
  std::size_t record_bytes_read(Time time) const { return time < safe_until_ ? kFinalRecordBytes : sizeof(LpState); }

  void annihilate(std::uint32_t slot) {
    const Event& ev = pool_[slot];
    if (pool_.state(slot) == SlotState::processed) rollback(state_of(ev.dest), ev.key, /*inclusive=*/true);
    // Now pending with an entry in the queue; the entry is dropped when it reaches the top.
    pool_.state(slot) = SlotState::cancelled;
    ++cancelled_queued_;
    if (pool_.from_remote(slot)) {
      remote_index_.erase(ev.key);
      pool_.set_from_remote(slot, false);
    }
  }

  void on_remote(const Event& ev, bool anti) {
    if (!anti) {
      const std::uint32_t slot = pool_.alloc();
      pool_.store(slot, ev);
      pool_.set_from_remote(slot, true);
      remote_index_.insert(ev.key, slot);
      enqueue(slot);
    } else {
      const std::uint32_t slot = remote_index_.find(ev.key);
      if (slot == RemoteIndex::kAbsent)
        throw InvariantError("anti-message for an unknown event (sender LP " + std::to_string(ev.key.sender()) +
                             ", time " + std::to_string(ev.key.time) + ")");
      annihilate(slot);
    }
    drain_deferred();
  }

  // Undoes every executed event of s whose key is greater than `key` (or equal, if inclusive).
  void rollback(LpState& s, const EventKey& key, bool inclusive) {
    std::size_t keep = s.history.size();
    while (keep > 0) {
      const EventKey& k = pool_[s.history[keep - 1].slot].key;
      if (k < key || (!inclusive && k == key)) break;
      --keep;
    }
    if (keep == s.history.size()) {
      // Every caller has something to undo: an arrival below the LP's last key with nothing
      // after it in the history reached an event already committed.
      if (key < s.last_key)
        throw InvariantError("LP " + std::to_string(lp_of(s).id) + ": an event for time " + std::to_string(key.time) +
                             " arrived after one at " + std::to_string(s.last_key.time) + " was committed (GVT " +
                             std::to_string(gvt_) + ")");
      return;
    }
    const std::uint64_t keep_abs = s.base_abs + keep;
    if (keep_abs < s.committed_abs)
      throw InvariantError("rollback of LP " + std::to_string(lp_of(s).id) + " below GVT (time " +
                           std::to_string(key.time) + " < GVT " + std::to_string(gvt_) + ")");
    ++stats_.rollbacks;
    s.checkpoint_interval = lp_of(s).checkpoint_interval;
    LpRuntime& runtime = *s.runtime;
    for (std::size_t i = s.history.size(); i-- > keep;) {
      ProcessedEvent& rec = s.history[i];
      for (std::uint32_t j = 0; j < rec.sent_count; ++j) {
        cancel(s.sent.back());
        s.sent.pop_back();
      }
      pool_.state(rec.slot) = SlotState::pending;
      queue_.push(pool_[rec.slot].key.time, rec.slot, static_cast<std::uint32_t>(&s - states_.data()));
      ++stats_.rolled_back;
      --uncommitted_;
      if (s.reverse) {
        const Event& ev = pool_[rec.slot];
        runtime.reverse(ev, ReverseContext(lp_of(s).id, ev.time(), rec.kept, kept_bytes(output_log_.view(rec.output))));
      } else if (i > keep && rec.checkpoint_abs == s.base_abs + i) {
        drop_back_snapshot(s);
      }
      output_log_.release(rec.output);
    }
    // Restore the state as it was before history[keep] (reverse computation already has).
    const ProcessedEvent& first_undone = s.history[keep];
    if (!s.reverse) {
      runtime.restore_back_snapshot();
      if (first_undone.checkpoint_abs == keep_abs)
        drop_back_snapshot(s);
      else
        coast_forward(s, first_undone.checkpoint_abs, keep_abs);
    }
    s.send_seq = first_undone.seq_before;
    s.history.truncate(keep);
    s.last_key = keep > 0 ? pool_[s.history[keep - 1].slot].key : kMinKey;
    if (keep > 0) s.last_checkpoint_abs = s.history[keep - 1].checkpoint_abs;
  }

  // Re-executes history[from_abs, to_abs) on the state restored from the checkpoint at from_abs,
  // without sending or emitting anything: those effects of the first execution still stand.
  void coast_forward(LpState& s, std::uint64_t from_abs, std::uint64_t to_abs) {
    coasting_ = true;
    s.send_seq = s.at_abs(from_abs).seq_before;
    for (std::uint64_t a = from_abs; a < to_abs; ++a) {
      const Event& ev = pool_[s.at_abs(a).slot];
      ctx_.bind(*this, lp_of(s).id, ev.time(), &s.send_seq, ev.kind());
      s.runtime->execute(ev, ctx_);
    }
    coasting_ = false;
    if (s.send_seq != s.at_abs(to_abs).seq_before)
      throw RollbackCheckError("LP " + std::to_string(lp_of(s).id) +
                               ": coast-forward re-execution sent a different number of events than the first "
                               "execution; its event handler is not deterministic");
  }

  // The bytes an event kept for its on_reverse (EventContext::keep_bytes_for_reverse), or none.
  static std::span<const std::byte> kept_bytes(std::span<const std::byte> output) {
    for (std::size_t at = 0; at < output.size();) {
      CommitContext::RecordHeader h;
      std::memcpy(&h, output.data() + at, sizeof h);
      at += sizeof h;
      if (h.tag == EventContext::kKeepTag) return {output.data() + at, h.size};
      at += h.size;
    }
    return {};
  }

  void cancel(const SentRef& ref) {
    ++stats_.anti_messages;
    if (ref.slot != kRemoteSlot) {
      deferred_.push_back({ref.slot, true});
    } else {
      Event anti;
      anti.key = ref.key;
      anti.dest = ref.dest;
      anti.payload_size = 0;
      transport_.post(setup_.partition.rank_of(ref.dest), anti, /*anti=*/true);
    }
  }

  void drop_back_snapshot(LpState& s) {
    s.runtime->pop_back_snapshot();
    snapshot_bytes_ -= s.state_bytes;
  }

  // Frees a slot, which must be pending again (EventPool: a slot is allocated pending).
  void release(std::uint32_t slot) {
    if (pool_.from_remote(slot)) {
      remote_index_.erase(pool_[slot].key);
      pool_.set_from_remote(slot, false);
    }
    pool_.free(slot);
  }

  // ---- messages, GVT, commit ---------------------------------------------------------------

  [[noreturn, gnu::cold]] void stop_on_silence(double waited_s) const {
    const int peer = transport_.waiting_for();
    throw RunError("no word for " + std::to_string(static_cast<long long>(waited_s)) + " s from " +
                   (peer >= 0 ? "rank " + std::to_string(peer) : std::string("the other ranks")) +
                   ", whose part of a GVT round this rank waits for: it may have stopped or hung "
                   "(engine.silence_timeout_s = " +
                   to_string(ConfigValue(config_.silence_timeout_s)) + "); the run stops");
  }

  void exchange_messages() {
    transport_.flush();
    transport_.poll([this](const Event& ev, bool anti) { on_remote(ev, anti); });
    peak_bytes_ = std::max(peak_bytes_, held_bytes());
    over_budget_ = held_bytes() > setup_.memory_budget_bytes;
  }

  // GVT rounds (the algorithm: transport.hpp). A round opens with a new epoch and a
  // contribution; round_ended() tests it at each poll, contributes again while white messages
  // were in transit, and at the end sets GVT. Rank 0's clock is asked once a round whether a
  // checkpoint is due, so that a checkpoint's minimum gap counts rounds.
  // Whether the open round has outlasted the silence timeout: a peer that stopped is noticed
  // even while this rank has its own events to run (it runs ahead optimistically, and would
  // otherwise wait with nothing to run only once its throttles stopped it, which on a busy
  // machine took more than 30 s). The clock is read every 64th poll.
  bool round_outlasted_silence() {
    if (config_.silence_timeout_s <= 0 || ++polls_since_silence_check_ < 64) return false;
    polls_since_silence_check_ = 0;
    return steady_seconds() - round_opened_s_ > config_.silence_timeout_s;
  }

  void open_round() {
    ++stats_.gvt_rounds;
    round_opened_s_ = steady_seconds();
    checkpoint_wanted_ = transport_.rank() == 0 && checkpointer_.due();
    transport_.begin_round();
    exchange_messages();
    contribute();
    round_open_ = true;
  }

  void contribute() {
    Transport::Tally tally;
    if (tuner_) {
      // A tuner that judges every round (tune_epoch_s = 0: the determinism suite) reads the clock
      // every time; one that judges epochs of milliseconds does not need to.
      const double now = config_.tune_epoch_s > 0 ? tuner_clock_.seconds() : steady_seconds();
      tally = {stats_.committed, static_cast<std::int64_t>((now - started_s_) * 1e9)};
    }
    transport_.start_reduce(
        pending_min(), (budget_failure_ ? kBudgetExhausted : 0) | (checkpoint_wanted_ ? kCheckpointDue : 0), tally);
  }

  bool round_ended() {
    Transport::Reduction r;
    if (!transport_.test_reduce(r)) return false;
    if (r.white_in_transit != 0) {  // the messages were drained just before (exchange_messages)
      contribute();
      return false;
    }
    transport_.end_round();
    round_open_ = false;
    if (r.flags & kBudgetExhausted) {
      if (budget_failure_) throw MemoryBudgetError(budget_message_);
      throw PeerFailure("memory budget exhausted on another rank");
    }
    // Below the GVT before this one plus the lookahead, no message can arrive any more: those in
    // transit now were sent after their sender learned that GVT, by events at or above it.
    if (final_lookahead_ > 0)
      safe_until_ = gvt_ < kTimeInfinity - final_lookahead_ ? gvt_ + final_lookahead_ : kTimeInfinity;
    gvt_ = r.min_time;
    checkpoint_agreed_ = (r.flags & kCheckpointDue) != 0;
    if (tuner_ && tuner_->on_round(static_cast<double>(r.tally.wall_ns) * 1e-9, r.tally.committed, gvt_)) {
      window_ = tuner_->settings().window;
      gvt_interval_ = tuner_->settings().gvt_interval;
      ++stats_.tuning_steps;
    }
    return true;
  }

  void fossil_collect(Time gvt) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < dirty_.size(); ++i) {
      prefetch_for_commit(i);
      const std::uint32_t index = dirty_[i];
      LpState& s = states_[index];
      commit_below(s, gvt);
      free_unneeded(s);
      if (s.committed_abs < s.end_abs())
        dirty_[kept++] = index;
      else
        s.in_dirty_list = false;
    }
    dirty_.resize(kept);
    // Memory that cannot be freed by waiting (nothing uncommitted) means the budget is too small.
    if (held_bytes() > setup_.memory_budget_bytes && uncommitted_ == 0 && !budget_failure_) {
      budget_failure_ = true;
      budget_message_ = memory_budget_message(transport_.rank(), held_bytes(), setup_.memory_budget_bytes, pool_.live(),
                                              uncommitted_);
    }
  }

  // By the GVT round the dirty LPs' records, first uncommitted events and objects are long out of
  // cache: they are fetched a few LPs ahead, in stages like prefetch_upcoming's (each stage reads
  // what the one before fetched). Always inlined: see prefetch_upcoming on why.
  [[gnu::always_inline]] void prefetch_for_commit(std::size_t i) {
    if (i + 8 < dirty_.size()) prefetch_lines(&states_[dirty_[i + 8]], sizeof(LpState));
    if (i + 4 < dirty_.size()) {
      const LpState& s = states_[dirty_[i + 4]];
      if (s.committed_abs < s.end_abs()) __builtin_prefetch(&s.at_abs(s.committed_abs));
    }
    if (i + 2 < dirty_.size()) {
      const LpState& s = states_[dirty_[i + 2]];
      prefetch_lines(s.runtime, s.object_bytes);
      if (s.committed_abs < s.end_abs()) __builtin_prefetch(&pool_[s.at_abs(s.committed_abs).slot]);
    }
  }

  void commit_below(LpState& s, Time gvt) {
    while (s.committed_abs < s.end_abs()) {
      ProcessedEvent& rec = s.at_abs(s.committed_abs);
      const Event& ev = pool_[rec.slot];
      if (ev.time() >= gvt) break;
      CommitContext commit(ev.dest, output_log_.view(rec.output), rec.wall_us);
      commit_event(*s.runtime, ev.dest, ev, commit);
      output_log_.release(rec.output);
      ++s.committed_abs;
      ++stats_.committed;
      --uncommitted_;
    }
  }

  // Drops the committed records that no rollback can need: those before the newest checkpoint
  // at or below the first uncommitted record (coast-forward starts there). When everything is
  // committed, an LP with periodic checkpoints keeps its newest checkpoint and the records after
  // it: dropping them would force a fresh state copy at its next event, so a large state would
  // be copied after every GVT round whatever its checkpoint interval.
  void free_unneeded(LpState& s) {
    const bool all_committed = s.committed_abs == s.end_abs();
    const std::uint64_t keep_from = !all_committed ? s.at_abs(s.committed_abs).checkpoint_abs
                                    : s.keeps_committed_records && !s.history.empty() ? s.last_checkpoint_abs
                                                                                      : s.end_abs();
    free_records(s, keep_from);
  }

  // Frees the records before keep_from (committed ones), with their sent records and state copies.
  void free_records(LpState& s, std::uint64_t keep_from) {
    while (s.base_abs < keep_from) {
      ProcessedEvent& rec = s.history.front();
      s.sent.pop_front(rec.sent_count);
      if (!s.reverse && rec.checkpoint_abs == s.base_abs) {
        s.runtime->pop_front_snapshot();
        snapshot_bytes_ -= s.state_bytes;
      }
      pool_.state(rec.slot) = SlotState::pending;
      release(rec.slot);
      s.history.pop_front();
      ++s.base_abs;
    }
  }

  std::uint64_t held_bytes() const {
    return pending_event_bytes(pool_, queue_) + uncommitted_ * (sizeof(ProcessedEvent) + sizeof(SentRef)) +
           snapshot_bytes_;
  }

  // ---- rollback check --------------------------------------------------------------------

  // Executes the event, undoes it through the ordinary rollback path (restoring a checkpoint and
  // coasting forward where the LP type uses periodic checkpoints), executes it again and
  // demands the same state, the same sent events and the same output.
  void check_event(std::uint32_t slot, LpState& s) {
    const LpId dest = pool_[slot].dest;
    const EventKey key = pool_[slot].key;

    // Reverse computation must bring back the state before the event, not only one that
    // re-executes to the same result.
    const std::shared_ptr<const void> before = s.reverse ? s.runtime->copy_state() : nullptr;
    capture_ = true;
    captured_.clear();
    execute(slot, s);
    std::vector<Event> first_sends = std::move(captured_);
    const std::shared_ptr<const void> first_state = s.runtime->copy_state();
    const std::span<const std::byte> first_view = output_log_.view(s.history.back().output);
    const std::vector<std::byte> first_output(first_view.begin(), first_view.end());
    const std::uint64_t first_seq = s.send_seq;

    rollback(s, key, /*inclusive=*/true);
    drain_deferred();
    if (before && !s.runtime->state_equals(before.get()))
      throw RollbackCheckError("rollback check failed: LP " + std::to_string(dest) + ", event kind " +
                               std::to_string(key.kind()) + " at time " + std::to_string(key.time) +
                               ": its on_reverse did not bring back the state before the event");
    if (pending_min() != key.time || queue_.top().slot != slot)
      throw InvariantError("rollback check: the undone event is not the next pending event");
    queue_.pop();
    captured_.clear();
    execute(slot, s);
    capture_ = false;

    const auto where = [&] {
      return "LP " + std::to_string(dest) + ", event kind " + std::to_string(key.kind()) + " at time " +
             std::to_string(key.time);
    };
    if (!s.runtime->state_equals(first_state.get()))
      throw RollbackCheckError("rollback check failed: " + where() +
                               ": re-executing the event after a rollback gave a different LP state "
                               "(the handler depends on something outside its state)");
    if (captured_ != first_sends || s.send_seq != first_seq)
      throw RollbackCheckError("rollback check failed: " + where() +
                               ": re-executing the event after a rollback sent different events");
    if (const std::span<const std::byte> again = output_log_.view(s.history.back().output);
        !std::ranges::equal(again, first_output))
      throw RollbackCheckError("rollback check failed: " + where() +
                               ": re-executing the event after a rollback emitted different output");
  }

  KernelSetup& setup_;
  const EngineConfig& config_;
  const Time end_;
  const bool check_mode_;
  Transport transport_;
  EventContext ctx_;
  std::vector<LpState> states_;
  EventPool pool_;
  EventQueue queue_{pool_};
  std::vector<Delivery> deferred_;
  RemoteIndex remote_index_;
  std::vector<std::uint32_t> dirty_;  // LPs with uncommitted history
  LpState* current_ = nullptr;
  ProcessedEvent* current_record_ = nullptr;
  // The running handler's event time. Events below safe_until_ are final only if no event between
  // ranks is ever sent with less than the lookahead's delay (sends from on_init are not held to
  // it: they arrive before the first round ends).
  Time current_time_ = 0;
  // Events below safe_until_ can be neither rolled back nor cancelled (round_ended() says why):
  // execute_final() runs them. It rises at each GVT round to the GVT before plus the lookahead,
  // where the lookahead is known and engine.commit_within_lookahead is on (never in the rollback
  // check, which must undo every event).
  Time final_lookahead_ = 0;
  Time safe_until_ = std::numeric_limits<Time>::min();
  std::uint64_t cancelled_queued_ = 0;   // cancelled events whose queue entries are still there
  std::vector<std::byte> final_output_;  // rows of the event committed at once now running
  OutputLog output_log_;                 // rows of the events not yet committed
  bool in_handler_ = false;              // an event's handler runs (not on_init)
  std::uint32_t cancellable_sent_ = 0;   // events the running handler sent, if it has a record
  bool coasting_ = false;
  bool capture_ = false;
  std::vector<Event> captured_;
  Time gvt_ = 0;
  // At least the last key of every LP here (raised before each handler runs, never lowered by
  // rollbacks): arrivals above it need no straggler check.
  EventKey executed_bound_ = kMinKey;
  std::uint64_t uncommitted_ = 0;
  std::uint64_t snapshot_bytes_ = 0;
  std::uint64_t peak_bytes_ = 0;
  bool over_budget_ = false;
  bool budget_failure_ = false;
  std::string budget_message_;
  RankStats stats_;
  ProgressTicker progress_;
  Checkpointer checkpointer_;
  bool checkpoint_wanted_ = false;                     // rank 0: its clock asked for one when this round opened
  bool checkpoint_agreed_ = false;                     // by the last GVT round
  Time saved_gvt_ = std::numeric_limits<Time>::min();  // GVT of the newest checkpoint
  bool round_open_ = false;                            // a GVT round's reduction is in flight
  double round_opened_s_ = 0;                          // when it opened (steady_seconds)
  std::uint32_t polls_since_silence_check_ = 0;
  // The optimism window and GVT interval in force: the configured ones, or the tuner's.
  Time window_;
  std::uint64_t gvt_interval_;
  std::optional<OptimismTuner> tuner_;
  const double started_s_ = steady_seconds();
  SparseClock tuner_clock_;
  IdleWait idle_{config_.silence_timeout_s};
};

}  // namespace

RankStats run_optimistic(KernelSetup& setup) { return OptimisticKernel(setup).run(); }

std::string memory_budget_message(int rank, std::uint64_t held, std::uint64_t budget, std::uint64_t pending,
                                  std::uint64_t uncommitted) {
  const auto mib = [](std::uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20) + " MiB"; };
  return "memory budget exhausted on rank " + std::to_string(rank) + ": the engine holds " + mib(held) + " (" +
         std::to_string(pending) + " events, " + std::to_string(uncommitted) +
         " uncommitted) after committing all it could, budget is " + mib(budget) +
         "; raise engine.memory_budget_mib (bench: --memory-budget-mib) or use more ranks";
}

}  // namespace tracewarp::detail
