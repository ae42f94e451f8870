// Small LP types that exercise the engine's guarantees. Each records what it commits in a
// Ledger that lives outside the simulated state, so tests can compare committed histories
// between synchronisation modes, rank counts and thread counts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include "tracewarp/core/parallel.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/engine/simulation.hpp"

namespace tracewarp::testing {

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h ^= h >> 31;
  return h * 0xBF58476D1CE4E5B9ull;
}

// What one rank committed: per LP, an order-sensitive hash of its committed events and rows,
// their count, and whether keys ever went backwards (they must not).
struct Ledger {
  struct PerLp {
    std::uint64_t hash = 0;
    std::uint64_t events = 0;
    std::uint64_t rows = 0;
    EventKey last_key = kMinKey;
    bool out_of_order = false;
  };
  std::map<LpId, PerLp> lps;

  void record(const Event& ev, const CommitContext& ctx) {
    PerLp& p = lps[ctx.self()];
    if (ev.key < p.last_key || ev.key == p.last_key) p.out_of_order = true;
    p.last_key = ev.key;
    ++p.events;
    p.hash = mix(mix(mix(p.hash, static_cast<std::uint64_t>(ev.time())), ev.key.kind_sender), ev.key.seq);
    for (std::size_t i = 0; i < ev.payload_size; ++i) p.hash = mix(p.hash, static_cast<std::uint64_t>(ev.payload[i]));
    ctx.for_each_record([&](const CommitContext::Record& r) {
      ++p.rows;
      p.hash = mix(p.hash, r.tag);
      for (std::byte b : r.bytes) p.hash = mix(p.hash, static_cast<std::uint64_t>(b));
    });
  }

  // A summary that is independent of which rank committed what: sums over LPs.
  struct Summary {
    std::uint64_t events = 0, rows = 0, hash = 0, out_of_order = 0;
    bool operator==(const Summary&) const = default;
  };
  Summary summary(const Communicator& comm) const {
    std::uint64_t v[4] = {0, 0, 0, 0};
    for (const auto& [id, p] : lps) {
      v[0] += p.events;
      v[1] += p.rows;
      v[2] += mix(p.hash, id);
      v[3] += p.out_of_order ? 1 : 0;
    }
    comm.sum(v);
    return {v[0], v[1], v[2], v[3]};
  }
};

inline constexpr EventKind kPing = 3;

// Sends a payload-carrying event to a random LP or itself, and emits one row per event.
struct ChatterLp {
  struct Msg {
    std::uint64_t hops;
    std::uint64_t origin;
  };
  struct Row {
    std::uint64_t hops;
    std::int64_t time;
  };
  RandomStream rng;
  LpId lps;
  double remote;
  std::uint64_t received = 0;
  Ledger* ledger;

  void on_init(EventContext& ctx) {
    for (int i = 0; i < 4; ++i) ctx.send(ctx.self(), 1 + static_cast<Time>(rng.below(1000)), kPing, Msg{0, ctx.self()});
  }
  void on_event(const Event& ev, EventContext& ctx) {
    const Msg m = ev.as<Msg>();
    ++received;
    const LpId dest = rng.uniform() < remote ? rng.below(lps) : ctx.self();
    ctx.send(dest, 1 + static_cast<Time>(rng.exponential(500.0)), kPing, Msg{m.hops + 1, m.origin});
    ctx.emit(1, Row{m.hops, ctx.now()});
  }
  void on_commit(const Event& ev, CommitContext& ctx) const { ledger->record(ev, ctx); }
  bool operator==(const ChatterLp&) const = default;
};

// A large state (a few thousand counters) saved by periodic checkpoints with coast-forward;
// each event changes a few counters and derives its next delay from a TBB reduction over the
// whole state, so thread count must not change anything.
struct BigStateLp {
  RandomStream rng;
  LpId lps;
  std::vector<std::int64_t> counters;
  Ledger* ledger;

  void on_init(EventContext& ctx) { ctx.send(ctx.self(), 1 + static_cast<Time>(rng.below(100)), kPing); }
  void on_event(const Event&, EventContext& ctx) {
    for (int i = 0; i < 3; ++i) counters[rng.below(counters.size())] += static_cast<std::int64_t>(rng.below(100));
    const ArgMax best = deterministic_argmax(
        counters.size(), [&](std::size_t i) { return static_cast<double>(counters[i] % 97); }, 256);
    const LpId dest = rng.uniform() < 0.3 ? rng.below(lps) : ctx.self();
    ctx.send(dest, 1 + static_cast<Time>(best.index % 200) + static_cast<Time>(rng.below(50)), kPing);
    ctx.emit(2, static_cast<std::uint64_t>(best.index));
  }
  void on_commit(const Event& ev, CommitContext& ctx) const { ledger->record(ev, ctx); }
  bool operator==(const BigStateLp&) const = default;
};

