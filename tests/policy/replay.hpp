// An engine-free replay of a workload under a batch policy, for checking the policies'
// invariants on real traces. It is a test harness, not the batch model: one scheduling pass at
// every instant where jobs end or arrive (ends first), jobs killed at their requested walltime,
// nodes from a node pool: the policy's placement when it gives one (interval scheduling), else
// the lowest-numbered free nodes. It records what the invariants need, and counts placements on
// nodes in use (double booking).
#pragma once

#include <algorithm>
#include <map>
#include <queue>
#include <vector>

#include "tracewarp/jobs/job.hpp"
#include "tracewarp/policy/batch/node_pool.hpp"
#include "tracewarp/policy/batch/scheduling.hpp"

namespace tracewarp::testing {

struct ReplayRecord {
  Time submit = 0, start = -1, end = -1;
  std::uint32_t nodes = 0;
  std::vector<Time> reservations;       // planned starts, one per pass that planned this job
  std::vector<Time> planned_ahead;      // the same, minus the pass time
  std::vector<Time> head_reservations;  // those made while the job was the head (EASY's shadow)
};

struct ReplayResult {
  std::map<batch::JobId, ReplayRecord> jobs;
  std::vector<batch::JobId> start_order;
  std::uint32_t peak_used = 0;
  std::uint64_t passes = 0;
  std::uint64_t broken_reservations = 0;
  std::uint64_t double_booked = 0;  // starts placed on nodes in use
};

template <batch::SchedulingPolicy Policy>
ReplayResult replay(const std::vector<workload::Job>& workload, std::uint32_t machine_nodes, Policy& policy,
                    std::size_t depth = 0) {
  ReplayResult out;
  std::vector<batch::QueuedJob> queue;
  std::vector<batch::RunningJob> running;
  std::uint32_t used = 0;
  using End = std::pair<Time, batch::JobId>;
  std::priority_queue<End, std::vector<End>, std::greater<>> ends;
  std::size_t next = 0;
  std::map<batch::JobId, Time> run_of;
  batch::NodePool pool(machine_nodes);
  std::map<batch::JobId, std::vector<batch::NodeRange>> nodes_of;
  while (next < workload.size() || !ends.empty()) {
    const Time now = std::min(next < workload.size() ? workload[next].submit : kTimeInfinity,
                              ends.empty() ? kTimeInfinity : ends.top().first);
    while (!ends.empty() && ends.top().first == now) {  // ends first
      const batch::JobId id = ends.top().second;
      ends.pop();
      const auto it = std::find_if(running.begin(), running.end(), [&](const auto& r) { return r.id == id; });
      used -= it->nodes;
      running.erase(it);
      pool.release(nodes_of[id]);
    }
    while (next < workload.size() && workload[next].submit == now) {
      const workload::Job& j = workload[next++];
      if (j.nodes == 0 || j.nodes > machine_nodes) continue;
      queue.push_back({j.id, j.nodes, j.requested, j.submit, j.user, 1.0});
      out.jobs[j.id] = {j.submit, -1, -1, j.nodes, {}, {}, {}};
      run_of[j.id] = std::min(j.run, j.requested);  // killed at walltime
    }
    if (queue.empty()) continue;
    ++out.passes;
    const batch::PassDecision d = policy.pass({now, queue, running, machine_nodes, machine_nodes - used, depth});
    out.broken_reservations += d.broken_reservations;
    const batch::JobId head = queue.front().id;
    for (const batch::Reservation& r : d.reservations) {
      out.jobs[r.id].reservations.push_back(r.start);
      out.jobs[r.id].planned_ahead.push_back(r.start - now);
      if (r.id == head || (r.start != now && out.jobs[r.id].head_reservations.empty() && r.id == head))
        out.jobs[r.id].head_reservations.push_back(r.start);
    }
    for (std::size_t k = 0; k < d.start_now.size(); ++k) {
      const batch::JobId id = d.start_now[k];
      const auto it = std::find_if(queue.begin(), queue.end(), [&](const auto& q) { return q.id == id; });
      if (d.first_nodes.empty()) {
        nodes_of[id] = pool.allocate(it->nodes, batch::Allocation::any);
      } else if (pool.allocate_at(d.first_nodes[k], it->nodes)) {
        nodes_of[id] = {{d.first_nodes[k], it->nodes}};
      } else {
        ++out.double_booked;
        continue;
      }
      ReplayRecord& rec = out.jobs[id];
      rec.start = now;
      rec.end = now + run_of[id];
      used += it->nodes;
      out.peak_used = std::max(out.peak_used, used);
      running.push_back({id, it->nodes, now, now + it->requested, nodes_of[id].front().first});
      ends.push({rec.end, id});
      out.start_order.push_back(id);
      queue.erase(it);
    }
  }
  return out;
}

}  // namespace tracewarp::testing
