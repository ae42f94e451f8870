// Process memory figures read from the operating system.
#pragma once

#include <cstdint>

namespace tracewarp {

// Peak resident set size of this process (VmHWM), in bytes; 0 where unavailable.
std::uint64_t peak_rss_bytes();
// Physical memory of this machine (MemTotal), in bytes; 0 where unavailable.
std::uint64_t physical_memory_bytes();

}  // namespace tracewarp
