// A node block LP (internal to src/model/batch/): receives each started job's share of its
// nodes and accounts busy node-seconds.
#pragma once

#include "internal.hpp"

namespace tracewarp::batch::detail {

class NodeBlockLp {
 public:
  NodeBlockLp(const Shared* shared, Collector* out) : shared_(shared), out_(out) {}

  void on_event(const Event& ev, EventContext&) {
    if (ev.kind() != kStart) throw InvariantError("node block: unexpected event kind " + std::to_string(ev.kind()));
    const StartMsg m = ev.as<StartMsg>();
    busy_node_seconds_ += static_cast<double>(m.nodes) * to_seconds(m.run);
  }
  void on_finish(FinishContext& ctx) const {
    out_->busy.push_back({ctx.self() - shared_->first_block, busy_node_seconds_});
  }
  bool operator==(const NodeBlockLp&) const = default;
  TRACEWARP_PERSIST(busy_node_seconds_)

 private:
  const Shared* shared_;
  Collector* out_;
  double busy_node_seconds_ = 0;
};

}  // namespace tracewarp::batch::detail
