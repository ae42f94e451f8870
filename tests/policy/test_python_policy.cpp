// Policies written in Python (batch.policy = "python", src/policy/batch/python_policy.cpp): the
// same contract as the C++ policies, the same decisions where they implement the same rule, and
// errors that name the user's file and line.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "../support/temp_file.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/policy/batch/registry.hpp"

using namespace tracewarp;
using namespace tracewarp::batch;
using testing::TempFile;

namespace {
const std::string kExamples = std::string(TRACEWARP_SOURCE_DIR) + "/examples/policies/";

BatchPolicy python_policy(const std::string& file) {
  return make_batch_policy("python", PolicySettings{}.set("python_policy", file));
}
PassDecision pass(BatchPolicy& p, Time now, std::uint32_t total, const std::vector<RunningJob>& running,
                  const std::vector<QueuedJob>& queue) {
  std::uint32_t used = 0;
  for (const RunningJob& r : running) used += r.nodes;
  return p.pass({now, queue, running, total, total - used});
}
bool same(const PassDecision& a, const PassDecision& b) {
  if (a.start_now != b.start_now || a.reservations.size() != b.reservations.size()) return false;
  for (std::size_t i = 0; i < a.reservations.size(); ++i)
    if (a.reservations[i].id != b.reservations[i].id || a.reservations[i].start != b.reservations[i].start)
      return false;
  return true;
}
}  // namespace

TEST_CASE("python policy: the example SJF and EASY in Python decide as their C++ twins", "[unit][policy]") {
  const std::vector<RunningJob> running{{9, 6, -50, 100}, {8, 1, -10, 40}};
  const std::vector<std::vector<QueuedJob>> queues{
      {{1, 8, 500, 0}, {2, 3, 300, 1}, {3, 2, 50, 2}, {4, 1, 200, 3}},
      {{1, 2, 1000, 0}, {2, 3, 10, 1}, {3, 9, 20, 2}, {4, 1, 5, 3}, {5, 1, 70, 4}},
      {{1, 11, 10, 0}, {2, 1, 10, 1}},
      {}};
  for (const auto& [cpp, file] : {std::pair<const char*, const char*>{"sjf", "sjf_backfill.py"},
                                  std::pair<const char*, const char*>{"easy", "easy_backfill.py"}}) {
    BatchPolicy reference = make_batch_policy(cpp);
    BatchPolicy python = python_policy(kExamples + file);
    for (const std::vector<QueuedJob>& queue : queues) {
      CAPTURE(cpp, queue.size());
      REQUIRE(same(pass(python, 0, 12, running, queue), pass(reference, 0, 12, running, queue)));
    }
  }
}

TEST_CASE("python policy: its attributes are its state, copied, compared, saved and restored", "[unit][policy]") {
  const TempFile file(R"(
class Policy:
    def __init__(self):
        self.passes = 0
        self.seen = set()
    def schedule(self, view):
        self.passes += 1
        self.seen.update(job.id for job in view.queue)
        return [job.id for job in view.queue if job.nodes <= view.free_nodes][:1]
)",
                      ".py");
  BatchPolicy a = python_policy(file.path());
  BatchPolicy b = a;  // a deep copy: b's passes are its own
  REQUIRE(a == b);
  REQUIRE(pass(a, 0, 4, {}, {{1, 2, 10, 0}, {2, 8, 10, 0}}).start_now == std::vector<JobId>{1});
  REQUIRE_FALSE(a == b);
  pass(b, 0, 4, {}, {{1, 2, 10, 0}, {2, 8, 10, 0}});
  REQUIRE(a == b);

  persist::Writer w;
  persist::save(w, a);
  BatchPolicy restored = python_policy(file.path());
  REQUIRE_FALSE(restored == a);
  persist::Reader r(w.data(), "test");
  persist::load(r, restored);
  REQUIRE(restored == a);
}

TEST_CASE("python policy: an error in the file names the file and line, exit code 2", "[unit][policy]") {
  const TempFile syntax("class Policy:\n    def schedule(self, view)\n        return []\n", ".py");
  REQUIRE_THROWS_WITH(python_policy(syntax.path()), Catch::StartsWith(syntax.path() + ":2: loading the policy: "
                                                                                      "SyntaxError"));
  const TempFile no_class("class Scheduler:\n    pass\n", ".py");
  REQUIRE_THROWS_WITH(python_policy(no_class.path()), Catch::Contains("defines no class Policy"));
  REQUIRE_THROWS_WITH(python_policy("/no/such/policy.py"), Catch::Contains("no such file: /no/such/policy.py"));
  REQUIRE_THROWS_WITH(make_batch_policy("python"), Catch::Contains("needs batch.python_policy"));

  const TempFile raises(R"(
class Policy:
    def schedule(self, view):
        return [1 // (view.free_nodes - view.free_nodes)]
)",
                        ".py");
  BatchPolicy p = python_policy(raises.path());
  try {
    pass(p, 7, 4, {}, {{1, 2, 10, 0}});
    FAIL("no error");
  } catch (const Error& e) {
    REQUIRE(e.exit_code() == 2);
    REQUIRE_THAT(e.what(), Catch::StartsWith(raises.path() + ":4: schedule() at t = 7: ZeroDivisionError"));
  }
  const TempFile bad_answer("class Policy:\n    def schedule(self, view):\n        return 'job 1'\n", ".py");
  BatchPolicy q = python_policy(bad_answer.path());
  REQUIRE_THROWS_WITH(pass(q, 0, 4, {}, {{1, 2, 10, 0}}), Catch::Contains("returned neither a list of job ids"));
  const TempFile stranger("class Policy:\n    def schedule(self, view):\n        return [99]\n", ".py");
  BatchPolicy r = python_policy(stranger.path());
  REQUIRE_THROWS_WITH(pass(r, 0, 4, {}, {{1, 2, 10, 0}}), Catch::Contains("started job 99, which is not a queued job"));
  const TempFile twice("class Policy:\n    def schedule(self, view):\n        return [1, 1]\n", ".py");
  BatchPolicy t = python_policy(twice.path());
  REQUIRE_THROWS_WITH(pass(t, 0, 4, {}, {{1, 2, 10, 0}}), Catch::Contains("started job 1 twice"));
}
