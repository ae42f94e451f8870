// Any scheduling policy (the SchedulingPolicy concept of scheduling.hpp) behind one value type,
// so the model holds a policy without knowing its class: a policy is added in its own file
// (registry.hpp) and nothing that holds one is rebuilt. A BatchPolicy is a value like the
// policies it holds: copying it copies the policy's state (the engine's state saving), == compares
// the states, and persist() saves and restores them (checkpoints). A checkpoint is restored into
// a BatchPolicy made by the same registry entry from the same keys, so only the state travels.
#pragma once

#include <memory>
#include <typeinfo>
#include <utility>

#include "tracewarp/core/persist.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::batch {

class BatchPolicy {
 public:
  template <SchedulingPolicy P>
  requires(!std::same_as<std::remove_cvref_t<P>, BatchPolicy>) BatchPolicy(P policy)
      : self_(std::make_unique<Held<P>>(std::move(policy))) {}
  BatchPolicy(const BatchPolicy& other) : self_(other.self_->clone()) {}
  BatchPolicy(BatchPolicy&&) noexcept = default;
  BatchPolicy& operator=(const BatchPolicy& other) {
    if (this != &other) self_ = other.self_->clone();
    return *this;
  }
  BatchPolicy& operator=(BatchPolicy&&) noexcept = default;

  PassDecision pass(const SchedulingInput& in) { return self_->pass(in); }
  bool reads_wrsa() const { return self_->reads_wrsa(); }
  Time longest_plannable() const { return self_->longest_plannable(); }
  bool operator==(const BatchPolicy& other) const { return self_->equals(*other.self_); }

  // The policy held, if it is a P (tests and tools that know the class).
  template <class P>
  const P* get() const {
    const auto* held = dynamic_cast<const Held<P>*>(self_.get());
    return held != nullptr ? &held->policy : nullptr;
  }

  void persist(persist::Writer& w) { self_->save(w); }
  void persist(persist::Reader& r) { self_->load(r); }

 private:
  struct Interface {
    virtual ~Interface() = default;
    virtual std::unique_ptr<Interface> clone() const = 0;
    virtual PassDecision pass(const SchedulingInput& in) = 0;
    virtual bool reads_wrsa() const = 0;
    virtual Time longest_plannable() const = 0;
    virtual bool equals(const Interface& other) const = 0;
    virtual void save(persist::Writer& w) const = 0;
    virtual void load(persist::Reader& r) = 0;
  };
  template <class P>
  struct Held final : Interface {
    explicit Held(P p) : policy(std::move(p)) {}
    std::unique_ptr<Interface> clone() const override { return std::make_unique<Held>(policy); }
    PassDecision pass(const SchedulingInput& in) override { return policy.pass(in); }
    bool reads_wrsa() const override { return policy.reads_wrsa(); }
    Time longest_plannable() const override { return policy.longest_plannable(); }
    bool equals(const Interface& other) const override {
      const auto* same = dynamic_cast<const Held*>(&other);
      return same != nullptr && same->policy == policy;
    }
    void save(persist::Writer& w) const override { persist::save(w, policy); }
    void load(persist::Reader& r) override { persist::load(r, policy); }
    P policy;
  };
  std::unique_ptr<Interface> self_;
};

}  // namespace tracewarp::batch
