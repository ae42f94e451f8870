// The replication model end to end: the server's queue by hand, invariants over methods and
// random configurations, the rollback check, and the parameter table.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <numeric>

#include "tracewarp/core/error.hpp"
#include "tracewarp/model/replication/replication_model.hpp"

using namespace tracewarp;
using namespace tracewarp::replication;

namespace {
ReplicationParams small(const std::string& method, std::uint32_t hosts, std::uint64_t tasks, double grain,
                        std::uint64_t seed = 1) {
  ReplicationParams p;
  p.method = method;
  p.hosts = hosts;
  p.tasks = tasks;
  p.grain = grain;
  p.context = {seed, from_seconds(std::int64_t{60})};
  return p;
}

void check_invariants(const ReplicationResult& r, const ReplicationParams& p) {
  // Every task completes exactly once, with one winner that ran a finished copy.
  REQUIRE(r.tasks.size() == p.tasks);
  for (std::uint64_t i = 0; i < p.tasks; ++i) REQUIRE(r.tasks[i].id == i);
  std::map<std::uint64_t, int> finished_copies_of_winner;
  for (const CopyRow& c : r.copies)
    if (c.finished && c.host == r.tasks[c.task].winner_host) ++finished_copies_of_winner[c.task];
  for (const TaskRow& t : r.tasks) {
    CAPTURE(t.id);
    REQUIRE(finished_copies_of_winner[t.id] == 1);
    REQUIRE(t.end_s >= t.start_s);
    REQUIRE((t.winner_is_replica == 1) == (t.winner_host != t.original_host));
  }
  // No host runs two copies at once.
  std::map<std::uint32_t, std::vector<std::pair<double, double>>> by_host;
  for (const CopyRow& c : r.copies) by_host[c.host].push_back({c.start_s, c.end_s});
  for (auto& [host, spans] : by_host) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t k = 1; k < spans.size(); ++k) REQUIRE(spans[k].first >= spans[k - 1].second);
  }
  // Completion is never faster than all work at every host's peak.
  double completion = 0;
  for (const TaskRow& t : r.tasks) completion = std::max(completion, t.end_s);
  REQUIRE(completion >= static_cast<double>(p.tasks) * p.grain / r.total_peak_flops);
}
}  // namespace

TEST_CASE("replication server: a burst of requests waits exactly k/50 s", "[unit][replication]") {
  // 10 hosts, all in the server's domain, ask at t = 0 and arrive together (2 ms + 1.28 us).
  // Host k is served k-th (sender order), its service ends at arrival + (k+1)/50 s, and its task
  // input arrives 10 ms later: that is when task k starts.
  ReplicationParams p = small("wqr", 10, 10, 1e9);
  const ReplicationResult r = run_replication(Communicator::self(), p, EngineConfig{});
  REQUIRE(r.tasks.size() == 10);
  const double arrival = 0.002 + 16 * 8 / 100e6;
  for (std::uint64_t k = 0; k < 10; ++k) {
    CAPTURE(k);
    CHECK(r.tasks[k].original_host == k);
    CHECK(r.tasks[k].start_s == Approx(arrival + static_cast<double>(k + 1) * 0.02 + 0.010).epsilon(1e-12));
  }
  // The first ten waits are 0, 20, ..., 180 ms; later results queue too, so the maximum is at
  // least 180 ms.
  CHECK(r.queue_delay_max_s >= 0.18 - 1e-12);
}

TEST_CASE("replication adaptive: a collected view is as old as the server took to serve the reports",
          "[unit][replication]") {
  // 10 hosts in the server's domain: probes reach them d = 2 ms + 16 B at 100 Mbit/s after a
  // round starts, each measures then, and the reports reach the server d later and are served
  // one by one (20 ms each). The split is decided once the tenth is served: every host's state
  // is then d + 200 ms old, in every round.
  const ReplicationResult r = run_replication(Communicator::self(), small("adaptive", 10, 200, 1e10), EngineConfig{});
  const double d = 0.002 + 16 * 8 / 100e6;
  CHECK(r.view_age_max_s == Approx(d + 0.2).epsilon(1e-12));
  CHECK(r.view_age_mean_s == Approx(d + 0.2).epsilon(1e-12));
  CHECK(r.measurements == 0);
}

TEST_CASE("replication adaptive: monitors measure every interval, staggered, until the last task is done",
          "[unit][replication]") {
  // Host h measures at (h + 1) s, then every 10 s; the last task's end reaches the server d
  // later, the server's stop reaches every host d after that (at C + 2d), and every measurement
  // taken before then is served, each costing the server 20 ms but no exchange event.
  ReplicationParams p = small("adaptive", 10, 200, 1e10);
  p.monitor_interval = from_seconds(std::int64_t{10});
  const ReplicationResult r = run_replication(Communicator::self(), p, EngineConfig{});
  check_invariants(r, p);
  double completion = 0;
  for (const TaskRow& t : r.tasks) completion = std::max(completion, t.end_s);
  const double d = 0.002 + 16 * 8 / 100e6, stop = completion + 2 * d;
  std::uint64_t expected = 0;
  for (int h = 0; h < 10; ++h)
    for (double t = h + 1; t <= stop; t += 10) ++expected;
  CHECK(r.measurements == expected);
  // Rounds after the first rebalance on measurements at most one interval old (plus the network
  // and the queue), here far below the server's capacity.
  CHECK(r.view_age_max_s <= 10 + 2 * d + 0.2);
  CHECK(r.view_age_mean_s < r.view_age_max_s);
  // The server's exchanges are the collection of round 0 and one event per host per round.
  const ReplicationResult on_demand = run_replication(Communicator::self(), small("adaptive", 10, 200, 1e10), {});
  CHECK(r.server_events < on_demand.server_events);
  // A measurement that arrives 5 s late is at least 5 s old when a round uses it.
  p.monitor_lag = from_seconds(std::int64_t{5});
  const ReplicationResult late = run_replication(Communicator::self(), p, EngineConfig{});
  check_invariants(late, p);
  CHECK(late.view_age_max_s <= 15 + 2 * d + 0.2);
  CHECK(late.view_age_mean_s > r.view_age_mean_s);
}

