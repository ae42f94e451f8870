// One CSV-family trace reader (TRACEWARP_FUZZ_FORMAT: alibaba2017, alibaba2018-task,
// alibaba2018-instance, google2011, alcf, task-durations), read whole as a run loads it: any
// input gives tasks with sane fields or an InputError; never a crash, a hang, a sanitizer report
// or another exception. (fuzz/CMakeLists.txt builds one target per format.)
#include <cmath>

#include "fuzz_input.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/traces/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tracewarp::fuzz::violated;
  static const tracewarp::traces::TraceFormat format = tracewarp::traces::parse_trace_format(TRACEWARP_FUZZ_FORMAT);
  const std::string& path = tracewarp::fuzz::input_file(data, size, ".csv");
  try {
    const tracewarp::workload::Workload w = tracewarp::traces::load_workload(path, {format, {}});
    for (const tracewarp::workload::Job& job : w.jobs) {
      if (job.run <= 0 || job.submit < 0) violated("a task with a non-positive run time or a negative submit");
      if (job.requested < job.run && job.requested_from_run) violated("a requested time below its run time");
      if (!std::isfinite(job.cpus) || !std::isfinite(job.memory) || job.cpus < 0 || job.memory < 0)
        violated("a demand that is negative or not a number");
    }
    if (w.jobs.size() + w.tally.dropped_total() > w.tally.records) violated("more tasks than records");
  } catch (const tracewarp::Error& e) {  // bad input must be an exit-2 error, never a "run failure"
    if (e.exit_code() != 2) violated(e.what());
  }
  return 0;
}
