// The engine on one rank: every mode, the rollback check, and the failure modes.
#include <catch2/catch.hpp>

#include "../support/test_models.hpp"
#include "tracewarp/model/phold/phold.hpp"

using namespace tracewarp;
using namespace tracewarp::testing;

namespace {
EngineConfig config(SyncMode sync, Time end = 20000) {
  EngineConfig c;
  c.sync = sync;
  c.end_time = end;
  c.gvt_interval = 64;  // frequent GVT rounds exercise fossil collection
  return c;
}
}  // namespace

TEST_CASE("engine: every test model passes the rollback check", "[unit][engine][rollback-check]") {
  const Communicator self = Communicator::self();
  for (const Model model : {Model::chatter, Model::big_state, Model::ties, Model::phases}) {
    CAPTURE(static_cast<int>(model));
    const ModelRun reference = run_model(model, self, config(SyncMode::sequential));
    const ModelRun checked = run_model(model, self, config(SyncMode::rollback_check));
    REQUIRE(reference.summary.events > 0);
    REQUIRE(checked.summary == reference.summary);
    // Every event was undone once and redone.
    REQUIRE(checked.stats.total.rolled_back == checked.stats.total.committed);
  }
}

TEST_CASE("engine: the rollback check catches a handler that reads a global", "[unit][engine][rollback-check]") {
  EngineConfig c = config(SyncMode::rollback_check, 1000);
  Simulation sim(Communicator::self(), c);
  sim.add_lps<BrokenLp>({.name = "broken"}, 2, [](LpId) { return BrokenLp{}; });
  REQUIRE_THROWS_WITH(sim.run(), Catch::Contains("rollback check failed") && Catch::Contains("different LP state"));
}

TEST_CASE("engine: the rollback check passes PHOLD", "[unit][engine][rollback-check][phold]") {
  phold::Params p;
  p.lps = 64;
  p.end = 20;
  EngineConfig seq;
  EngineConfig check;
  check.sync = SyncMode::rollback_check;
  const phold::Result a = phold::run(Communicator::self(), p, seq);
  const phold::Result b = phold::run(Communicator::self(), p, check);
  REQUIRE(a.committed > 10000);
  REQUIRE(a.committed == b.committed);
  REQUIRE(a.checksum == b.checksum);
}

TEST_CASE("engine: reverse computation passes the rollback check where exact and fails it where not",
          "[unit][engine][rollback-check][reverse]") {
  phold::Params p;
  p.lps = 64;
  p.end = 20;
  p.remote = 0.5;
  EngineConfig check;
  check.sync = SyncMode::rollback_check;
  p.reverse = false;
  const phold::Result copies = phold::run(Communicator::self(), p, check);
  p.reverse = true;
  const phold::Result reversed = phold::run(Communicator::self(), p, check);
  REQUIRE(copies.committed > 10000);
  REQUIRE(reversed.committed == copies.committed);
  REQUIRE(reversed.checksum == copies.checksum);
  REQUIRE(reversed.stats.total.rolled_back == reversed.committed);  // every event undone by on_reverse

  Simulation sim(Communicator::self(), config(SyncMode::rollback_check, 1000));
  sim.add_lps<WrongReverseLp>({.name = "wrong-reverse", .reverse = true}, 2,
                              [](LpId id) { return WrongReverseLp{RandomStream(3, id)}; });
  REQUIRE_THROWS_WITH(sim.run(), Catch::Contains("rollback check failed") &&
                                     Catch::Contains("did not bring back the state before the event"));
  // Without reverse computation the same type is undone by copies and passes.
  Simulation copied(Communicator::self(), config(SyncMode::rollback_check, 1000));
  copied.add_lps<WrongReverseLp>({.name = "copied"}, 2, [](LpId id) { return WrongReverseLp{RandomStream(3, id)}; });
  REQUIRE_NOTHROW(copied.run());
}

TEST_CASE("engine: an LP type asking for reverse computation must define on_reverse", "[unit][engine][reverse]") {
  Simulation sim(Communicator::self(), config(SyncMode::optimistic, 1000));
  sim.add_lps<BrokenLp>({.name = "no-reverse", .reverse = true}, 2, [](LpId) { return BrokenLp{}; });
  REQUIRE_THROWS_WITH(sim.run(), Catch::Contains("defines no on_reverse"));
}

TEST_CASE("engine: commit handlers see each committed event once, in key order", "[unit][engine][commit]") {
  const Communicator self = Communicator::self();
  for (const Model model : {Model::chatter, Model::big_state, Model::ties, Model::phases}) {
    const ModelRun seq = run_model(model, self, config(SyncMode::sequential));
    const ModelRun opt = run_model(model, self, config(SyncMode::optimistic));
    REQUIRE(seq.summary.out_of_order == 0);
    REQUIRE(opt.summary == seq.summary);
    REQUIRE(opt.stats.total.committed == seq.stats.total.committed);
  }
}

TEST_CASE("engine: a run that exceeds its memory budget stops with a clear error", "[unit][engine][memory]") {
  phold::Params p;
  p.lps = 1024;  // 16,384 pending events at start: about 2 MiB
  p.end = 10;
  for (const SyncMode mode : {SyncMode::sequential, SyncMode::optimistic}) {
    EngineConfig c;
    c.sync = mode;
    c.memory_budget_bytes = 1 << 20;
    REQUIRE_THROWS_MATCHES(phold::run(Communicator::self(), p, c), MemoryBudgetError,
                           Catch::Matchers::Predicate<MemoryBudgetError>([](const MemoryBudgetError& e) {
                             return std::string(e.what()).find("memory budget exhausted on rank 0") == 0 &&
                                    e.exit_code() == 1;
                           }));
  }
}

TEST_CASE("engine: a bounded optimism window gives the same result", "[unit][engine]") {
  EngineConfig c = config(SyncMode::optimistic);
  c.optimism_window = 300;
  const ModelRun windowed = run_model(Model::chatter, Communicator::self(), c);
  const ModelRun reference = run_model(Model::chatter, Communicator::self(), config(SyncMode::sequential));
  REQUIRE(windowed.summary == reference.summary);
}

namespace {
struct ZeroDelayLp {
  void on_init(EventContext& ctx) { ctx.send(ctx.self(), 0, kPing); }  // allowed at init
  void on_event(const Event&, EventContext& ctx) { ctx.send(ctx.self(), 0, kPing); }
  bool operator==(const ZeroDelayLp&) const = default;
};
struct EmitAtInitLp {
  void on_init(EventContext& ctx) { ctx.emit(1, 42); }
  void on_event(const Event&, EventContext&) {}
  bool operator==(const EmitAtInitLp&) const = default;
};
}  // namespace

TEST_CASE("engine: misuse of the LP API is reported, not silently accepted", "[unit][engine]") {
  for (const SyncMode mode : {SyncMode::sequential, SyncMode::optimistic}) {
    Simulation zero(Communicator::self(), config(mode));
    zero.add_lps<ZeroDelayLp>({.name = "zero"}, 1, [](LpId) { return ZeroDelayLp{}; });
    REQUIRE_THROWS_WITH(zero.run(), Catch::Contains("with delay 0 a kind above 3"));

    Simulation emit(Communicator::self(), config(mode));
    emit.add_lps<EmitAtInitLp>({.name = "emit"}, 1, [](LpId) { return EmitAtInitLp{}; });
    REQUIRE_THROWS_WITH(emit.run(), Catch::Contains("emitted output from on_init"));
  }
}
