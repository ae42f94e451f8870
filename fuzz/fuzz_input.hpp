// What every fuzz target shares: the input's bytes as a file (the readers take paths), one per
// process in /dev/shm, and the rule that an input may only ever end in tracewarp's exit-2 errors.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tracewarp::fuzz {

// Writes the input to a file whose name ends in `suffix` (formats are told by name) and returns
// the path; the same path is reused for every input of the process.
inline const std::string& input_file(const std::uint8_t* data, std::size_t size, const std::string& suffix) {
  static const std::string path = "/dev/shm/tracewarp-fuzz-" + std::to_string(getpid()) + suffix;
  static const bool removed_at_exit = [] { return std::atexit([] { std::remove(path.c_str()); }) == 0; }();
  (void)removed_at_exit;
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

// A broken guarantee: stop with a crash the fuzzer records (never an exception it would miss).
[[noreturn]] inline void violated(const char* what) {
  std::fprintf(stderr, "fuzz: guarantee violated: %s\n", what);
  __builtin_trap();
}

}  // namespace tracewarp::fuzz
