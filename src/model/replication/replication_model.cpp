#include "tracewarp/model/replication/replication_model.hpp"

#include "host_lp.hpp"
#include "server_lp.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <numbers>
#include <tuple>

#include "../common/gather_rows.hpp"
#include "../common/tick_buckets.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/memory.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/engine/simulation.hpp"
#include "tracewarp/policy/replication/scheduling.hpp"

namespace tracewarp::replication {

using namespace detail;

ReplicationResult run_replication(const Communicator& comm, const ReplicationParams& params, EngineConfig engine) {
  const Method& method = find_method(params.method);
  Shared shared{params,
                &method,
                {params.walk_step, params.walk_start, params.omega_variance, params.context.seed},
                {params.domain_size, params.server_domain, params.stub_mbps * 1e6, params.transit_mbps * 1e6,
                 params.hop_latency, params.inter_domain_rtt}};
  shared.service = std::max<Time>(1, from_seconds(1.0 / params.server_rate));
  shared.measurement_service = from_seconds(params.monitor_cost_events / params.server_rate);
  shared.monitoring = method.rescheduling && params.monitor_interval > 0;
  Collector out;
  out.buckets = model::TickBuckets<2>(params.context.series_interval);
  // Room for this rank's rows before the first is written: without it, growing the tables (two
  // 60-MB vectors at 10^6 tasks) was a third of committing their rows, most of it page faults.
  // The sizes are estimates of a rank's share (a task has one row and 1.1-1.2 copies at 10^5
  // hosts), with room to spare; beyond them a table grows as before. A reservation only becomes
  // memory where it is written, but it is not made larger than the share, so that many ranks on
  // one node with strict overcommit do not each reserve the whole run.
  const std::size_t share = params.tasks / static_cast<std::size_t>(comm.size()) + 1;
  reserve_huge(out.tasks, share + share / 8);
  reserve_huge(out.copies, share + share / 2);
  Simulation sim(comm, engine);
  // The network's shortest delay: two hops inside one domain (Network::delay_between_domains).
  sim.declare_lookahead(2 * shared.network.hop_latency);
  shared.server = sim.add_lps<ServerLp>({.name = "replication-server", .checkpoint_interval = 1024}, 1,
                                        [&](LpId) { return ServerLp(&shared, &out); })
                      .first;
  shared.first_host =
      sim.add_lps<HostLp>({.name = "replication-host", .reverse = params.reverse}, params.hosts,
                          [&](LpId id) { return HostLp(&shared, &out, static_cast<std::uint32_t>(id - 1)); })
          .first;
  sim.checkpoint_also(out);
  ReplicationResult r;
  r.stats = sim.run();
  r.tasks =
      model::gather_sorted(comm, std::move(out.tasks), [](const TaskRow& a, const TaskRow& b) { return a.id < b.id; });
  // A host runs one copy at a time, so no two copies share task, start and host.
  r.copies = model::gather_sorted(comm, std::move(out.copies), [](const CopyRow& a, const CopyRow& b) {
    return std::tie(a.task, a.start_s, a.host) < std::tie(b.task, b.start_s, b.host);
  });
  for (const auto& [bucket, ticks] : out.buckets.gathered(comm))
    r.series.push_back({static_cast<double>(bucket) * to_seconds(params.context.series_interval),
                        out.buckets.average(ticks, 0), out.buckets.average(ticks, 1)});
  // Reductions over all ranks, so that every rank holds the same summary numbers.
  std::uint64_t host_events = 0,
                maxima[3] = {0, static_cast<std::uint64_t>(out.wait_max), static_cast<std::uint64_t>(out.view_age_max)};
  for (const std::uint64_t e : out.host_events) host_events += e, maxima[0] = std::max(maxima[0], e);
  // The waits' sum as whole seconds and nanoseconds (TimeSum), each summed over the ranks: the
  // nanoseconds of a few ranks stay far below 2^63.
  std::uint64_t sums[] = {out.server_events,
                          static_cast<std::uint64_t>(out.wait_sum.seconds),
                          out.waits,
                          out.hosts_stopped,
                          out.replicas_not_started,
                          host_events,
                          static_cast<std::uint64_t>(out.wait_sum.nanoseconds),
                          out.measurements,
                          static_cast<std::uint64_t>(out.view_age_sum.seconds),
                          static_cast<std::uint64_t>(out.view_age_sum.nanoseconds),
                          out.view_ages};
  comm.sum(sums);
  comm.max(maxima);
  r.host_events_max = maxima[0];
  r.host_events_mean = static_cast<double>(sums[5]) / params.hosts;
  const std::uint64_t wait_max = maxima[1];
  r.server_events = sums[0];
  TimeSum waited{static_cast<std::int64_t>(sums[1]), 0};
  waited.add(static_cast<Time>(sums[6]));
  r.queue_delay_mean_s = sums[2] > 0 ? waited.in_seconds() / static_cast<double>(sums[2]) : 0;
  r.queue_delay_max_s = to_seconds(static_cast<Time>(wait_max));
  r.hosts_stopped = sums[3];
  r.replicas_accepted_not_started = sums[4];
  r.measurements = sums[7];
  TimeSum aged{static_cast<std::int64_t>(sums[8]), 0};
  aged.add(static_cast<Time>(sums[9]));
  r.view_age_mean_s = sums[10] > 0 ? aged.in_seconds() / static_cast<double>(sums[10]) : 0;
  r.view_age_max_s = to_seconds(static_cast<Time>(maxima[2]));
  // The ideal bound's denominator: every host's peak (drawn as the hosts draw it).
  for (std::uint32_t h = 0; h < params.hosts; ++h) {
    RandomStream rng(params.context.seed, h);
    r.total_peak_flops += draw_host_traits(rng).peak_flops;
  }
  return r;
}

}  // namespace tracewarp::replication
