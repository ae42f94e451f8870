#include <catch2/catch.hpp>

#include <vector>

#include "tracewarp/core/double_ended_vector.hpp"
#include "tracewarp/core/persist.hpp"
#include "tracewarp/core/random.hpp"

using namespace tracewarp;

namespace {
void require_same(const DoubleEndedVector<int>& v, const std::vector<int>& model) {
  REQUIRE(v.size() == model.size());
  REQUIRE(std::vector<int>(v.begin(), v.end()) == model);
}
}  // namespace

TEST_CASE("double-ended vector: agrees with std::vector through inserts and erases anywhere", "[unit][core]") {
  DoubleEndedVector<int> v;
  std::vector<int> model;
  RandomStream rng(3, 1);
  for (int step = 0; step < 20000; ++step) {
    // Mostly near the ends, as running jobs by requested end change, and sometimes anywhere.
    const double where = rng.uniform();
    const std::size_t n = model.size();
    const std::size_t at = where < 0.4   ? rng.below(std::min<std::size_t>(n, 3) + 1)
                           : where < 0.8 ? n - rng.below(std::min<std::size_t>(n, 3) + 1)
                                         : rng.below(n + 1);
    if (n == 0 || rng.uniform() < 0.52) {
      v.insert(at, step);
      model.insert(model.begin() + static_cast<std::ptrdiff_t>(at), step);
    } else {
      const std::size_t victim = std::min(at, n - 1);
      v.erase(victim);
      model.erase(model.begin() + static_cast<std::ptrdiff_t>(victim));
    }
    if (step % 101 == 0) require_same(v, model);
  }
  require_same(v, model);
  const std::span<const int> seen = v;
  REQUIRE(std::vector<int>(seen.begin(), seen.end()) == model);
}

TEST_CASE("double-ended vector: a saved copy reads back equal, whatever room the original had", "[unit][core]") {
  DoubleEndedVector<int> v, empty;
  for (int i = 0; i < 50; ++i) v.insert(v.size(), i);
  for (int i = 0; i < 20; ++i) v.erase(0);  // room at the front
  persist::Writer w;
  persist::save(w, v);
  DoubleEndedVector<int> back;
  persist::Reader r(w.data(), "test");
  persist::load(r, back);
  REQUIRE(back == v);
  REQUIRE(back.size() == 30);
  REQUIRE(back.front() == 20);
  REQUIRE_FALSE(back == empty);
  back.insert(0, -1);  // the restored copy still grows at both ends
  back.insert(back.size(), 99);
  REQUIRE(back[0] == -1);
  REQUIRE(back[back.size() - 1] == 99);
}
