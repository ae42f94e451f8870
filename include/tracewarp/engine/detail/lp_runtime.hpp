// The engine's view of one LP instance: a type-erased wrapper (one per LP) that turns the
// model's class into the operations the kernels need — the ROSS-style LP-type table
// (init / event / commit / finish) plus state saving. Model authors never see this.
#pragma once

#include <memory>

#include "tracewarp/core/persist.hpp"
#include "tracewarp/engine/detail/ring.hpp"
#include "tracewarp/engine/lp.hpp"

namespace tracewarp::detail {

class LpRuntime {
 public:
  virtual ~LpRuntime() = default;

  virtual void init(EventContext& ctx) = 0;
  virtual void execute(const Event& ev, EventContext& ctx) = 0;
  // Reverse computation (LpTypeOptions::reverse): undoes execute(ev); only if has_reverse().
  virtual void reverse(const Event& ev, const ReverseContext& ctx) = 0;
  virtual bool has_reverse() const = 0;
  virtual void commit(const Event& ev, CommitContext& ctx) const = 0;
  virtual void finish(FinishContext& ctx) const = 0;

  // State snapshots, kept in processing order (see Ring).
  virtual void push_snapshot() = 0;
  virtual void restore_back_snapshot() = 0;
  virtual void pop_back_snapshot() = 0;
  virtual void pop_front_snapshot() = 0;
  // Where the next push_snapshot() will write, for the optimistic kernel to prefetch; or nullptr.
  virtual const void* next_snapshot_slot() const = 0;
  virtual std::size_t state_bytes() const = 0;

  // For the rollback check: an opaque copy of the state and a comparison with it.
  virtual std::shared_ptr<const void> copy_state() const = 0;
  virtual bool state_equals(const void* copy) const = 0;
  virtual const void* state() const = 0;  // the live state, for state_equals of another instance

  // Checkpoints: whether the LP type lists its state (TRACEWARP_PERSIST), saving and loading it.
  virtual bool persistable() const = 0;
  virtual void save(persist::Writer& out) const = 0;
  virtual void load(persist::Reader& in) = 0;
};

template <LogicalProcess L>
class LpAdapter final : public LpRuntime {
 public:
  explicit LpAdapter(L lp) : lp_(std::move(lp)) {}

  void init(EventContext& ctx) override {
    if constexpr (requires { lp_.on_init(ctx); }) lp_.on_init(ctx);
  }
  void execute(const Event& ev, EventContext& ctx) override { lp_.on_event(ev, ctx); }
  void reverse(const Event& ev, const ReverseContext& ctx) override {
    if constexpr (requires { lp_.on_reverse(ev, ctx); }) lp_.on_reverse(ev, ctx);
  }
  bool has_reverse() const override {
    return requires(L & lp, const Event& e, const ReverseContext& c) { lp.on_reverse(e, c); };
  }
  void commit(const Event& ev, CommitContext& ctx) const override {
    if constexpr (requires { lp_.on_commit(ev, ctx); }) lp_.on_commit(ev, ctx);
  }
  void finish(FinishContext& ctx) const override {
    if constexpr (requires { lp_.on_finish(ctx); }) lp_.on_finish(ctx);
  }

  void push_snapshot() override { snapshots_.push_back(lp_); }
  void restore_back_snapshot() override { lp_ = snapshots_.back(); }
  void pop_back_snapshot() override { snapshots_.pop_back(); }
  void pop_front_snapshot() override { snapshots_.pop_front(); }
  const void* next_snapshot_slot() const override { return snapshots_.next_slot(); }
  std::size_t state_bytes() const override { return sizeof(L); }

  std::shared_ptr<const void> copy_state() const override { return std::make_shared<const L>(lp_); }
  bool state_equals(const void* copy) const override { return lp_ == *static_cast<const L*>(copy); }
  const void* state() const override { return &lp_; }

  bool persistable() const override { return persist::Persistable<L>; }
  void save(persist::Writer& out) const override {
    if constexpr (persist::Persistable<L>) persist::save(out, lp_);
  }
  void load(persist::Reader& in) override {
    if constexpr (persist::Persistable<L>) persist::load(in, lp_);
  }

  const L& lp() const { return lp_; }

 private:
  L lp_;
  Ring<L> snapshots_;
};

}  // namespace tracewarp::detail
