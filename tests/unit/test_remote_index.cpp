#include <catch2/catch.hpp>

#include <map>

#include "engine/remote_index.hpp"
#include "tracewarp/core/random.hpp"

using namespace tracewarp;

TEST_CASE("remote index: agrees with std::map through random inserts and erases", "[unit][engine]") {
  detail::RemoteIndex index;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint32_t> model;
  RandomStream rng(5, 5);
  std::vector<EventKey> live;
  for (std::uint32_t step = 0; step < 200000; ++step) {
    if (live.empty() || rng.uniform() < 0.55) {
      // few senders, so that probe runs collide and wrap
      const EventKey key = EventKey::make(0, 1, rng.below(50), step);
      index.insert(key, step);
      model[{key.kind_sender, key.seq}] = step;
      live.push_back(key);
    } else {
      const std::size_t at = rng.below(live.size());
      index.erase(live[at]);
      model.erase({live[at].kind_sender, live[at].seq});
      live[at] = live.back();
      live.pop_back();
    }
    if (step % 97 == 0 && !live.empty()) {
      const EventKey& probe = live[rng.below(live.size())];
      REQUIRE(index.find(probe) == model.at({probe.kind_sender, probe.seq}));
    }
  }
  REQUIRE(index.size() == model.size());
  for (const auto& [id, slot] : model) REQUIRE(index.find(EventKey{0, id.first, id.second}) == slot);
  REQUIRE(index.find(EventKey::make(0, 1, 999, 0)) == detail::RemoteIndex::kAbsent);
}

TEST_CASE("remote index: shrinks after a burst and still finds every entry", "[unit][engine]") {
  detail::RemoteIndex index;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint32_t> model;
  std::vector<EventKey> live;
  RandomStream rng(7, 7);
  std::uint32_t next_seq = 0;
  const auto insert_one = [&] {
    const EventKey key = EventKey::make(0, 2, rng.below(1000), next_seq);
    index.insert(key, next_seq++);
    model[{key.kind_sender, key.seq}] = key.seq;
    live.push_back(key);
  };
  const auto erase_one = [&] {
    const std::size_t at = rng.below(live.size());
    index.erase(live[at]);
    model.erase({live[at].kind_sender, live[at].seq});
    live[at] = live.back();
    live.pop_back();
  };
  const auto agrees = [&] {
    REQUIRE(index.size() == model.size());
    for (const auto& [id, slot] : model) REQUIRE(index.find(EventKey{0, id.first, id.second}) == slot);
  };

  // A burst of 50,000, then a steady state of about 500 (the replication model's pattern).
  for (int burst = 0; burst < 2; ++burst) {
    while (live.size() < 50000) insert_one();
    REQUIRE(index.capacity() >= 65536);
    agrees();
    while (live.size() > 500) erase_one();
    for (int step = 0; step < 20000; ++step) rng.uniform() < 0.5 ? insert_one() : erase_one();
    agrees();
    REQUIRE(index.capacity() <= 8 * std::max<std::size_t>(live.size(), 1) * 2);
  }
  while (!live.empty()) erase_one();
  REQUIRE(index.capacity() == detail::RemoteIndex::kMinSlots);
  REQUIRE(index.find(EventKey::make(0, 2, 1, 0)) == detail::RemoteIndex::kAbsent);
}
