// Conservative mode: YAWNS-style windows. Every rank executes, in key order, its events earlier
// than W = (earliest pending event anywhere) + lookahead, then all ranks exchange what they sent
// and agree on the next earliest event. No event sent across ranks may land before W (the
// lookahead promise; checked at every remote send), so an event is never executed before an
// earlier one that concerns its LP: each is committed at once, with no state saving and no
// rollback.
//
// Wins over optimistic execution where the lookahead is long compared with the gaps between
// events (PHOLD, network delays): no state copies, histories or commit passes per event, only one
// reduction per window. Where LPs on different ranks exchange zero-delay events (a central
// scheduler and its nodes) there is no window, and the mode refuses to run.
#include <algorithm>

#include "checkpoint.hpp"
#include "event_pool.hpp"
#include "event_queue.hpp"
#include "kernel.hpp"
#include "tracewarp/core/error.hpp"
#include "transport.hpp"

namespace tracewarp::detail {
namespace {

constexpr std::uint64_t kBudgetExhausted = 1;
constexpr std::uint64_t kCheckpointDue = 2;  // rank 0's clock asks for a checkpoint before this window

class ConservativeKernel final : public KernelPort {
 public:
  explicit ConservativeKernel(KernelSetup& setup)
      : setup_(setup),
        end_(setup.config.end_time),
        lookahead_(setup.lookahead),
        transport_(setup.comm),
        ctx_(*this, setup.lp_count),
        send_seq_(setup.lps.size(), 0),
        progress_(setup.config, setup.comm.rank() == 0),
        checkpointer_(setup) {}

  RankStats run() {
    start();
    over_budget();
    for (;;) {
      const Time earliest = next_window_start();
      if (earliest >= end_) break;
      window_end_ = earliest < end_ - std::min(end_, lookahead_) ? earliest + lookahead_ : end_;
      execute_window();
      progress_.tick(earliest, stats_.committed);
    }
    transport_.drain_all([](const Event&, bool) {});
    for (const LocalLp& lp : setup_.lps) {
      FinishContext finish(lp.id, end_);
      lp.runtime->finish(finish);
    }
    stats_.peak_engine_bytes = peak_bytes_;
    checkpointer_.report(stats_);
    return stats_;
  }

 private:
  // Runs on_init, or restores the newest checkpoint.
  void start() {
    if (std::optional<CommittedState> restored = checkpointer_.restore()) {
      send_seq_ = restored->send_seq;
      for (const Event& ev : restored->pending) enqueue(ev);
      stats_.committed = restored->committed;
    } else {
      for (std::size_t i = 0; i < setup_.lps.size(); ++i) {
        ctx_.bind(*this, setup_.lps[i].id, 0, &send_seq_[i], EventContext::kNoCause);
        setup_.lps[i].runtime->init(ctx_);
      }
    }
    initialising_ = false;
  }

  // Between windows, with nothing in transit, every executed event is committed.
  void save_checkpoint(Time at) {
    CommittedState state;
    state.at = at;
    state.committed = stats_.committed;
    state.send_seq = send_seq_;
    state.pending = pending_events(pool_, queue_, [](std::uint32_t) { return false; });
    checkpointer_.save(state);
  }

  // Delivers every event in transit and returns the earliest pending event of all ranks.
  Time next_window_start() {
    ++stats_.gvt_rounds;
    transport_.begin_round();
    Transport::Reduction r;
    do {
      transport_.poll([this](const Event& ev, bool) { enqueue(ev); });
      const bool checkpoint = transport_.rank() == 0 && checkpointer_.due();
      r = transport_.reduce(queue_.empty() ? kTimeInfinity : queue_.top().time,
                            (budget_failure_ ? kBudgetExhausted : 0) | (checkpoint ? kCheckpointDue : 0));
    } while (r.white_in_transit != 0);
    transport_.end_round();
    if (r.flags & kBudgetExhausted) {
      if (budget_failure_) throw MemoryBudgetError(budget_message_);
      throw PeerFailure("memory budget exhausted on another rank");
    }
    if ((r.flags & kCheckpointDue) && r.min_time < end_) save_checkpoint(r.min_time);
    return r.min_time;
  }

