#include <catch2/catch.hpp>

#include <limits>
#include <set>

#include "engine/event_queue.hpp"
#include "tracewarp/core/random.hpp"

using namespace tracewarp;

namespace {

// Drives the ladder queue and a std::set of full keys side by side; every pop must agree.
class QueueUnderTest {
 public:
  void push(Time time) {
    const std::uint32_t slot = pool_.alloc();
    pool_[slot].key = EventKey::make(time, static_cast<EventKind>(seq_ % 3), seq_ % 7, seq_);
    ++seq_;
    queue_.push(time, slot, 0);
    reference_.insert({pool_[slot].key, slot});
  }
  // Pops the top, checks it against the reference and returns its time.
  Time pop() {
    REQUIRE_FALSE(queue_.empty());
    const auto expected = reference_.begin();
    const std::uint32_t slot = queue_.top().slot;
    REQUIRE(pool_[slot].key == expected->first);
    queue_.pop();
    reference_.erase(expected);
    pool_.free(slot);
    REQUIRE(queue_.size() == reference_.size());
    return pool_[slot].key.time;
  }
  bool empty() { return queue_.empty(); }
  std::size_t size() const { return queue_.size(); }

 private:
  detail::EventPool pool_;
  detail::EventQueue queue_{pool_};
  std::set<std::pair<EventKey, std::uint32_t>> reference_;
  std::uint64_t seq_ = 0;
};

}  // namespace

TEST_CASE("event queue: pops in full key order like one sorted list", "[unit][engine]") {
  RandomStream rng(11, 3);
  QueueUnderTest q;

  SECTION("a PHOLD-like hold: each pop schedules one event a random delay later") {
    for (int i = 0; i < 20000; ++i) q.push(static_cast<Time>(rng.below(1'000'000)));
    Time now = 0;
    for (int i = 0; i < 200000; ++i) {
      now = q.pop();
      q.push(now + 1000 + static_cast<Time>(rng.below(500'000)));
    }
    while (!q.empty()) q.pop();
  }
  SECTION("fewer pushes into the rungs than the stage holds, then drained") {
    for (int i = 0; i < 20000; ++i) q.push(static_cast<Time>(rng.below(1'000'000)));
    const Time now = q.pop();  // lays the ladder out; later pushes go into its rungs
    for (int i = 0; i < 3; ++i) q.push(now + 500'000 + static_cast<Time>(rng.below(400'000)));
    while (!q.empty()) q.pop();
  }
  SECTION("many simultaneous events, ties broken by the rest of the key") {
    for (int i = 0; i < 5000; ++i) q.push(42);
    for (int i = 0; i < 5000; ++i) q.push(static_cast<Time>(rng.below(3)) * 1'000'000);
    while (!q.empty()) q.pop();
  }
  SECTION("rollbacks push events before the last popped one") {
    for (int i = 0; i < 20000; ++i) q.push(static_cast<Time>(rng.below(10'000'000)));
    for (int round = 0; round < 200; ++round) {
      Time now = 0;
      for (int i = 0; i < 50; ++i) now = q.pop();
      for (int i = 0; i < 40; ++i) q.push(now - static_cast<Time>(rng.below(100'000)));
      for (int i = 0; i < 20; ++i) q.push(now + static_cast<Time>(rng.below(5'000'000)));
    }
    while (!q.empty()) q.pop();
  }
  SECTION("far-future and extreme times beside near ones") {
    const Time max = std::numeric_limits<Time>::max();
    for (int i = 0; i < 3000; ++i) {
      q.push(static_cast<Time>(rng.below(1000)));
      q.push(max - static_cast<Time>(rng.below(1000)));
      q.push(static_cast<Time>(rng.below(1u << 30)) << 30);
    }
    q.push(max);
    q.push(0);
    for (int i = 0; i < 4000; ++i) {
      const Time now = q.pop();
      if (now < max / 2) q.push(now + static_cast<Time>(rng.below(1u << 20)));
    }
    while (!q.empty()) q.pop();
  }
  SECTION("emptied and refilled repeatedly") {
    for (int round = 0; round < 50; ++round) {
      const int n = 1 + static_cast<int>(rng.below(3000));
      for (int i = 0; i < n; ++i) q.push(static_cast<Time>(round) * 1000 + static_cast<Time>(rng.below(5000)));
      const int keep = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
      while (q.size() > static_cast<std::size_t>(keep)) q.pop();
    }
    while (!q.empty()) q.pop();
  }
  REQUIRE(q.size() == 0);
}
