#include "tracewarp/engine/simulation.hpp"

#include <tbb/global_control.h>

#include <chrono>
#include <cmath>

#include "kernel.hpp"
#include "tracewarp/core/memory.hpp"

namespace tracewarp {
namespace {

std::uint64_t resolve_memory_budget(const EngineConfig& config, const Communicator& comm) {
  if (config.memory_budget_bytes > 0) return config.memory_budget_bytes;
  const std::uint64_t usable = usable_memory_bytes();  // a Slurm job's allocation, a ulimit, or the node's
  const std::uint64_t share = usable / 2 / static_cast<std::uint64_t>(comm.ranks_on_node());
  return share > 0 ? share : std::uint64_t{1} << 30;
}

// The least memory a rank's set-up takes before any event: the id-to-LP index over every LP, and
// for each LP it owns its entry and its heap-allocated object (at least a vtable pointer and an
// allocator header). Compared with the budget before anything is allocated, so that a run far too
// large is refused at once rather than killed by the operating system.
std::uint64_t setup_bytes_at_least(LpId lps, LpId owned) {
  constexpr std::uint64_t kLpObjectAtLeast = 32;
  return static_cast<std::uint64_t>(lps) * sizeof(std::uint32_t) +
         static_cast<std::uint64_t>(owned) * (sizeof(detail::LocalLp) + kLpObjectAtLeast);
}

void refuse_oversized_setup(const Communicator& comm, LpId lps, std::uint64_t budget) {
  // The busiest rank owns at least the average share, whatever the placement.
  const std::uint64_t need = setup_bytes_at_least(lps, lps / static_cast<LpId>(comm.size()));
  // Every rank decides together: one rank alone stopping would leave the others waiting.
  const double worst = comm.max(static_cast<double>(need) / static_cast<double>(budget));
  if (worst <= 1) return;
  const auto mib = [](double b) {
    return std::to_string(static_cast<std::uint64_t>(std::ceil(b / (1 << 20)))) + " MiB";
  };
  throw MemoryBudgetError(
      "the run's " + std::to_string(lps) + " LPs need at least " + mib(worst * static_cast<double>(budget)) +
      " on one rank before any event, more than its memory budget of " + mib(static_cast<double>(budget)) +
      "; raise engine.memory_budget_mib (bench: --memory-budget-mib), use more ranks, or make "
      "the model smaller");
}

// Per-rank statistics travel as a flat array of these fields.
constexpr std::size_t kStatFields = 15;
void to_array(const RankStats& s, std::uint64_t* out) {
  const std::uint64_t values[kStatFields] = {
      s.committed,     s.rolled_back,    s.rollbacks,         s.anti_messages, s.remote_sent,
      s.gvt_rounds,    s.peak_rss_bytes, s.peak_engine_bytes, s.checkpoints,   s.checkpoint_bytes,
      s.checkpoint_ms, s.window_end_ns,  s.gvt_interval_end,  s.tuning_steps,  s.committed_at_once};
  std::copy(values, values + kStatFields, out);
}
RankStats from_array(const std::uint64_t* in) {
  return {in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11], in[12], in[13], in[14]};
}

}  // namespace

Simulation::Simulation(Communicator comm, EngineConfig config) : comm_(std::move(comm)), config_(std::move(config)) {
  if (config_.threads < 1) throw UsageError("threads must be at least 1");
  if (config_.gvt_interval < 1 || config_.poll_interval < 1)
    throw UsageError("gvt and poll intervals must be at least 1");
  if (config_.sync == SyncMode::sequential && comm_.size() > 1)
    throw UsageError("sequential mode runs on one rank, this run has " + std::to_string(comm_.size()) +
                     " (set engine.sync = \"optimistic\": `run --set engine.sync=optimistic`, `bench --sync "
                     "optimistic`; or run without mpirun)");
}

Simulation::~Simulation() = default;

LpRange Simulation::add_lp_type(LpTypeOptions options, LpId count,
                                std::function<std::unique_ptr<detail::LpRuntime>(LpId)> make) {
  if (ran_) throw InvariantError("LP types must be added before run()");
  if (options.checkpoint_interval < 1) throw UsageError("checkpoint interval of '" + options.name + "' must be >= 1");
  if (options.reverse && options.checkpoint_interval != 1)
    throw UsageError("'" + options.name + "' undoes events by reverse computation: it takes no checkpoint interval");
  if (count > kMaxLps - next_lp_) throw UsageError("too many LPs (at most 2^48)");
  const LpRange range{next_lp_, count};
  next_lp_ += count;
  types_.push_back({std::move(options), range, std::move(make)});
  return range;
}

