#include "tracewarp/core/memory.hpp"

#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

namespace tracewarp {
namespace {

// Reads a "Name:   value kB" line from a /proc file.
std::uint64_t read_kib_field(const char* path, const std::string& name) {
  std::ifstream in(path);
  std::string key;
  while (in >> key) {
    if (key == name) {
      std::uint64_t kib = 0;
      in >> kib;
      return kib * 1024;
    }
    in.ignore(4096, '\n');
  }
  return 0;
}

}  // namespace

std::uint64_t peak_rss_bytes() { return read_kib_field("/proc/self/status", "VmHWM:"); }
// A number of bytes in a file ("max" or anything else: none).
std::uint64_t read_limit_file(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::strtoull(text.c_str(), nullptr, 10);
}

// This process's control group's memory limit (0: none found).
std::uint64_t cgroup_memory_limit() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) {  // cgroup v2: the limit of this group, or of the nearest parent
      for (std::string dir = line.substr(3); !dir.empty();) {
        const std::uint64_t limit = read_limit_file("/sys/fs/cgroup" + (dir == "/" ? "" : dir) + "/memory.max");
        if (limit > 0) return limit;
        if (dir == "/") break;
        const auto slash = dir.find_last_of('/');
        dir = slash == 0 ? "/" : dir.substr(0, slash);
      }
    }
  }
  // cgroup v1 (its "no limit" is a huge number, which the machine's memory then undercuts).
  return read_limit_file("/sys/fs/cgroup/memory/memory.limit_in_bytes");
}

std::uint64_t usable_memory_bytes() {
  std::uint64_t usable = read_kib_field("/proc/meminfo", "MemTotal:");
  const auto lower = [&usable](std::uint64_t limit) {
    if (limit > 0 && (usable == 0 || limit < usable)) usable = limit;
  };
  lower(cgroup_memory_limit());
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit r {};
    if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY) lower(static_cast<std::uint64_t>(r.rlim_cur));
  }
  return usable;
}

void offer_huge_pages([[maybe_unused]] void* at, [[maybe_unused]] std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  const auto start = reinterpret_cast<std::uintptr_t>(at);
  const std::uintptr_t first = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::uintptr_t last = (start + bytes) / kHugePageBytes * kHugePageBytes;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

}  // namespace tracewarp