TEST_CASE("replication adaptive: monitoring that saturates the server ages the view by its backlog",
          "[unit][replication]") {
  // 200 hosts measured every second are 200 measurements a second for a server of 50: the
  // backlog grows all run, and rounds decide on views far older than the interval.
  ReplicationParams p = small("adaptive", 200, 2000, 1e10);
  p.monitor_interval = from_seconds(std::int64_t{1});
  const ReplicationResult r = run_replication(Communicator::self(), p, EngineConfig{});
  check_invariants(r, p);
  CHECK(r.view_age_mean_s > 30);
  p.monitor_cost_events = 0;  // free measurements: only their interval ages the view
  const ReplicationResult free = run_replication(Communicator::self(), p, EngineConfig{});
  CHECK(free.view_age_max_s <= 1 + 4 * 0.02 + 200 * 0.02);
  CHECK(free.measurements > 0);
}

TEST_CASE("replication model: invariants for every method on random configurations", "[unit][replication]") {
  for (const char* method : {"wqr", "adaptive", "proposed", "proposed-no-cond3"})
    for (const std::uint64_t seed : {1, 2, 3}) {
      CAPTURE(method, seed);
      const ReplicationParams p =
          small(method, 60 + 17 * static_cast<std::uint32_t>(seed), 400 * seed, seed == 2 ? 1e11 : 1e9, seed);
      const ReplicationResult r = run_replication(Communicator::self(), p, EngineConfig{});
      check_invariants(r, p);
      if (std::string(method) == "proposed-no-cond3" || std::string(method) == "proposed")
        CHECK(r.server_events == 2 * p.hosts);  // only the static assignment round
    }
}

TEST_CASE("replication model: condition 3 raises the replication success", "[unit][replication]") {
  std::uint64_t started[2] = {}, won[2] = {};
  for (int k = 0; k < 2; ++k) {
    const ReplicationResult r = run_replication(
        Communicator::self(), small(k == 0 ? "proposed" : "proposed-no-cond3", 400, 3000, 1e10), EngineConfig{});
    for (const TaskRow& t : r.tasks) started[k] += t.replicas, won[k] += t.winner_is_replica;
  }
  REQUIRE(started[0] > 0);
  REQUIRE(started[1] > started[0]);
  CHECK(static_cast<double>(won[0]) / static_cast<double>(started[0]) >
        static_cast<double>(won[1]) / static_cast<double>(started[1]));
}

TEST_CASE("replication model: every LP type passes the rollback check, hosts undone by copies or by on_reverse",
          "[unit][replication]") {
  for (const char* method : {"wqr", "adaptive", "proposed", "adaptive-monitored"})
    for (const bool reverse : {false, true}) {
      CAPTURE(method, reverse);
      const bool monitored = std::string(method) == "adaptive-monitored";
      ReplicationParams p = small(monitored ? "adaptive" : method, 80, 500, 1e9);
      if (monitored) p.monitor_interval = from_seconds(std::int64_t{5});
      p.reverse = reverse;
      const ReplicationResult reference = run_replication(Communicator::self(), p, EngineConfig{});
      EngineConfig e;
      e.sync = SyncMode::rollback_check;
      const ReplicationResult checked = run_replication(Communicator::self(), p, e);
      REQUIRE(checked.tasks.size() == reference.tasks.size());
      REQUIRE(std::memcmp(checked.tasks.data(), reference.tasks.data(), reference.tasks.size() * sizeof(TaskRow)) == 0);
    }
}

TEST_CASE("replication parameters: declared once, bounds and names checked with the key", "[unit][replication]") {
  const ParamTable<ReplicationParams>& table = replication_param_table();
  Config c(table.schema());
  const ReplicationParams defaults = table.read(c);
  CHECK(defaults.hosts == 1600);
  CHECK(defaults.reschedule_period == from_seconds(std::int64_t{100}));
  c.set("replication.hosts", std::int64_t{1}, "test");
  CHECK_THROWS_WITH(table.read(c), "test: replication.hosts must be >= 2, got 1");
  c.set("replication.hosts", std::int64_t{100}, "test");
  c.set("replication.method", std::string("fastest"), "test");
  CHECK_THROWS_WITH(
      table.read(c),
      "test: replication.method must be one of wqr, adaptive, proposed, proposed-no-cond3, got 'fastest'");
}
