// A batch policy written in Python, run by an embedded interpreter, with no rebuild:
//
//   [batch]
//   policy = "python"
//   python_policy = "examples/policies/sjf_backfill.py"   # a file defining class Policy
//
// The contract is the C++ one (scheduling.hpp), read from Python: tracewarp makes one instance
// of the class (no arguments) per scheduler and calls `schedule(view)` at each pass; the view
// holds the pass's input (module `tracewarp` below) and the method returns the ids of the jobs to
// start now, in order, or a pair (those ids, [(id, planned start), ...]) to report reservations
// too. Times are integers in engine ticks (ns; tracewarp.SECOND), as the C++ policies see them,
// so a Python policy can give exactly a C++ policy's schedule.
//
// The instance's attributes are its state, as a C++ policy's members are: the engine copies them
// (copy.deepcopy) where it saves state, compares them (their pickles) in the rollback check and
// saves them in checkpoints (pickle). They must be picklable. Runs are deterministic: string
// hashing is seeded with 0, so every rank and every run iterates sets and dicts alike.
//
// An error in the file (a syntax error, a missing class, an exception in schedule(), a bad return
// value) stops the run with one message naming the file and line (exit code 2), before anything
// is written when the file cannot be loaded.
#include <pybind11/embed.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "tracewarp/core/error.hpp"
#include "tracewarp/policy/batch/priority.hpp"
#include "tracewarp/policy/batch/profile.hpp"
#include "tracewarp/policy/batch/registry.hpp"

namespace py = pybind11;

