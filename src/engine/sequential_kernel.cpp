// Sequential mode: one global event list, no rollback. Every event is committed as soon as it
// has been executed. This is the reference every other mode must reproduce.
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
        send_seq_(setup.lps.size(), 0),
        progress_(setup.config, setup.comm.rank() == 0) {}

  RankStats run() {
    const Time end = setup_.config.end_time;
    initialising_ = true;
    for (std::size_t i = 0; i < setup_.lps.size(); ++i) {
      ctx_.bind(*this, setup_.lps[i].id, 0, &send_seq_[i], EventContext::kNoCause);
      setup_.lps[i].runtime->init(ctx_);
    }
    initialising_ = false;
    check_budget();
    std::uint64_t committed = 0;
    while (!queue_.empty()) {
      // The slot stays allocated until the handler has run: it holds the event being handled.
      const QueueEntry top = queue_.top();
      if (top.time >= end) break;
      queue_.pop();
      if (const QueueEntry* next = queue_.likely_next()) {
        __builtin_prefetch(&pool_[next->slot]);
        __builtin_prefetch(setup_.lps[next->lp].runtime.get());
      }
      const Event& ev = pool_[top.slot];
      const std::uint32_t li = top.lp;
      LpRuntime& lp = *setup_.lps[li].runtime;
      ctx_.bind(*this, ev.dest, ev.time(), &send_seq_[li], ev.kind());
      const double wall_us = run_handler(setup_.lps[li].timed, [&] { lp.execute(ev, ctx_); });
      CommitContext commit(ev.dest, records_, wall_us);
      commit_event(lp, ev.dest, ev, commit);
      records_.clear();
      pool_.free(top.slot);
      if ((++committed & 0xFFF) == 0) {
        check_budget();
        progress_.tick(top.time, committed);
      }
    }
    for (const auto& lp : setup_.lps) {
      FinishContext finish(lp.id, end);
      lp.runtime->finish(finish);
    }
    RankStats stats;
    stats.committed = committed;
    stats.peak_engine_bytes = peak_bytes_;
    return stats;
  }

 private:
  void deliver(const Event& ev) override {
    const std::uint32_t slot = pool_.alloc();
    pool_[slot] = ev;
    queue_.push(ev.key.time, slot, setup_.local_index[ev.dest]);
  }
  void emit(RecordTag tag, const void* row, std::uint32_t size) override {
    if (initialising_) throw InvariantError(kEmitInInit);
    CommitContext::append(records_, tag, row, size);
  }
  void check_budget() {
    const std::uint64_t held = pool_.live() * (sizeof(Event) + sizeof(SlotInfo)) + queue_.size() * sizeof(QueueEntry);
    peak_bytes_ = std::max(peak_bytes_, held);
    if (held > setup_.memory_budget_bytes)
      throw MemoryBudgetError(memory_budget_message(0, held, setup_.memory_budget_bytes, pool_.live(), 0));
  }

  KernelSetup& setup_;
  EventContext ctx_;
  std::vector<std::uint64_t> send_seq_;
  EventPool pool_;
  EventQueue queue_{pool_};
  std::vector<std::byte> records_;
  std::uint64_t peak_bytes_ = 0;
  bool initialising_ = false;
  ProgressTicker progress_;
};

}  // namespace

RankStats run_sequential(KernelSetup& setup) { return SequentialKernel(setup).run(); }

}  // namespace tracewarp::detail
