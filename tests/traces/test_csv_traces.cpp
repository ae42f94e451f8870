// The cluster-trace, ALCF and task-duration readers against small hand-written files.
#include <catch2/catch.hpp>

#include "../support/temp_file.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/traces/trace.hpp"

using namespace tracewarp;
using namespace tracewarp::traces;
using tracewarp::testing::TempFile;

namespace {
workload::Workload load(const TempFile& f, TraceFormat format = TraceFormat::automatic) {
  TraceOptions o;
  o.format = format;
  return load_workload(f.path(), o);
}
std::string error_of(const TempFile& f, TraceFormat format) {
  try {
    load(f, format);
  } catch (const InputError& e) {
    return std::string(e.what()).substr(f.path().size());
  }
  return "no error";
}
}  // namespace

TEST_CASE("alibaba 2017 batch_task: terminated tasks with demands become tasks", "[unit][io][csv]") {
  const TempFile f(
      "task_create_time,task_end_time,job_id,task_id,number_of_instances,status,"
      "number_of_cpus_requested_per_instance_in_the_task,normalized_memory_requested_per_instance_in_the_task\n"
      "100,160,3,4,15,Terminated,50,0.25\n"
      "90,100,3,5,1,Terminated,200,0.5\n"
      "100,160,4,7,3,Waiting,,\n"
      "-60,110,6,9,1,Terminated,50,0.1\n"
      "100,100,5,8,1,Terminated,50,0.1\n",
      "_batch_task.csv");
  const workload::Workload w = load(f);
  REQUIRE(w.header.at("Format") == "alibaba2017");
  REQUIRE(w.jobs.size() == 2);
  REQUIRE(w.jobs[0].id == 5);  // sorted by submit
  REQUIRE(w.jobs[0].cpus == Approx(2.0));
  REQUIRE(w.jobs[1].run == from_seconds(std::int64_t{60}));
  REQUIRE(w.jobs[1].procs == 15);
  REQUIRE(w.jobs[1].group == 3);
  REQUIRE(w.jobs[1].memory == Approx(0.25));
  REQUIRE(w.tally.records == 5);
  REQUIRE(w.tally.dropped ==
          std::map<std::string, std::uint64_t>{{"status not Terminated", 1},
                                               {"created before the trace window (negative time)", 1},
                                               {"run time <= 0", 1}});
  const TempFile bad("task_create_time,task_end_time,job_id,task_id,number_of_instances,status,c,m\n1,2,3\n",
                     "_batch_task.csv");
  REQUIRE(error_of(bad, TraceFormat::alibaba2017) ==
          ":2: field 'field count': expected 8 comma-separated fields, found 3");
}

TEST_CASE("alibaba 2018 batch_task and batch_instance", "[unit][io][csv]") {
  const TempFile tasks(
      "M1,10,j_1,1,Terminated,100,400,100,0.5\nM2,1,j_1,1,Failed,100,400,100,0.5\n"
      "R3_1,2,j_2,1,Terminated,50,x,100,1\n",
      "batch_task.csv");
  REQUIRE(error_of(tasks, TraceFormat::alibaba2018_task) == ":3: field 'end_time': 'x' is not a number");
  const TempFile good("M1,10,j_1,1,Terminated,100,400,250,0.5\n", "batch_task.csv");
  const workload::Workload t = load(good);
  REQUIRE(t.header.at("Format") == "alibaba2018-task");
  REQUIRE(t.jobs.size() == 1);
  REQUIRE(t.jobs[0].run == from_seconds(std::int64_t{300}));
  REQUIRE(t.jobs[0].cpus == Approx(2.5));
  REQUIRE(t.jobs[0].memory == Approx(0.005));
  const TempFile inst(
      "i_1,M1,j_1,1,Terminated,10,20,m_1,1,1,13.5,50,0.2,0.4\n"
      "i_2,M1,j_1,1,Running,10,0,m_1,1,1,,,,\n",
      "batch_instance.csv");
  const workload::Workload i = load(inst);
  REQUIRE(i.header.at("Format") == "alibaba2018-instance");
  REQUIRE(i.jobs.size() == 1);
  REQUIRE(i.jobs[0].cpus == Approx(0.5));
  REQUIRE(i.tally.dropped.at("status not Terminated") == 1);
}

