#include <catch2/catch.hpp>

#include <deque>
#include <vector>

#include "engine/output_log.hpp"
#include "tracewarp/core/random.hpp"

using namespace tracewarp;
using detail::OutputLog;

namespace {

// What an event's rows encode to, written the way the sequential kernel buffers them.
struct Expected {
  OutputLog::Span span;
  std::vector<std::byte> bytes;
};

Expected run_event(OutputLog& log, RandomStream& rng, std::uint32_t rows, std::uint32_t most_row_bytes) {
  Expected e;
  log.open();
  for (std::uint32_t r = 0; r < rows; ++r) {
    std::vector<std::byte> row(rng.below(most_row_bytes + 1));
    for (std::byte& b : row) b = static_cast<std::byte>(rng.below(256));
    const auto tag = static_cast<RecordTag>(1 + rng.below(5));
    log.append(tag, row.data(), static_cast<std::uint32_t>(row.size()));
    CommitContext::append(e.bytes, tag, row.data(), static_cast<std::uint32_t>(row.size()));
  }
  e.span = log.close();
  return e;
}

bool holds(const OutputLog& log, const Expected& e) {
  const std::span<const std::byte> seen = log.view(e.span);
  return std::ranges::equal(seen, e.bytes);
}

}  // namespace

TEST_CASE("output log: every event's rows read back intact while others are released in any order", "[unit][engine]") {
  OutputLog log;
  RandomStream rng(7, 7);
  std::deque<Expected> live;
  for (int step = 0; step < 40000; ++step) {
    // Mostly small events, some with no rows, a few larger than a chunk (moved whole).
    const bool huge = rng.below(2000) == 0;
    const std::uint32_t rows = huge ? 40 : rng.below(4);
    live.push_back(run_event(log, rng, rows, huge ? 16384 : 96));
    REQUIRE(holds(log, live.back()));
    // Release mostly the oldest (commit order), sometimes the newest (a rollback), sometimes any.
    while (live.size() > 300 || (!live.empty() && rng.below(3) == 0)) {
      const std::uint32_t pick = rng.below(10);
      const std::size_t at = pick < 7 ? 0 : pick < 9 ? live.size() - 1 : rng.below(live.size());
      REQUIRE(holds(log, live[at]));
      log.release(live[at].span);
      CHECK(live[at].span.size == 0);  // released twice is harmless
      log.release(live[at].span);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
    }
  }
  for (const Expected& e : live) REQUIRE(holds(log, e));
  // Chunks are reused: the log holds a few chunks, not one per chunk's worth of rows written.
  CHECK(log.bytes() <= 8 * OutputLog::kChunkBytes + 2 * 40 * (16384 + 8));
}

TEST_CASE("output log: an event with no rows holds no chunk", "[unit][engine]") {
  OutputLog log;
  log.open();
  const OutputLog::Span empty = log.close();
  CHECK(empty.size == 0);
  CHECK(log.view(empty).empty());
}
