// Sequential mode: one global event list, no rollback. Every event is committed as soon as it
// has been executed. This is the reference every other mode must reproduce.
#include "checkpoint.hpp"
#include "event_pool.hpp"
#include "event_queue.hpp"
#include "kernel.hpp"

namespace tracewarp::detail {
namespace {

class SequentialKernel final : public KernelPort {
 public:
  explicit SequentialKernel(KernelSetup& setup)
      : setup_(setup),
        ctx_(*this, setup.lp_count),
        progress_(setup.config, setup.comm.rank() == 0),
        checkpointer_(setup) {
    // One rank owns every LP, in id order: an LP's local index is its id (no lookup per event).
    hot_.reserve(setup.lps.size());
    for (const LocalLp& lp : setup.lps) {
      if (lp.id != hot_.size()) throw InvariantError("sequential kernel: LPs must be local and in id order");
      hot_.push_back({lp.runtime.get(), 0, lp.timed, lp.object_bytes});
    }
  }

  RankStats run() {
    const Time end = setup_.config.end_time;
    std::uint64_t committed = start();
    check_budget();
    while (!queue_.empty()) {
      // The slot stays allocated until the handler has run: it holds the event being handled.
      const QueueEntry top = queue_.top();
      if (top.time >= end) break;
      queue_.pop();
      prefetch_ahead();
      const Event& ev = pool_[top.slot];
      HotLp& hot = hot_[top.lp];
      LpRuntime& lp = *hot.runtime;
      ctx_.bind(*this, ev.dest, ev.time(), &hot.send_seq, ev.kind());
      const double wall_us = run_handler(hot.timed, [&] { lp.execute(ev, ctx_); });
      CommitContext commit(ev.dest, records_, wall_us);
      commit_event(lp, ev.dest, ev, commit);
      records_.clear();
      pool_.free(top.slot);
      if ((++committed & 0x3FF) == 0) {
        check_budget();
        progress_.tick(top.time, committed);
        if (checkpointer_.due()) save_checkpoint(committed);
      }
    }
    for (const auto& lp : setup_.lps) {
      FinishContext finish(lp.id, end);
      lp.runtime->finish(finish);
    }
    RankStats stats;
    stats.committed = committed;
    stats.peak_engine_bytes = peak_bytes_;
    checkpointer_.report(stats);
    return stats;
  }

 private:
  // What every event touches of its LP, in one record: one prefetch brings it all.
  struct alignas(32) HotLp {
    LpRuntime* runtime;
    std::uint64_t send_seq;
    bool timed;                  // LpTypeOptions::timed
    std::uint32_t object_bytes;  // LocalLp::object_bytes
  };

  [[gnu::always_inline]] void prefetch_ahead() {
    prefetch_upcoming(
        queue_, pool_,
        [this](const QueueEntry& e) {
          return std::array<PrefetchRange, 1>{{{&hot_[e.lp], sizeof(HotLp)}}};
        },
        [this](std::uint32_t lp) {
          return PrefetchRange{hot_[lp].runtime, hot_[lp].object_bytes};
        });
  }

  // Runs on_init, or restores the newest checkpoint; returns the events committed so far.
  std::uint64_t start() {
    if (std::optional<CommittedState> restored = checkpointer_.restore()) {
      for (std::size_t i = 0; i < hot_.size(); ++i) hot_[i].send_seq = restored->send_seq[i];
      for (const Event& ev : restored->pending) deliver(ev);
      return restored->committed;
    }
    initialising_ = true;
    for (std::size_t i = 0; i < setup_.lps.size(); ++i) {
      ctx_.bind(*this, setup_.lps[i].id, 0, &hot_[i].send_seq, EventContext::kNoCause);
      hot_[i].runtime->init(ctx_);
      if (i % 4096 == 4095) check_budget();  // initial events alone can exceed it
    }
    initialising_ = false;
    return 0;
  }

  // Between two events everything executed is committed: the state is the committed state.
  void save_checkpoint(std::uint64_t committed) {
    CommittedState state;
    state.committed = committed;
    for (const HotLp& hot : hot_) state.send_seq.push_back(hot.send_seq);
    state.at = queue_.empty() ? setup_.config.end_time : queue_.top().time;
    state.pending = pending_events(pool_, queue_, [](std::uint32_t) { return false; });
    checkpointer_.save(state);
  }

  void deliver(const Event& ev) override {
    const std::uint32_t slot = pool_.alloc();
    pool_.store(slot, ev);
    // An event that will run soon has its LP's record fetched now: prefetch_ahead has passed its
    // place in the order.
    if (queue_.push(ev.key.time, slot, static_cast<std::uint32_t>(ev.dest))) __builtin_prefetch(&hot_[ev.dest]);
  }
  void emit(RecordTag tag, const void* row, std::uint32_t size) override {
    if (initialising_) throw InvariantError(kEmitInInit);
    CommitContext::append(records_, tag, row, size);
  }
  void check_budget() {
    const std::uint64_t held = pending_event_bytes(pool_, queue_);
    peak_bytes_ = std::max(peak_bytes_, held);
    if (held > setup_.memory_budget_bytes)
      throw MemoryBudgetError(memory_budget_message(0, held, setup_.memory_budget_bytes, pool_.live(), 0));
  }

  KernelSetup& setup_;
  EventContext ctx_;
  std::vector<HotLp> hot_;  // by local index
  EventPool pool_;
  EventQueue queue_{pool_};
  std::vector<std::byte> records_;
  std::uint64_t peak_bytes_ = 0;
  bool initialising_ = false;
  ProgressTicker progress_;
  Checkpointer checkpointer_;
};

}  // namespace

RankStats run_sequential(KernelSetup& setup) { return SequentialKernel(setup).run(); }

}  // namespace tracewarp::detail