namespace tracewarp::batch {
namespace {

// ---- what Python sees ----

// One pass's input. It lives for the call only: a policy keeps ids, never the view or its jobs.
struct PythonView {
  const SchedulingInput* in;
  py::list queue() const {
    py::list out;
    for (const QueuedJob& j : in->queue) out.append(py::cast(j));
    return out;
  }
  py::list running() const {
    py::list out;
    for (const RunningJob& r : in->running) out.append(py::cast(r));
    return out;
  }
  // The queued jobs in queue order as one NumPy structured array (fields as Job's): no Python
  // object per job, for policies that read the whole queue at each pass.
  py::array queue_array() const {
    py::array_t<QueuedJob> a(static_cast<py::ssize_t>(in->queue.size()));
    QueuedJob* out = a.mutable_data();
    for (const QueuedJob& j : in->queue) *out++ = j;
    return a;
  }
  // One field of the queued jobs in queue order, as a contiguous NumPy array: the cheapest read
  // for a policy that needs a few fields of a long queue at every pass.
  py::array queue_column(const std::string& field) const {
    const auto column = [&](auto member) {
      using V = std::remove_cvref_t<decltype(std::declval<QueuedJob>().*member)>;
      py::array_t<V> a(static_cast<py::ssize_t>(in->queue.size()));
      V* out = a.mutable_data();
      for (const QueuedJob& j : in->queue) *out++ = j.*member;
      return py::array(std::move(a));
    };
    if (field == "id") return column(&QueuedJob::id);
    if (field == "nodes") return column(&QueuedJob::nodes);
    if (field == "requested") return column(&QueuedJob::requested);
    if (field == "submit") return column(&QueuedJob::submit);
    if (field == "user") return column(&QueuedJob::user);
    if (field == "group") return column(&QueuedJob::group);
    if (field == "queue") return column(&QueuedJob::queue);
    if (field == "priority") return column(&QueuedJob::priority);
    if (field == "wrsa") return column(&QueuedJob::wrsa);
    throw py::value_error("View.queue_column: no field '" + field +
                          "' (id, nodes, requested, submit, user, group, "
                          "queue, priority, wrsa)");
  }
  // The head's shadow (profile.hpp: shadow_of): when `nodes` can start, after the running jobs
  // and `started` (pairs (nodes, requested end)) this pass started, and the nodes free then.
  py::tuple shadow(std::uint32_t nodes, std::uint32_t free,
                   const std::vector<std::pair<std::uint32_t, Time>>& started) {
    std::vector<RunningJob> s;
    for (const auto& [n, end] : started) s.push_back({0, n, in->now, end});
    const Shadow sh = shadow_of(in->now, free, in->running, s, nodes, in->running_in_end_order);
    return py::make_tuple(sh.start, sh.free);
  }
  AvailabilityProfile profile() const { return AvailabilityProfile(in->now, in->free_nodes, in->running); }
  // The trace's record of a queued job (None in hand-made inputs).
  py::object record(const QueuedJob& job) const {
    const workload::Job* r = in->record_of(job);
    return r == nullptr ? py::none() : py::cast(*r);
  }
  // The priority layer's factors of a queued job now, each in [0, 1] (None without the layer).
  py::object factors(const QueuedJob& job) const {
    if (in->priorities == nullptr) return py::none();
    const PriorityFactors f = in->priorities->factors(job, in->now);
    py::dict d;
    d["age"] = f.age;
    d["fairshare"] = f.fairshare;
    d["job_size"] = f.job_size;
    d["queue"] = f.queue;
    d["expansion"] = f.expansion;
    return d;
  }
};

PYBIND11_EMBEDDED_MODULE(tracewarp, m) {
  m.doc() = "tracewarp's batch policy interface (src/policy/batch/python_policy.cpp)";
  // The queue as a NumPy structured array (View.queue_array), field for field.
  PYBIND11_NUMPY_DTYPE(QueuedJob, id, nodes, requested, submit, user, wrsa, group, queue, priority);
  m.attr("SECOND") = kTicksPerSecond;
  m.attr("INFINITY") = kTimeInfinity;
  py::class_<QueuedJob>(m, "Job", "a queued job (times in ticks; user, group, queue -1 when unknown)")
      .def_readonly("id", &QueuedJob::id)
      .def_readonly("nodes", &QueuedJob::nodes, "in the scheduler's units (nodes or processors)")
      .def_readonly("requested", &QueuedJob::requested, "requested walltime")
      .def_readonly("submit", &QueuedJob::submit)
      .def_readonly("user", &QueuedJob::user)
      .def_readonly("group", &QueuedJob::group)
      .def_readonly("queue", &QueuedJob::queue)
      .def_readonly("priority", &QueuedJob::priority, "the priority layer's; the queue is in its order")
      .def_readonly("wrsa", &QueuedJob::wrsa);
  py::class_<RunningJob>(m, "Running", "a running job")
      .def_readonly("id", &RunningJob::id)
      .def_readonly("nodes", &RunningJob::nodes)
      .def_readonly("start", &RunningJob::start)
      .def_readonly("requested_end", &RunningJob::requested_end, "when the policy must assume it ends");
  py::class_<AvailabilityProfile>(m, "Profile", "free nodes over future time (profile.hpp)")
      .def("free_at", &AvailabilityProfile::free_at)
      .def("earliest_start", &AvailabilityProfile::earliest_start, py::arg("nodes"), py::arg("duration"))
      .def("fits", &AvailabilityProfile::fits, py::arg("start"), py::arg("duration"), py::arg("nodes"))
      .def(
          "reserve",
          [](AvailabilityProfile& p, Time start, Time duration, std::uint32_t nodes) {
            if (!p.fits(start, duration, nodes)) throw py::value_error("Profile.reserve: the nodes are not free then");
            p.reserve(start, duration, nodes);
          },
          py::arg("start"), py::arg("duration"), py::arg("nodes"));
  py::class_<workload::Job>(m, "Record", "a job as the trace gave it (jobs/job.hpp; times in ticks, -1 unknown)")
      .def_readonly("trace_id", &workload::Job::id)
      .def_readonly("submit", &workload::Job::submit)
      .def_readonly("run", &workload::Job::run, "the actual run time (for oracle studies)")
      .def_readonly("requested", &workload::Job::requested)
      .def_readonly("logged_wait", &workload::Job::trace_wait, "the wait the trace recorded")
      .def_readonly("procs", &workload::Job::procs)
      .def_readonly("nodes", &workload::Job::nodes)
      .def_readonly("user", &workload::Job::user)
      .def_readonly("group", &workload::Job::group)
      .def_readonly("queue", &workload::Job::queue)
      .def_readonly("partition", &workload::Job::partition)
      .def_readonly("status", &workload::Job::status, "the trace's status code");
  py::class_<PythonView>(m, "View", "one pass's input, valid during schedule() only")
      .def_property_readonly("now", [](const PythonView& v) { return v.in->now; })
      .def_property_readonly("total_nodes", [](const PythonView& v) { return v.in->total_nodes; })
      .def_property_readonly("free_nodes", [](const PythonView& v) { return v.in->free_nodes; })
      .def_property_readonly(
          "depth", [](const PythonView& v) { return v.in->depth; }, "jobs to consider; 0 = all")
      .def_property_readonly("queue", &PythonView::queue, "the queued jobs in priority order (a new list each time)")
      .def_property_readonly("running", &PythonView::running, "the running jobs")
      .def_property_readonly(
          "arrival_order", [](const PythonView& v) { return v.in->arrival_order != nullptr; },
          "whether the queue is in arrival order (ids ascending)")
      .def_property_readonly(
          "settled_below",
          [](const PythonView& v) { return v.in->arrival_order != nullptr ? v.in->arrival_order->settled_below : 0; },
          "in arrival order: the jobs with lower ids were refused by the last pass and nothing ended since "
          "(scheduling.hpp, ArrivalOrderHints)")
      .def("queue_array", &PythonView::queue_array, "the queued jobs as a NumPy structured array (a copy)")
      .def("queue_column", &PythonView::queue_column, py::arg("field"),
           "one field of the queued jobs, in queue order, as a NumPy array (a copy)")
      .def("shadow", &PythonView::shadow, py::arg("nodes"), py::arg("free"), py::arg("started"))
      .def("profile", &PythonView::profile)
      .def("record", &PythonView::record, py::arg("job"), "the trace's record of a queued job, or None")
      .def("factors", &PythonView::factors, py::arg("job"),
           "the priority layer's factors of a queued job now (age, fairshare, job_size, queue, expansion), or None");
}

// ---- the interpreter ----

// One per process, started at the first Python policy and kept to the end (an interpreter cannot
// be restarted cleanly with NumPy loaded). Every call comes from the rank's main thread.
void ensure_interpreter() {
  static const bool started = [] {
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.install_signal_handlers = 0;  // Ctrl-C and SIGTERM stay the engine's
    config.use_hash_seed = 1;            // the same hashes on every rank and run
    config.hash_seed = 0;
    py::initialize_interpreter(&config, 0, nullptr, false);
    py::module_::import("tracewarp");  // registers the view's types, imported by the file or not
    return true;
  }();
  (void)started;
}

// The error being handled, as one message: where in the user's file it arose, then the
// traceback's last lines.
std::string describe(py::error_already_set& e, const std::string& file, const std::string& doing) {
  std::string where = file;
  try {
    const py::list frames = py::module_::import("traceback").attr("extract_tb")(e.trace());
    for (const py::handle f : frames)
      if (f.attr("filename").cast<std::string>() == file)
        where = file + ":" + std::to_string(f.attr("lineno").cast<long>());
    if (e.matches(PyExc_SyntaxError) && !e.value().attr("lineno").is_none())
      where = file + ":" + std::to_string(e.value().attr("lineno").cast<long>());
  } catch (const py::error_already_set&) {  // keep the file alone
  }
  return where + ": " + doing + ": " + py::str(e.type().attr("__name__")).cast<std::string>() + ": " +
         py::str(e.value()).cast<std::string>();
}

struct PythonSettings {
  std::string file;
  std::string class_name = "Policy";
};

// The user's module, loaded once per process for each file.
py::object load_module(const std::string& file) {
  static std::map<std::string, py::object> loaded;
  if (const auto it = loaded.find(file); it != loaded.end()) return it->second;
  if (!std::filesystem::is_regular_file(file)) throw ConfigError("batch.python_policy: no such file: " + file);
  try {
    const py::module_ util = py::module_::import("importlib.util");
    const std::string name = "tracewarp_policy_" + std::to_string(loaded.size());
    const py::object spec = util.attr("spec_from_file_location")(name, file);
    py::object module = util.attr("module_from_spec")(spec);
    py::module_::import("sys").attr("modules")[py::str(name)] = module;  // so pickle finds its classes
    spec.attr("loader").attr("exec_module")(module);
    return loaded[file] = module;
  } catch (py::error_already_set& e) {
    throw ConfigError(describe(e, file, "loading the policy"));
  }
}

class PythonPolicy {
 public:
  explicit PythonPolicy(const PythonSettings& s) : file_(s.file) {
    ensure_interpreter();
    const py::object module = load_module(file_);
    if (!py::hasattr(module, s.class_name.c_str()))
      throw ConfigError("batch.python_policy: " + file_ + " defines no class " + s.class_name +
                        " (batch.python_class)");
    try {
      self_ = module.attr(s.class_name.c_str())();
    } catch (py::error_already_set& e) {
      throw ConfigError(describe(e, file_, "making " + s.class_name + "()"));
    }
    if (!py::hasattr(self_, "schedule"))
      throw ConfigError("batch.python_policy: " + file_ + ": class " + s.class_name + " has no method schedule(view)");
  }
  PythonPolicy(const PythonPolicy& other) : file_(other.file_), self_(deep_copy(other.self_)) {}
  PythonPolicy& operator=(const PythonPolicy& other) {
    if (this != &other) {
      file_ = other.file_;
      self_ = deep_copy(other.self_);
    }
    return *this;
  }
  PythonPolicy(PythonPolicy&&) = default;
  PythonPolicy& operator=(PythonPolicy&&) = default;