// Every LP sends, at one and the same instant, events of several kinds to LP 0..k: a storm of
// ties that must be processed in key order whatever the partition.
struct TieLp {
  LpId lps;
  std::uint64_t seen = 0;
  std::uint64_t order_hash = 0;
  Ledger* ledger;

  void on_init(EventContext& ctx) {
    for (EventKind kind : {EventKind{5}, EventKind{2}, EventKind{9}})
      for (LpId d = 0; d < std::min<LpId>(lps, 4); ++d) ctx.send(d, 100, kind);
  }
  void on_event(const Event& ev, EventContext& ctx) {
    ++seen;
    order_hash = mix(order_hash, ev.key.kind_sender);
    // Each event also triggers another tie storm one tick later, at fewer LPs.
    if (ev.time() < 105 && ev.kind() == 2) ctx.send((ctx.self() + 1) % lps, 1, EventKind{7});
    ctx.emit(3, order_hash);
  }
  void on_commit(const Event& ev, CommitContext& ctx) const { ledger->record(ev, ctx); }
  bool operator==(const TieLp&) const = default;
};

// Zero-delay cascades through phases: a tick (kind 10) makes an LP send, at the same instant, an
// event of kind 11 to a random LP, which sends one of kind 12 to another, which schedules the
// next tick later. Many LPs do this at the same instants, so phases interleave across LPs.
struct PhaseLp {
  RandomStream rng;
  LpId lps;
  std::uint64_t seen = 0;
  Ledger* ledger;

  void on_init(EventContext& ctx) { ctx.send(ctx.self(), 1 + static_cast<Time>(rng.below(5)) * 100, EventKind{10}); }
  void on_event(const Event& ev, EventContext& ctx) {
    seen = mix(seen, ev.key.kind_sender);
    if (ev.kind() < 12) {
      ctx.send(rng.below(lps), 0, static_cast<EventKind>(ev.kind() + 1));  // same instant, next phase
    } else {
      ctx.send(rng.below(lps), 100 * (1 + static_cast<Time>(rng.below(3))), EventKind{10});
    }
    ctx.emit(4, seen);
  }
  void on_commit(const Event& ev, CommitContext& ctx) const { ledger->record(ev, ctx); }
  bool operator==(const PhaseLp&) const = default;
};

// Deliberately broken: its handler reads a global counter, so a re-execution differs.
inline std::uint64_t g_broken_counter = 0;
struct BrokenLp {
  std::uint64_t state = 0;
  void on_init(EventContext& ctx) { ctx.send(ctx.self(), 1, kPing); }
  void on_event(const Event&, EventContext& ctx) {
    state += ++g_broken_counter;
    ctx.send(ctx.self(), 10, kPing);
  }
  bool operator==(const BrokenLp&) const = default;
};

// Deliberately broken reverse computation: on_reverse forgets to give back the random draws.
struct WrongReverseLp {
  RandomStream rng;
  std::uint64_t sum = 0;
  void on_init(EventContext& ctx) { ctx.send(ctx.self(), 1, kPing); }
  void on_event(const Event&, EventContext& ctx) {
    const std::uint64_t drawn = rng.below(100);
    ctx.keep_for_reverse(drawn);
    sum += drawn;
    ctx.send(ctx.self(), 10, kPing);
  }
  void on_reverse(const Event&, const ReverseContext& ctx) { sum -= ctx.kept(); }  // the stream stays ahead
  bool operator==(const WrongReverseLp&) const = default;
};

enum class Model { chatter, big_state, ties, phases };

struct ModelRun {
  Ledger::Summary summary;
  RunStats stats;
};

// Builds one of the test models on comm and runs it.
inline ModelRun run_model(Model model, const Communicator& comm, EngineConfig config, LpId lps = 24,
                          std::uint64_t seed = 7) {
  Ledger ledger;
  Simulation sim(comm, config);
  switch (model) {
    case Model::chatter:
      sim.add_lps<ChatterLp>({.name = "chatter"}, lps, [&](LpId id) {
        return ChatterLp{RandomStream(seed, id), lps, 0.4, 0, &ledger};
      });
      break;
    case Model::big_state:
      sim.add_lps<BigStateLp>({.name = "big-state", .checkpoint_interval = 8}, lps, [&](LpId id) {
        return BigStateLp{RandomStream(seed, id), lps, std::vector<std::int64_t>(2048, 0), &ledger};
      });
      break;
    case Model::ties:
      sim.add_lps<TieLp>({.name = "ties"}, lps, [&](LpId) { return TieLp{lps, 0, 0, &ledger}; });
      break;
    case Model::phases:
      sim.add_lps<PhaseLp>({.name = "phases"}, lps, [&](LpId id) {
        return PhaseLp{RandomStream(seed, id), lps, 0, &ledger};
      });
      break;
  }
  ModelRun run;
  run.stats = sim.run();
  run.summary = ledger.summary(comm);
  return run;
}

}  // namespace tracewarp::testing
