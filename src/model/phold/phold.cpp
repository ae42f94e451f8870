#include "tracewarp/model/phold/phold.hpp"

#include <algorithm>

#include "tracewarp/engine/simulation.hpp"

namespace tracewarp::phold {

const ParamTable<Params>& param_table() {
  static const ParamTable<Params> table =
      ParamTable<Params>("phold")
          .integer("lps", &Params::lps, "LPs in total", {.min = 1})
          .integer("events_per_lp", &Params::events_per_lp, "initial events per LP")
          .number("remote", &Params::remote, "probability an event goes to a uniformly random LP", {.min = 0, .max = 1})
          .number("mean", &Params::mean, "mean time increment (time units = seconds; at least the lookahead)",
                  {.min = 0, .max = kMaxDurationSeconds})
          .number("lookahead", &Params::lookahead, "minimum time increment", {.min = 0, .max = kMaxDurationSeconds})
          .number("end", &Params::end, "end time", {.min = 1e-9, .max = kMaxDurationSeconds})
          .flag("reverse", &Params::reverse,
                "optimistic mode undoes events by reverse computation (on_reverse) instead of state copies");
  return table;
}

// What the key bounds cannot say alone (the table checks each key's own range).
void Params::validate() const {
  if (lps < 1 || !(remote >= 0.0 && remote <= 1.0) || !(lookahead >= 0.0) || !(end > 0.0) || end > 9.0e9)
    throw UsageError("PHOLD parameters out of range (tracewarp run --keys lists the phold.* ranges)");
  if (!(mean >= lookahead)) throw UsageError("phold.mean must be >= phold.lookahead");
  const double series_interval = to_seconds(context.series_interval);
  if (series_interval < 0 || (series_interval > 0 && end / series_interval > 1e7))
    throw UsageError("the series interval must be >= 0 and give at most 1e7 intervals");
}

Time PholdLp::next_delay() {
  const double jitter = shared_->exp_mean > 0 ? rng_.exponential(shared_->exp_mean) : 0.0;
  // At least one tick: every PHOLD event has the same kind, so delay 0 is not allowed.
  return std::max<Time>(1, shared_->lookahead + static_cast<Time>(std::llround(jitter)));
}

void PholdLp::on_init(EventContext& ctx) {
  for (std::uint32_t i = 0; i < shared_->events_per_lp; ++i) ctx.send(ctx.self(), next_delay(), kPholdEvent);
}

void PholdLp::on_event(const Event&, EventContext& ctx) {
  ctx.keep_for_reverse(rng_.draws());
  LpId dest = ctx.self();
  if (shared_->remote > 0 && rng_.uniform() < shared_->remote) dest = rng_.below(shared_->lps);
  ctx.send(dest, next_delay(), kPholdEvent);
}

void PholdLp::on_commit(const Event& ev, CommitContext&) const {
  ++tally_->committed;
  tally_->checksum += event_hash(ev);
  if (tally_->interval > 0) ++tally_->per_interval[static_cast<std::size_t>(ev.time() / tally_->interval)];
}

std::uint64_t event_hash(const Event& ev) {
  // splitmix64 finaliser over the full key and destination
  auto mix = [](std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  };
  std::uint64_t h = mix(static_cast<std::uint64_t>(ev.key.time));
  h = mix(h ^ ev.key.kind_sender);
  h = mix(h ^ ev.key.seq);
  return mix(h ^ ev.dest);
}

Result run(const Communicator& comm, const Params& params, EngineConfig engine) {
  params.validate();
  engine.end_time = from_seconds(params.end);
  const Shared shared{params.lps, params.remote, from_seconds(params.lookahead),
                      (params.mean - params.lookahead) * static_cast<double>(kTicksPerSecond), params.events_per_lp};
  Tally tally;
  if (params.context.series_interval > 0) {
    tally.interval = params.context.series_interval;
    tally.per_interval.assign(static_cast<std::size_t>((engine.end_time - 1) / tally.interval + 1), 0);
  }
  Simulation sim(comm, engine);
  sim.declare_lookahead(std::max<Time>(1, shared.lookahead));  // every delay is at least this (next_delay)
  sim.add_lps<PholdLp>({.name = "phold", .reverse = params.reverse}, params.lps,
                       [&](LpId id) { return PholdLp(id, params.context.seed, &shared, &tally); });
  sim.checkpoint_also(tally);
  Result result;
  result.stats = sim.run();
  std::uint64_t totals[2] = {tally.committed, tally.checksum};
  comm.sum(totals);
  result.committed = totals[0];
  result.checksum = totals[1];
  comm.sum(tally.per_interval);
  result.per_interval = std::move(tally.per_interval);
  return result;
}

}  // namespace tracewarp::phold
