// The memory a run may use, as the automatic memory budget reads it.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include "tracewarp/core/memory.hpp"

using namespace tracewarp;

TEST_CASE("memory: the usable memory is the least of the machine's, the control group's and the ulimits",
          "[unit][memory]") {
#if defined(__SANITIZE_ADDRESS__)
  WARN("not under AddressSanitizer: its allocator cannot map memory under a lowered data limit");
  return;
#endif
  const std::uint64_t before = usable_memory_bytes();
  REQUIRE(before > 0);
  struct rlimit saved {};
  REQUIRE(::getrlimit(RLIMIT_DATA, &saved) == 0);
  const std::uint64_t limit = before / 3;  // below the machine's and any cgroup's, above what this test holds
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < limit) {
    WARN("the hard data limit is lower already: nothing to lower");
    return;
  }
  struct rlimit lowered = saved;
  lowered.rlim_cur = limit;
  REQUIRE(::setrlimit(RLIMIT_DATA, &lowered) == 0);
  const std::uint64_t under_ulimit = usable_memory_bytes();
  REQUIRE(::setrlimit(RLIMIT_DATA, &saved) == 0);
  CHECK(under_ulimit == limit);
  CHECK(usable_memory_bytes() == before);
}