RunStats Simulation::run() {
  if (ran_) throw InvariantError("a Simulation runs once");
  ran_ = true;
  const int ranks = comm_.size();
  const int rank = comm_.rank();

  refuse_oversized_setup(comm_, next_lp_, resolve_memory_budget(config_, comm_));
  detail::KernelSetup setup{comm_, config_, Partition::make(config_.placement, next_lp_, ranks), 0, {}, {}, 0, 0,
                            {},    nullptr};
  setup.lp_count = next_lp_;
  setup.memory_budget_bytes = resolve_memory_budget(config_, comm_);
  setup.local_index = detail::LocalIndex(setup.partition, rank);
  for (auto& type : types_) {
    for (LpId id = type.range.first; id < type.range.end(); ++id) {
      if (setup.partition.rank_of(id) != rank) continue;
      if (setup.local_index[id] != setup.lps.size())
        throw InvariantError("LP " + std::to_string(id) + " out of place among rank " + std::to_string(rank) +
                             "'s LPs");
      std::unique_ptr<detail::LpRuntime> runtime = type.make(id);
      if (type.options.reverse && !runtime->has_reverse())
        throw UsageError("LP type '" + type.options.name + "' asks for reverse computation but defines no on_reverse");
      const std::size_t state_bytes = runtime->state_bytes();
      const std::uint32_t object_bytes = detail::LocalLp::object_bytes_of(*runtime);
      setup.lps.push_back({id, std::move(runtime), type.options.checkpoint_interval, type.options.timed, state_bytes,
                           object_bytes, type.options.reverse});
    }
  }
  setup.make_lp = [this](LpId id) {
    for (auto& type : types_)
      if (type.range.contains(id)) return type.make(id);
    throw InvariantError("no LP type holds LP " + std::to_string(id));
  };
  setup.objects = &objects_;
  setup.lookahead = config_.lookahead > 0 ? config_.lookahead : declared_lookahead_;
  if (config_.sync == SyncMode::conservative && setup.lookahead <= 0)
    throw UsageError(
        "conservative mode needs a lookahead, and this model declares none (its LPs send each other events "
        "without delay); use engine.sync = \"optimistic\", or set engine.lookahead_s if the placement keeps "
        "such LPs on one rank");

  // Handlers may use TBB; this bounds the threads they get on this rank.
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(config_.threads));
  comm_.barrier();
  const auto start = std::chrono::steady_clock::now();
  RankStats mine = config_.sync == SyncMode::sequential     ? detail::run_sequential(setup)
                   : config_.sync == SyncMode::conservative ? detail::run_conservative(setup)
                                                            : detail::run_optimistic(setup);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  mine.peak_rss_bytes = peak_rss_bytes();

  RunStats stats;
  stats.wall_s = comm_.max(elapsed);
  stats.ranks = ranks;
  stats.threads = config_.threads;
  stats.sync = to_string(config_.sync);
  std::uint64_t flat[kStatFields];
  to_array(mine, flat);
  const std::vector<std::uint64_t> all = comm_.all_gather(flat);
  for (int r = 0; r < ranks; ++r) {
    const RankStats s = from_array(all.data() + static_cast<std::size_t>(r) * kStatFields);
    stats.per_rank.push_back(s);
    stats.total.committed += s.committed;
    stats.total.committed_at_once += s.committed_at_once;
    stats.total.rolled_back += s.rolled_back;
    stats.total.rollbacks += s.rollbacks;
    stats.total.anti_messages += s.anti_messages;
    stats.total.remote_sent += s.remote_sent;
    stats.total.gvt_rounds = std::max(stats.total.gvt_rounds, s.gvt_rounds);
    stats.total.peak_rss_bytes = std::max(stats.total.peak_rss_bytes, s.peak_rss_bytes);
    stats.total.peak_engine_bytes = std::max(stats.total.peak_engine_bytes, s.peak_engine_bytes);
    stats.total.checkpoints = std::max(stats.total.checkpoints, s.checkpoints);
    stats.total.checkpoint_bytes += s.checkpoint_bytes;
    stats.total.checkpoint_ms = std::max(stats.total.checkpoint_ms, s.checkpoint_ms);
    // Every rank takes the tuner's same steps: rank 0's settings are the run's.
    if (r == 0) {
      stats.total.window_end_ns = s.window_end_ns;
      stats.total.gvt_interval_end = s.gvt_interval_end;
      stats.total.tuning_steps = s.tuning_steps;
    }
  }
  return stats;
}

}  // namespace tracewarp