  void execute_window() {
    while (!queue_.empty()) {
      const QueueEntry top = queue_.top();
      if (top.time >= window_end_) break;
      queue_.pop();
      prefetch_upcoming(
          queue_, pool_,
          [this](const QueueEntry& e) {
            return std::array<PrefetchRange, 2>{{{&setup_.lps[e.lp], sizeof(LocalLp)}, {&send_seq_[e.lp], 8}}};
          },
          [this](std::uint32_t lp) {
            const LocalLp& local = setup_.lps[lp];
            return PrefetchRange{local.runtime.get(), local.object_bytes};
          });
      const Event& ev = pool_[top.slot];
      const LocalLp& lp = setup_.lps[top.lp];
      ctx_.bind(*this, ev.dest, ev.time(), &send_seq_[top.lp], ev.kind());
      const double wall_us = run_handler(lp.timed, [&] { lp.runtime->execute(ev, ctx_); });
      CommitContext commit(ev.dest, records_, wall_us);
      commit_event(*lp.runtime, ev.dest, ev, commit);
      records_.clear();
      pool_.free(top.slot);
      if ((++stats_.committed & 0xFFF) == 0 && over_budget()) break;  // every rank stops at the next window
    }
    transport_.flush();
  }

  void enqueue(const Event& ev) {
    const std::uint32_t slot = pool_.alloc();
    pool_.store(slot, ev);
    // An event that will run soon has its LP's record fetched now (as in the other kernels).
    const std::uint32_t index = setup_.local_index[ev.dest];
    if (queue_.push(ev.key.time, slot, index)) prefetch_lines(&setup_.lps[index], sizeof(LocalLp));
  }

  // KernelPort: a send from the running handler (or from on_init).
  void deliver(const Event& ev) override {
    if (setup_.local_index[ev.dest] != kNotLocal) return enqueue(ev);
    if (!initialising_ && ev.key.time < window_end_)
      throw lookahead_broken("conservative", ev, "inside the current window ending at " + std::to_string(window_end_),
                             lookahead_, "engine.sync = \"optimistic\"");
    transport_.post(setup_.partition.rank_of(ev.dest), ev, /*anti=*/false);
    ++stats_.remote_sent;
  }
  void emit(RecordTag tag, const void* row, std::uint32_t size) override {
    if (initialising_) throw InvariantError(kEmitInInit);
    CommitContext::append(records_, tag, row, size);
  }
  // Nothing is speculative here: memory over the budget cannot be won back by waiting.
  bool over_budget() {
    const std::uint64_t held = pending_event_bytes(pool_, queue_);
    peak_bytes_ = std::max(peak_bytes_, held);
    if (held <= setup_.memory_budget_bytes) return false;
    budget_failure_ = true;
    budget_message_ = memory_budget_message(transport_.rank(), held, setup_.memory_budget_bytes, pool_.live(), 0);
    return true;
  }

  KernelSetup& setup_;
  const Time end_;
  const Time lookahead_;
  Transport transport_;
  EventContext ctx_;
  std::vector<std::uint64_t> send_seq_;  // by local index
  EventPool pool_;
  EventQueue queue_{pool_};
  std::vector<std::byte> records_;
  Time window_end_ = 0;
  bool budget_failure_ = false;
  std::string budget_message_;
  bool initialising_ = true;
  std::uint64_t peak_bytes_ = 0;
  RankStats stats_;
  ProgressTicker progress_;
  Checkpointer checkpointer_;
};

}  // namespace

RankStats run_conservative(KernelSetup& setup) { return ConservativeKernel(setup).run(); }

}  // namespace tracewarp::detail
