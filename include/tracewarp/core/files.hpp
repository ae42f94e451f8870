// Small file helpers shared by everything that must survive a kill (journal, checkpoints).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tracewarp {

// Writes `bytes` to `path` so that a kill at any moment leaves the old file or the new one
// (temporary file, fsync, rename). IoError on failure.
void write_atomically(const std::string& path, std::string_view bytes);

// The whole file; InputError if it cannot be opened.
std::string read_whole_file(const std::string& path);

// FNV-1a, 64 bits: a digest to recognise damaged or foreign data (not a cryptographic hash).
inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = 1469598103934665603ull) {
  for (const unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace tracewarp
