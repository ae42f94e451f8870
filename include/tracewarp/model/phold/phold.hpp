// PHOLD, the standard synthetic benchmark of parallel discrete-event engines (as in ROSS).
//
// Every LP starts with `events_per_lp` events. Executing an event sends exactly one new event:
// with probability `remote` to an LP drawn uniformly from the whole model, otherwise to itself,
// after lookahead + Exp(mean - lookahead) time units. One time unit is one simulated second.
// The committed result is summarised by the number of committed events and an order-independent
// checksum over their keys, which must be identical in every synchronisation mode, for any
// number of ranks and threads.
#pragma once

#include "tracewarp/model/run_context.hpp"

#include <cstdint>
#include <vector>

#include "tracewarp/core/params.hpp"
#include "tracewarp/core/random.hpp"
#include "tracewarp/core/stats.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/config.hpp"
#include "tracewarp/engine/lp.hpp"

namespace tracewarp::model {
struct ModelInfo;
}

namespace tracewarp::phold {

struct Params {
  LpId lps = 1024;  // in total
  std::uint32_t events_per_lp = 16;
  double remote = 0.1;
  double mean = 1.0;
  double lookahead = 0.1;
  double end = 1000.0;
  // Optimistic mode undoes events by reverse computation (on_reverse) rather than state copies:
  // 6% faster at 1,024 LPs on one rank, 13% at 16,384, 5-15% on 2 ranks (docs/performance-history.md).
  bool reverse = true;
  // series_interval > 0: also count committed events per interval of this length
  model::RunContext context{1, 0};
  void validate() const;  // throws UsageError
};

// Committed-event tally of one rank; lives outside LP state (it is written from on_commit).
// The phold.* keys (seed and series interval are the run context's).
const ParamTable<Params>& param_table();
// The model as `experiment.model = "phold"` runs it (phold_registration.cpp).
const model::ModelInfo& phold_model();

struct Tally {
  std::uint64_t committed = 0;
  std::uint64_t checksum = 0;
  Time interval = 0;  // > 0: count per interval too
  std::vector<std::uint64_t> per_interval;
  TRACEWARP_PERSIST(committed, checksum, per_interval)
};

// The constants every LP reads; shared, never changed during a run.
struct Shared {
  LpId lps;
  double remote;
  Time lookahead;   // ticks
  double exp_mean;  // ticks, mean - lookahead
  std::uint32_t events_per_lp;
};

inline constexpr EventKind kPholdEvent = 1;

class PholdLp {
 public:
  PholdLp(LpId id, std::uint64_t seed, const Shared* shared, Tally* tally)
      : rng_(seed, id), shared_(shared), tally_(tally) {}

  void on_init(EventContext& ctx);
  void on_event(const Event& ev, EventContext& ctx);
  // The only state an event changes is the random stream: its draw count before is kept.
  void on_reverse(const Event&, const ReverseContext& ctx) { rng_.rewind_to(ctx.kept()); }
  void on_commit(const Event& ev, CommitContext& ctx) const;
  bool operator==(const PholdLp&) const = default;
  TRACEWARP_PERSIST(rng_)

 private:
  Time next_delay();

  RandomStream rng_;
  const Shared* shared_;
  Tally* tally_;
};

// The contribution of one committed event to the checksum.
std::uint64_t event_hash(const Event& ev);

struct Result {
  RunStats stats;
  std::uint64_t committed = 0;              // over all ranks
  std::uint64_t checksum = 0;               // over all ranks
  std::vector<std::uint64_t> per_interval;  // committed events per series interval, all ranks
};

// Builds PHOLD on `comm` and runs it to params.end.
Result run(const Communicator& comm, const Params& params, EngineConfig engine);

}  // namespace tracewarp::phold
