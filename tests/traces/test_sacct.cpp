// Slurm accounting records (sacct --parsable2) as a trace: jobs, not steps; states as SWF
// statuses; logged waits; names as numbers; every dropped record counted.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "../support/temp_file.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/traces/trace.hpp"

using namespace tracewarp;
using namespace tracewarp::traces;
using tracewarp::testing::TempFile;

namespace {
Time secs(std::int64_t s) { return from_seconds(s); }
// The hand-made edge cases, also the fuzz target's seed.
std::string sample() {
  std::ifstream in(std::string(TRACEWARP_SOURCE_DIR) + "/fuzz/corpus/sacct/jobs.txt");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string error_of(const std::string& content) {
  const TempFile f(content, ".txt");
  try {
    load_workload(f.path(), {});
  } catch (const InputError& e) {
    return std::string(e.what()).substr(f.path().size());
  }
  return "no error";
}
}  // namespace

TEST_CASE("sacct: finished jobs with their waits, requests and statuses; steps and unfinished jobs dropped",
          "[unit][io][sacct]") {
  const TempFile f(sample(), ".txt");
  const workload::Workload w = load_workload(f.path(), {});
  REQUIRE(w.header.at("Format") == "sacct");
  REQUIRE(w.header.at("Partitions") == "0=thin 1=fat");
  REQUIRE(w.header.at("Queues") == "0=normal 1=high");
  REQUIRE(w.header.at("CoresPerNode") == "32");
  REQUIRE(w.unix_start_time == 1767225600);  // 2026-01-01T00:00:00, the first submission
  REQUIRE(w.jobs.size() == 4);
  const auto& a = w.jobs[0];  // 100: 2 nodes, 64 CPUs, waited 10 s, ran 1 h of 2 h
  REQUIRE((a.id == 100 && a.submit == 0 && a.trace_wait == secs(10) && a.run == secs(3600)));
  REQUIRE((a.requested == secs(7200) && a.nodes == 2 && a.procs == 64 && a.status == 1));
  REQUIRE((a.user == 0 && a.group == 0 && a.partition == 0 && a.queue == 0));
  const auto& b = w.jobs[1];  // 101: TIMEOUT (killed: status 0), limit 1 day, in fat under QOS high
  REQUIRE((b.id == 101 && b.submit == secs(300) && b.trace_wait == secs(1800)));
  REQUIRE((b.run == secs(7200) && b.requested == secs(86400) && b.status == 0));
  REQUIRE((b.user == 1 && b.group == 1 && b.partition == 1 && b.queue == 1));
  const auto& c = w.jobs[2];  // array task 102_1 (JobIDRaw 103): FAILED, limit 30 minutes
  REQUIRE((c.id == 103 && c.trace_wait == secs(30) && c.requested == secs(1800) && c.status == 0));
  const auto& d = w.jobs[3];  // array task 102_2: cancelled after 30 s running, no limit
  REQUIRE((d.id == 104 && d.status == 5 && d.run == secs(30) && d.requested == d.run && d.requested_from_run));
  REQUIRE(w.tally.records == 9);
  REQUIRE(w.tally.dropped.at("job step (JobID with '.')") == 2);
  REQUIRE(w.tally.dropped.at("never started") == 2);  // cancelled while pending; a pending array
  REQUIRE(w.tally.dropped.at("not finished (State RUNNING)") == 1);
  REQUIRE(w.tally.repaired.at(workload::kRequestedFromRunTime) == 1);
}

TEST_CASE("sacct: time limits in every form Slurm prints", "[unit][io][sacct]") {
  const std::string head = "JobID|Submit|Start|End|Timelimit|NCPUS|State\n";
  const std::string times = "|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:01:00|";
  for (const auto& [limit, seconds] :
       std::vector<std::pair<std::string, std::int64_t>>{{"45", 45 * 60},
                                                         {"05:30", 330},
                                                         {"02:00:00", 7200},
                                                         {"2-00", 2 * 86400},
                                                         {"1-12:30", 86400 + 45000},
                                                         {"3-01:02:03", 3 * 86400 + 3723}}) {
    CAPTURE(limit);
    const TempFile f(head + "1" + times + limit + "|4|COMPLETED\n", ".txt");
    const workload::Workload w = load_workload(f.path(), {});
    REQUIRE(w.jobs.at(0).requested == secs(seconds));
    REQUIRE(w.jobs.at(0).nodes == 4);  // NCPUS alone: one CPU per node
  }
}

TEST_CASE("sacct: bad records name the file, line and field", "[unit][io][sacct]") {
  const std::string head = "JobID|Submit|Start|End|Timelimit|NNodes|State\n";
  REQUIRE(error_of(head + "1|2026-03-01 10:00:00|2026-03-01T10:00:00|2026-03-01T10:01:00|10|1|COMPLETED\n") ==
          ":2: field 'Submit': '2026-03-01 10:00:00': not a time (YYYY-MM-DDTHH:MM:SS)");
  REQUIRE(error_of(head + "1|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:01:00|1:x|1|COMPLETED\n") ==
          ":2: field 'Timelimit': '1:x': not a time limit ([days-]hours:minutes:seconds)");
  REQUIRE(error_of(head + "1|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:01:00|10|-3|COMPLETED\n") ==
          ":2: field 'NNodes': '-3': not a count");
  REQUIRE(error_of(head + "1|2026-03-01T10:00:00|2026-03-01T10:00:00\n") ==
          ":2: field 'field count': expected 7 '|'-separated fields, found 3");
  REQUIRE(error_of("JobID|Submit|Start|State\n") == ":1: field 'End': column missing from the header");
}
