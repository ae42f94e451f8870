#include "tracewarp/core/memory.hpp"

#include <fstream>
#include <string>

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

}  // namespace tracewarp