TEST_CASE("google 2011 task_events: one task per finish, submit kept across resubmission", "[unit][io][csv]") {
  // time(us), missing, job, task, machine, event, user, class, priority, cpu, mem, disk, constraint
  const TempFile f(
      "1000000,,7,0,,0,alice,1,9,0.5,0.25,0,0\n"    // task 7/0 submitted at 1 s
      "2000000,,7,0,m1,1,alice,1,9,0.5,0.25,0,0\n"  // scheduled at 2 s
      "3000000,,7,0,m1,2,alice,1,9,0.5,0.25,0,0\n"  // evicted at 3 s
      "3500000,,7,0,,0,alice,1,9,0.5,0.25,0,0\n"    // resubmitted
      "4000000,,7,0,m2,1,alice,1,9,0.5,0.25,0,0\n"  // scheduled again at 4 s
      "9000000,,7,0,m2,4,alice,1,9,0.5,0.25,0,0\n"  // finished at 9 s: run 5 s, submit 1 s
      "1000000,,8,0,,0,bob,1,9,0.1,0.1,0,0\n"
      "2000000,,8,0,m1,1,bob,1,9,0.1,0.1,0,0\n"
      "2500000,,8,0,m1,5,bob,1,9,0.1,0.1,0,0\n"  // killed
      "1000000,,9,0,,0,bob,1,9,0.1,0.1,0,0\n",   // never finishes
      "_task_events.csv");
  const workload::Workload w = load(f);
  REQUIRE(w.header.at("Format") == "google2011");
  REQUIRE(w.jobs.size() == 1);
  REQUIRE(w.jobs[0].submit == from_seconds(std::int64_t{1}));
  REQUIRE(w.jobs[0].run == from_seconds(std::int64_t{5}));
  REQUIRE(w.jobs[0].cpus == Approx(0.5));
  REQUIRE(w.tally.dropped.at("killed") == 1);
  REQUIRE(w.tally.dropped.at("not finished within the trace") == 1);
  REQUIRE(w.tally.repaired.at("resubmitted after evict or fail: first submit kept") == 1);
  const TempFile bad("1000000,,7,0,,12,alice,1,9,0.5,0.25,0,0\n", "_task_events.csv");
  REQUIRE(error_of(bad, TraceFormat::automatic) == ":1: field 'event_type': unknown event type");
}

TEST_CASE("alcf csv: columns found by name, absolute times start at zero", "[unit][io][csv]") {
  const TempFile f(
      ",job,user,project,state,gpu_num,cpu_num,node_num,submit_time,wait_time,run_time,wall_time,node_hour,new_status\n"
      "0,11,u1,p,0,0,8192.0,512.0,1535348017.0,100,3600.0,7200.0,1.0,Pass\n"
      "1,12,u2,p,0,0,64.0,4.0,1535348000.0,5,0.0,600.0,1.0,Pass\n"
      "2,13,u1,p,0,0,64.0,4.0,1535348117.0,5,60.0,-1,1.0,Pass\n",
      "_data.csv");
  const workload::Workload w = load(f);
  REQUIRE(w.header.at("Format") == "alcf");
  REQUIRE(w.jobs.size() == 2);
  REQUIRE(w.jobs[0].submit == 0);
  REQUIRE(w.jobs[1].submit == from_seconds(std::int64_t{100}));
  REQUIRE(w.unix_start_time == 1535348017);
  REQUIRE(w.jobs[0].nodes == 512);
  REQUIRE(w.jobs[0].requested == from_seconds(std::int64_t{7200}));
  REQUIRE(w.jobs[1].requested_from_run);
  REQUIRE(w.tally.dropped.at("run time <= 0") == 1);
}

