// The entry point for running a model: register LP types, then run.
//
//   Simulation sim(comm, config);
//   LpRange nodes = sim.add_lps<NodeLp>({.name = "node"}, 1024, [&](LpId id) { return NodeLp{...}; });
//   RunStats stats = sim.run();
//
// Every rank executes the same registration code; LP ids are assigned in registration order, so
// they are the same on every rank and for every partition. A factory is called only for the LPs
// this rank owns, once, when run() starts.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tracewarp/core/stats.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/config.hpp"
#include "tracewarp/engine/detail/lp_runtime.hpp"
#include "tracewarp/engine/lp.hpp"

namespace tracewarp {

struct LpRange {
  LpId first = 0;
  LpId count = 0;
  LpId operator[](LpId i) const { return first + i; }
  LpId end() const { return first + count; }
  bool contains(LpId id) const { return id >= first && id < first + count; }
};

namespace detail {
struct LpTypeEntry {
  LpTypeOptions options;
  LpRange range;
  std::function<std::unique_ptr<LpRuntime>(LpId)> make;
};
// An object outside the LPs that a checkpoint saves with them (Simulation::checkpoint_also).
struct PersistentObject {
  std::function<void(persist::Writer&)> save;
  std::function<void(persist::Reader&)> load;
};
}  // namespace detail

class Simulation {
 public:
  Simulation(Communicator comm, EngineConfig config);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  template <LogicalProcess L, class Factory>
  requires std::is_invocable_r_v<L, Factory&, LpId> LpRange add_lps(LpTypeOptions options, LpId count, Factory make) {
    auto erased = [make = std::move(make)](LpId id) mutable -> std::unique_ptr<detail::LpRuntime> {
      return std::make_unique<detail::LpAdapter<L>>(make(id));
    };
    return add_lp_type(std::move(options), count, std::move(erased));
  }

  // The model's promise: every event an LP sends to another LP is at least `lookahead` later
  // than the event that sends it (0, the default: no such bound). Conservative mode needs one.
  void declare_lookahead(Time lookahead) { declared_lookahead_ = lookahead; }

  // Saves `object` (a model's output tables, filled by on_commit) with every checkpoint of this
  // rank and restores it on resume; it must outlive run(). Objects are restored in the order
  // they were registered.
  template <class T>
  void checkpoint_also(T& object) {
    objects_.push_back({[&object](persist::Writer& w) { persist::save(w, object); },
                        [&object](persist::Reader& r) { persist::load(r, object); }});
  }

  // Runs to the end time (or until no events remain) and returns the statistics of all ranks.
  RunStats run();

  const EngineConfig& config() const { return config_; }
  const Communicator& communicator() const { return comm_; }
  LpId lp_count() const { return next_lp_; }

 private:
  LpRange add_lp_type(LpTypeOptions options, LpId count, std::function<std::unique_ptr<detail::LpRuntime>(LpId)> make);

  Communicator comm_;
  EngineConfig config_;
  std::vector<detail::LpTypeEntry> types_;
  std::vector<detail::PersistentObject> objects_;
  LpId next_lp_ = 0;
  Time declared_lookahead_ = 0;
  bool ran_ = false;
};

}  // namespace tracewarp
