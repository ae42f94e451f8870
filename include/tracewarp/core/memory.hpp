// Process memory figures read from the operating system.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tracewarp {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Offers the whole 2 MiB pages inside [at, at + bytes) to the kernel for transparent huge pages
// (madvise), which Debian's kernels give only on request. A hint for large buffers written
// before they are read: on a KVM guest their page faults were a third of the cost of filling
// them (docs/performance.md). Failure, or a system without it, changes nothing.
void offer_huge_pages(void* at, std::size_t bytes);

// Room for n elements, offered for huge pages before anything is written there.
template <class T>
void reserve_huge(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
  offer_huge_pages(v.data(), v.capacity() * sizeof(T));
}

// Peak resident set size of this process (VmHWM), in bytes; 0 where unavailable.
std::uint64_t peak_rss_bytes();
// The memory this process may use, in bytes: the least of the machine's (MemTotal), its control
// group's limit (cgroup v2 memory.max, or v1 memory.limit_in_bytes: a Slurm job's allocation, a
// container's) and its address-space and data limits (ulimit -v, -d); 0 where none is known.
std::uint64_t usable_memory_bytes();

}  // namespace tracewarp
