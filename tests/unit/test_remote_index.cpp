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