  bool reads_wrsa() const { return false; }
  Time longest_plannable() const { return kTimeInfinity; }
  bool operator==(const PythonPolicy& other) const { return state() == other.state(); }

  PassDecision pass(const SchedulingInput& in) {
    PythonView view{&in};
    py::object answer;
    try {
      answer = self_.attr("schedule")(py::cast(&view, py::return_value_policy::reference));
      PassDecision d = decision(answer, in.now);
      check_ids(d, in);
      return d;
    } catch (py::error_already_set& e) {
      throw InputError(describe(e, file_, "schedule() at t = " + std::to_string(in.now)));
    } catch (const py::cast_error&) {
      throw InputError(file_ + ": schedule() at t = " + std::to_string(in.now) +
                       " returned neither a list of job ids nor a pair (ids, [(id, start), ...])");
    }
  }

  template <class A>
  void persist(A& archive) {
    if constexpr (std::is_same_v<A, persist::Writer>) {
      std::string bytes = state();
      archive(bytes);
    } else {
      std::string bytes;
      archive(bytes);
      const py::dict restored = py::module_::import("pickle").attr("loads")(py::bytes(bytes));
      py::dict attributes = self_.attr("__dict__");
      attributes.clear();
      attributes.attr("update")(restored);
    }
  }

 private:
  static py::object deep_copy(const py::object& o) { return py::module_::import("copy").attr("deepcopy")(o); }
  // The instance's attributes, pickled: what equality compares and checkpoints hold.
  std::string state() const {
    try {
      return py::module_::import("pickle").attr("dumps")(self_.attr("__dict__"), 4).cast<std::string>();
    } catch (py::error_already_set& e) {
      throw InputError(describe(e, file_, "saving the policy's attributes (they must be picklable)"));
    }
  }
  // The answer as a decision. A started job the answer gives no planned start is planned now:
  // the model takes a job's first plan as its T0 (delay_s), and a job started at once had none
  // earlier.
  static PassDecision decision(const py::object& answer, Time now) {
    PassDecision out;
    py::object starts = answer;
    if (py::isinstance<py::tuple>(answer) && py::len(answer) == 2) {
      const py::tuple pair = answer.cast<py::tuple>();
      starts = pair[0];
      for (const py::handle r : pair[1]) {
        const py::tuple t = r.cast<py::tuple>();
        out.reservations.push_back({t[0].cast<JobId>(), t[1].cast<Time>()});
      }
    }
    for (const py::handle id : starts) out.start_now.push_back(id.cast<JobId>());
    std::vector<JobId> planned;
    for (const Reservation& r : out.reservations) planned.push_back(r.id);
    std::sort(planned.begin(), planned.end());
    for (const JobId id : out.start_now)
      if (!std::binary_search(planned.begin(), planned.end(), id)) out.reservations.push_back({id, now});
    return out;
  }

