#include "tracewarp/model/mapreduce/mapreduce_model.hpp"

#include "../common/gather_rows.hpp"
#include "../common/tick_buckets.hpp"
#include "master_lp.hpp"
#include "tracewarp/core/error.hpp"
#include "worker_lp.hpp"

namespace tracewarp::mapreduce {

using namespace detail;

// Each key's own range and choices are checked where it is declared (param_table); this checks
// what they cannot say alone.
void validate(const MapReduceParams& params) {
  // Each would leave a job that never ends: the run would go on forever, simulated time climbing.
  if (params.maps + params.reduces == 0)
    throw ConfigError("mapreduce.maps and mapreduce.reduces are both 0: a job with no task never runs");
  const auto refuse_misfit = [&](const char* kind, double gb) {
    throw ConfigError("mapreduce." + std::string(kind) + "_memory_gb = " + to_string(ConfigValue(gb)) + ": a " + kind +
                      " container fits no worker (mapreduce.memory_gb = " + to_string(ConfigValue(params.memory_gb)) +
                      "), so the job would never end");
  };
  if (params.maps > 0 && params.map_memory_gb > params.memory_gb) refuse_misfit("map", params.map_memory_gb);
  if (params.reduces > 0 && params.reduce_memory_gb > params.memory_gb)
    refuse_misfit("reduce", params.reduce_memory_gb);
}

double records_per_task(const MapReduceParams& params) { return params.split_mb * (1 << 20) / params.record_bytes; }

double task_work(const MapReduceParams& params, std::uint32_t job, std::uint32_t task) {
  // A stream per task, apart from the LPs' own streams (keyed by LP id): the top bit set.
  constexpr std::uint64_t kTaskStreams = std::uint64_t{1} << 63;
  const bool map = task < params.maps;
  const double mean = map ? params.map_work_s : params.reduce_work_s;
  const double cv = map ? params.map_work_cv : params.reduce_work_cv;
  if (cv == 0) return mean;
  RandomStream stream(params.context.seed, kTaskStreams | (std::uint64_t{job} * (params.maps + params.reduces) + task));
  return LogNormal(mean, cv).at(stream.normal());
}

MapReduceResult run_mapreduce(const Communicator& comm, const MapReduceParams& params, EngineConfig engine) {
  validate(params);
  Shared shared{params, &find_detector(params.detector)};
  Collector out;
  Simulation sim(comm, engine);
  sim.declare_lookahead(params.latency);  // every message between master and workers pays it
  shared.master = sim.add_lps<MasterLp>({.name = "mapreduce-master", .checkpoint_interval = 64}, 1,
                                        [&](LpId) { return MasterLp(&shared, &out); })
                      .first;
  shared.first_worker =
      sim.add_lps<WorkerLp>({.name = "mapreduce-worker"}, params.workers,
                            [&](LpId id) { return WorkerLp(&shared, static_cast<std::uint32_t>(id - 1)); })
          .first;
  sim.checkpoint_also(out);
  MapReduceResult r;
  r.stats = sim.run();
  r.attempts = model::gather_sorted(comm, std::move(out.attempts), [](const AttemptRow& a, const AttemptRow& b) {
    return std::tie(a.job, a.task, a.attempt) < std::tie(b.job, b.task, b.attempt);
  });
  if (comm.rank() != 0) return r;
  model::TickBuckets<2> buckets(params.context.series_interval);  // running maps, running reduces
  Time last = 0;
  r.job_completion_s.assign(params.jobs, 0);
  for (const AttemptRow& a : r.attempts) {
    buckets.add(from_seconds(a.start_s), from_seconds(a.end_s), a.kind);
    last = std::max(last, from_seconds(a.end_s));
    r.tasks_at_attempt_cap += a.attempt + 1 == params.max_attempts;
    if (a.outcome == static_cast<std::uint32_t>(Outcome::completed))
      r.job_completion_s[a.job] =
          std::max(r.job_completion_s[a.job], a.end_s - to_seconds(static_cast<Time>(a.job) * params.job_interval));
  }
  const double interval = static_cast<double>(params.context.series_interval);
  for (std::int64_t b = 0; b <= last / params.context.series_interval; ++b) {
    const Time begin = b * params.context.series_interval, end = begin + params.context.series_interval;
    const Time change = params.state_change ? std::clamp(params.state_change_at, begin, end) : end;
    const double cores =
        (static_cast<double>(change - begin) * params.cores + static_cast<double>(end - change) * params.cores_after) /
        interval * params.workers;
    const auto at = buckets.sums().find(b);
    const model::TickBuckets<2>::Sums sums = at != buckets.sums().end() ? at->second : model::TickBuckets<2>::Sums{};
    r.series.push_back({to_seconds(begin), buckets.average(sums, 0), buckets.average(sums, 1), cores});
  }
  return r;
}

}  // namespace tracewarp::mapreduce
