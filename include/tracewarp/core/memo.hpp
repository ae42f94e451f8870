// A memo: what a component keeps only to do less work, never part of its state.
//
// The LP contract (engine/lp.hpp) gives a memo member its own rule. The engine saves an LP's
// state by copying it, restores copies on rollback and compares copies in the rollback check; a
// Memo is shared by every copy, compares equal to every other, and is left out of checkpoints
// (TRACEWARP_PERSIST). So after a rollback, a restored checkpoint or any other jump, the next call
// reads a memo written by a call that the state no longer reflects. The rule that makes this
// safe, for every memo:
//
//   A memo may be read by any later call, whatever happened between; it may save work, never
//   change an answer: every entry is checked against the call's own input before it is used.
//
// The rollback-check mode (engine.sync = "rollback-check") tests the rule on every event: the
// redo of an event reads the memo its first execution wrote, so a memo that changed an answer
// would make the two differ and stop the run.
#pragma once

#include <memory>

namespace tracewarp {

template <class T>
class Memo {
 public:
  // Made on first use, so components built by copying one prototype never share one.
  T& get() {
    if (!kept_) kept_ = std::make_shared<T>();
    return *kept_;
  }
  bool operator==(const Memo&) const { return true; }  // not state

 private:
  std::shared_ptr<T> kept_;
};

}  // namespace tracewarp