  // Every id the answer names must be a queued job, and a job starts once: the model trusts a
  // C++ policy on this, not a user's file.
  void check_ids(const PassDecision& d, const SchedulingInput& in) const {
    if (d.start_now.empty() && d.reservations.empty()) return;
    std::vector<JobId> queued;
    for (const QueuedJob& j : in.queue) queued.push_back(j.id);
    if (in.arrival_order == nullptr) std::sort(queued.begin(), queued.end());  // in arrival order: ids ascend
    const auto refuse = [&](JobId id, const char* what) {
      throw InputError(file_ + ": schedule() at t = " + std::to_string(in.now) + " " + what + " " + std::to_string(id) +
                       ", which is not a queued job");
    };
    for (const JobId id : d.start_now)
      if (!std::binary_search(queued.begin(), queued.end(), id)) refuse(id, "started job");
    for (const Reservation& r : d.reservations)
      if (!std::binary_search(queued.begin(), queued.end(), r.id)) refuse(r.id, "reserved job");
    std::vector<JobId> starts = d.start_now;
    std::sort(starts.begin(), starts.end());
    if (const auto twice = std::adjacent_find(starts.begin(), starts.end()); twice != starts.end())
      throw InputError(file_ + ": schedule() at t = " + std::to_string(in.now) + " started job " +
                       std::to_string(*twice) + " twice");
  }

  std::string file_;
  py::object self_;
};

const ParamTable<PythonSettings>& python_keys() {
  using S = PythonSettings;
  static const auto table =
      ParamTable<S>("batch")
          .text("python_policy", &S::file,
                "policy python: the Python file whose class schedules (src/policy/batch/python_policy.cpp; example: "
                "examples/policies/sjf_backfill.py)")
          .naming_input_file()
          .text("python_class", &S::class_name, "policy python: the class of batch.python_policy that schedules");
  return table;
}

const RegisteredBatchPolicy python("python",
                                   "a policy written in Python: class python_class of the file python_policy, "
                                   "called at each pass (src/policy/batch/python_policy.cpp)",
                                   python_keys(), [](const PythonSettings& s) {
                                     if (s.file.empty())
                                       throw ConfigError(
                                           "batch.policy = \"python\" needs batch.python_policy = FILE.py");
                                     return PythonPolicy(s);
                                   });

}  // namespace
}  // namespace tracewarp::batch