TEST_CASE("task durations: one job per line, task count checked", "[unit][io][csv]") {
  const TempFile f("10.0 3 2.0 1.0 2.0 3.0\n\n5 1 7.5 7.5\n", ".tr");
  const workload::Workload w = load(f);
  REQUIRE(w.header.at("Format") == "task-durations");
  REQUIRE(w.jobs.size() == 2);
  REQUIRE(w.jobs[0].submit == from_seconds(std::int64_t{5}));
  REQUIRE(w.jobs[1].procs == 3);
  REQUIRE(w.jobs[1].run == from_seconds(std::int64_t{3}));
  const TempFile bad("10.0 3 2.0 1.0 2.0\n", ".tr");
  REQUIRE(error_of(bad, TraceFormat::automatic) ==
          ":1: field 'field 2 (task count)': says 3.000000 tasks, the line has 2");
}

TEST_CASE("trace format: detected from name and first line, or refused clearly", "[unit][io]") {
  const TempFile unknown("a,b\n", ".csv");
  REQUIRE_THROWS_WITH(load(unknown), Catch::Contains("cannot tell the trace format"));
  REQUIRE_THROWS_AS(parse_trace_format("xml"), UsageError);
  REQUIRE(parse_trace_format("google2011") == TraceFormat::google2011);
}

TEST_CASE("csv traces: negative demands and times beyond the clock are errors naming the field (fuzz findings)",
          "[unit][io][csv]") {
  const std::string header =
      "task_create_time,task_end_time,job_id,task_id,number_of_instances,status,"
      "number_of_cpus_requested_per_instance_in_the_task,normalized_memory_requested_per_instance_in_the_task\n";
  const TempFile negative_cpus(header + "100,160,3,4,15,Terminated,-150,0.25\n", "_batch_task.csv");
  REQUIRE(error_of(negative_cpus, TraceFormat::alibaba2017) ==
          ":2: field 'number_of_cpus_requested_per_instance_in_the_task': '-150': demand negative or absurd");
  // 2.9e20 s would wrap the nanosecond clock into a negative run time.
  const TempFile far("i_1,M1,j_1,1,Terminated,10,292233720368547758070,m_1,1,1,13.5,50,0.2,0.4\n",
                     "batch_instance.csv");
  REQUIRE(error_of(far, TraceFormat::alibaba2018_instance) ==
          ":1: field 'end_time': '292233720368547758070': time beyond a century");
  const TempFile google("1000000,,7,0,,0,alice,1,9,0.5,-10.25,0,0\n", "_task_events.csv");
  REQUIRE(error_of(google, TraceFormat::google2011) ==
          ":1: field 'memory_request': '-10.25': demand negative or absurd");
  const TempFile durations("5 1 7.5 92233720368547758077.5\n", ".tr");
  REQUIRE_THROWS_WITH(load(durations), Catch::Contains("field 4") && Catch::Contains("beyond a century of seconds"));
}

TEST_CASE("csv traces: a run shorter than a nanosecond is dropped, not a job of run time 0 (fuzz finding)",
          "[unit][io][csv]") {
  const TempFile f(
      "1000000,,7,0,,0,alice,1,9,0.5,0.25,0,0\n"
      "2000000,,7,0,m1,1,alice,1,9,0.5,0.25,0,0\n"
      "2000000.0001,,7,0,m1,4,alice,1,9,0.5,0.25,0,0\n",
      "_task_events.csv");
  const workload::Workload w = load(f);
  REQUIRE(w.jobs.empty());
  REQUIRE(w.tally.dropped.at("run time <= 0") == 1);
  // A submit at the trace's "after the window" time (2^63-1 us) is not a job submitted in 292,000 years.
  const TempFile late(
      "9223372036854775807,,7,0,,0,alice,1,9,0.5,0.25,0,0\n"
      "9223372036854775807,,7,0,m1,1,alice,1,9,0.5,0.25,0,0\n"
      "9223372036854775807,,7,0,m1,4,alice,1,9,0.5,0.25,0,0\n",
      "_task_events.csv");
  const workload::Workload l = load(late);
  REQUIRE(l.jobs.empty());
  REQUIRE(l.tally.dropped.at("event after the trace window") == 2);
}
