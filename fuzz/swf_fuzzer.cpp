// libFuzzer target for the SWF reader: any input either yields jobs that satisfy the reader's
// guarantees or an InputError; never a crash, a hang or a sanitizer report.
// Build and run: scripts/fuzz-swf.sh [seconds]
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "tracewarp/core/error.hpp"
#include "tracewarp/io/swf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/dev/shm/tracewarp-fuzz-" + std::to_string(getpid()) + ".swf";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    tracewarp::io::SwfReader reader(path, {});
    tracewarp::workload::Job job;
    std::uint64_t accepted = 0;
    while (reader.next(job)) {
      ++accepted;
      if (job.run <= 0 || job.procs == 0 || job.nodes == 0 || job.submit < 0 || job.requested <= 0) __builtin_trap();
      if (job.nodes > job.procs) __builtin_trap();
    }
    const auto& t = reader.tally();
    if (accepted + t.dropped_total() != t.records) __builtin_trap();  // every record is accounted for
  } catch (const tracewarp::InputError&) {
  }
  return 0;
}
