#include "tracewarp/core/memory.hpp"

#include <cstdint>
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
std::uint64_t physical_memory_bytes() { return read_kib_field("/proc/meminfo", "MemTotal:"); }

void offer_huge_pages([[maybe_unused]] void* at, [[maybe_unused]] std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  const auto start = reinterpret_cast<std::uintptr_t>(at);
  const std::uintptr_t first = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::uintptr_t last = (start + bytes) / kHugePageBytes * kHugePageBytes;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

}  // namespace tracewarp
