// The SWF reader: any input either yields jobs that satisfy the reader's guarantees or an
// InputError; never a crash, a hang or a sanitizer report. (fuzz/CMakeLists.txt builds it.)
#include "fuzz_input.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/traces/swf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tracewarp::fuzz::violated;
  const std::string& path = tracewarp::fuzz::input_file(data, size, ".swf");
  try {
    tracewarp::traces::SwfReader reader(path, {});
    tracewarp::workload::Job job;
    std::uint64_t accepted = 0;
    while (reader.next(job)) {
      ++accepted;
      if (job.run <= 0 || job.procs == 0 || job.nodes == 0 || job.submit < 0 || job.requested <= 0)
        violated("an accepted job has a non-positive size or time");
      if (job.nodes > job.procs) violated("more nodes than processors");
    }
    const auto& t = reader.tally();
    if (accepted + t.dropped_total() != t.records) violated("a record is neither accepted nor counted as dropped");
  } catch (const tracewarp::Error& e) {  // bad input must be an exit-2 error, never a "run failure"
    if (e.exit_code() != 2) violated(e.what());
  }
  return 0;
}
