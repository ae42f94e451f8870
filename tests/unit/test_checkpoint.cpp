// Saving state for checkpoints (core/persist.hpp) and the engine's checkpoints of one run.
#include <catch2/catch.hpp>

#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <variant>

#include "../support/checkpointing.hpp"
#include "tracewarp/core/files.hpp"
#include "tracewarp/core/persist.hpp"
#include "tracewarp/engine/simulation.hpp"
#include "tracewarp/model/phold/phold.hpp"

using namespace tracewarp;

namespace {

struct Plain {  // trivially copyable: saved as its bytes
  std::int32_t a;
  double b;
  bool operator==(const Plain&) const = default;
};

class Configured {  // a constructor argument that persist leaves out survives a load
 public:
  explicit Configured(int limit = 0) : limit_(limit) {}
  void add(int v) { values_.push_back(v); }
  bool operator==(const Configured&) const = default;
  TRACEWARP_PERSIST(values_)
  int limit() const { return limit_; }

 private:
  int limit_;
  std::vector<int> values_;
};

struct Everything {
  std::string text;
  std::vector<Plain> plains;
  std::deque<std::string> words;
  std::map<std::uint64_t, std::vector<int>> lists;
  std::multiset<std::uint32_t> sizes;
  std::unordered_map<int, double> scores;
  std::optional<Plain> maybe;
  std::variant<int, std::string, Configured> choice;
  std::pair<int, std::string> pair;
  std::array<double, 3> triple{};
  bool operator==(const Everything&) const = default;
  TRACEWARP_PERSIST(text, plains, words, lists, sizes, scores, maybe, choice, pair, triple)
};

template <class T>
T round_trip(const T& value, T into) {
  persist::Writer w;
  persist::save(w, value);
  persist::Reader r(w.data(), "test");
  persist::load(r, into);
  REQUIRE(r.done());
  return into;
}

}  // namespace

TEST_CASE("persist: every supported kind of member comes back equal", "[unit][checkpoint]") {
  Everything e;
  e.text = "tracewarp";
  e.plains = {{1, 2.5}, {-3, 1e300}};
  e.words = {"a", "", "ccc"};
  e.lists = {{7, {1, 2}}, {9, {}}};
  e.sizes = {4, 4, 1};
  e.scores = {{1, 0.5}, {-2, 3.0}};
  e.maybe = Plain{5, 6};
  Configured c(10);
  c.add(3);
  e.choice = c;
  e.pair = {42, "x"};
  e.triple = {1, 2, 3};
  // Loaded over an object holding other data: everything is replaced, nothing appended.
  Everything other;
  other.words = {"stale"};
  other.maybe = std::nullopt;
  other.choice = Configured(10);
  REQUIRE(round_trip(e, other) == e);
  e.maybe.reset();
  e.choice = std::string("alternative");
  REQUIRE(round_trip(e, Everything{}) == e);
}

TEST_CASE("persist: members left out keep what the constructor set", "[unit][checkpoint]") {
  Configured saved(7);
  saved.add(1);
  const Configured restored = round_trip(saved, Configured(7));
  REQUIRE(restored == saved);
  REQUIRE(restored.limit() == 7);
}

TEST_CASE("persist: truncated or damaged data is an error, never a huge allocation", "[unit][checkpoint]") {
  persist::Writer w;
  persist::save(w, std::vector<double>(100, 1.0));
  const std::string bytes = w.data();
  std::vector<double> v;
  persist::Reader truncated(std::string_view(bytes).substr(0, 50), "test data");
  REQUIRE_THROWS_WITH(persist::load(truncated, v), Catch::Contains("test data") && Catch::Contains("exceeds"));
  std::string huge = bytes;
  huge[7] = '\x7f';  // the count's top byte
  persist::Reader damaged(huge, "test data");
  REQUIRE_THROWS_AS(persist::load(damaged, v), InputError);
}

namespace {
// Counts its events but forgets to list the counter for checkpoints.
struct Forgetful {
  std::uint64_t seen = 0;
  void on_init(EventContext& ctx) { ctx.send(ctx.self(), 1, EventKind{1}); }
  void on_event(const Event&, EventContext& ctx) {
    ++seen;
    if (ctx.now() < 100000) ctx.send(ctx.self(), 1, EventKind{1});
  }
  bool operator==(const Forgetful&) const = default;
  TRACEWARP_PERSIST()
};
struct NotListed {  // no TRACEWARP_PERSIST at all
  void on_event(const Event&, EventContext&) {}
  bool operator==(const NotListed&) const = default;
};

std::string scratch_dir(const char* name) {
  const auto dir = testing::checkpoint_root() / ("tracewarp-test-" + std::string(name));
  std::filesystem::remove_all(dir);
  return dir.string();
}
}  // namespace

TEST_CASE("checkpoints: a member missing from an LP's persist list stops the run, naming the LP",
          "[unit][checkpoint]") {
  EngineConfig c;
  c.checkpoint_every_s = 1e-9;
  c.checkpoint_dir = scratch_dir("forgetful");
  Simulation sim(Communicator::self(), c);
  sim.add_lps<Forgetful>({.name = "forgetful"}, 1, [](LpId) { return Forgetful{}; });
  REQUIRE_THROWS_WITH(sim.run(), Catch::Contains("LP 0") && Catch::Contains("TRACEWARP_PERSIST"));
  std::filesystem::remove_all(c.checkpoint_dir);
}

TEST_CASE("checkpoints: an LP type without a persist list is refused before the run", "[unit][checkpoint]") {
  EngineConfig c;
  c.checkpoint_every_s = 10;
  c.checkpoint_dir = scratch_dir("unlisted");
  Simulation sim(Communicator::self(), c);
  sim.add_lps<NotListed>({.name = "unlisted"}, 1, [](LpId) { return NotListed{}; });
  REQUIRE_THROWS_AS(sim.run(), UsageError);
}

TEST_CASE("checkpoints: resuming from the newest one gives the uninterrupted result; a foreign one is refused",
          "[unit][checkpoint]") {
  phold::Params p;
  p.lps = 64;
  p.end = 40;
  p.context.seed = 5;
  const phold::Result whole = phold::run(Communicator::self(), p, EngineConfig{});
  EngineConfig c;
  c.checkpoint_every_s = 1e-9;  // at every opportunity
  c.checkpoint_dir = scratch_dir("phold");
  c.identity = "phold test";
  const phold::Result checkpointed = phold::run(Communicator::self(), p, c);
  REQUIRE(checkpointed.checksum == whole.checksum);  // checkpoints change nothing
  REQUIRE(checkpointed.stats.total.checkpoints > 5);
  const std::string latest = read_whole_file(c.checkpoint_dir + "/latest");
  c.checkpoint_every_s = 0;
  c.resume = true;
  const phold::Result resumed = phold::run(Communicator::self(), p, c);
  REQUIRE(resumed.checksum == whole.checksum);
  REQUIRE(resumed.committed == whole.committed);
  REQUIRE(resumed.stats.total.committed == whole.stats.total.committed);
  REQUIRE(latest.rfind("generation ", 0) == 0);
  c.identity = "another run";
  REQUIRE_THROWS_WITH(phold::run(Communicator::self(), p, c), Catch::Contains("belongs to another run"));
  std::filesystem::remove_all(c.checkpoint_dir);
}
