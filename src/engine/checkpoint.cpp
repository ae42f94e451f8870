#include "checkpoint.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/files.hpp"

namespace tracewarp::detail {
namespace {

namespace fs = std::filesystem;
constexpr const char* kMagic = "tracewarp-checkpoint 1\n";

struct Latest {
  std::uint64_t generation = 0;
  int ranks = 0;
  Time at = 0;
};

std::optional<Latest> read_latest(const std::string& dir) {
  const std::string path = dir + "/latest";
  if (!fs::exists(path)) return std::nullopt;
  std::istringstream in(read_whole_file(path));
  std::string w1, w2, w3;
  Latest l;
  if (!(in >> w1 >> l.generation >> w2 >> l.ranks >> w3 >> l.at) || w1 != "generation" || w2 != "ranks" || w3 != "time")
    throw InputError("checkpoint '" + path + "' is damaged (expected \"generation G ranks R time T\")");
  return l;
}

}  // namespace

Checkpointer::Checkpointer(const KernelSetup& setup)
    : setup_(setup),
      every_s_(setup.config.checkpoint_every_s),
      dir_(setup.config.checkpoint_dir),
      last_(steady_seconds()) {
  if (!enabled() && !setup.config.resume) return;
  if (dir_.empty()) throw UsageError("checkpoints need a directory (EngineConfig::checkpoint_dir)");
  if (!enabled()) return;
  for (const LocalLp& lp : setup.lps)
    if (!lp.runtime->persistable())
      throw UsageError("engine.checkpoint_every_s: LP " + std::to_string(lp.id) +
                       " is of a type that cannot be checkpointed (its class lists no state with TRACEWARP_PERSIST)");
}

bool Checkpointer::due() {
  return enabled() && ++chances_ >= setup_.config.checkpoint_min_gap && steady_seconds() - last_ >= every_s_;
}

std::string Checkpointer::rank_file(std::uint64_t generation, int rank) const {
  char name[64];
  std::snprintf(name, sizeof name, "/gen-%06llu.rank-%04d", static_cast<unsigned long long>(generation), rank);
  return dir_ + name;
}

// Header, LPs (id, send counter, state), pending events, model objects; then a checksum of all.
std::string Checkpointer::encode(const CommittedState& state) const {
  persist::Writer w;
  w.bytes(kMagic, std::char_traits<char>::length(kMagic));
  w(setup_.config.identity, static_cast<std::int32_t>(setup_.comm.size()),
    static_cast<std::int32_t>(setup_.comm.rank()), setup_.lp_count, state.at, state.committed);
  w.value<std::uint64_t>(setup_.lps.size());
  for (std::size_t i = 0; i < setup_.lps.size(); ++i) {
    const LocalLp& lp = setup_.lps[i];
    persist::Writer one;
    lp.runtime->save(one);
    // The proof that the LP type's persist list is whole: a fresh LP restored from these bytes
    // must equal the live one.
    const std::unique_ptr<LpRuntime> fresh = setup_.make_lp(lp.id);
    persist::Reader back(one.data(), "checkpoint of LP " + std::to_string(lp.id));
    fresh->load(back);
    if (!back.done() || !fresh->state_equals(lp.runtime->state()))
      throw InvariantError("checkpoint: LP " + std::to_string(lp.id) +
                           " is not restored identically from its saved state: its TRACEWARP_PERSIST list misses a "
                           "member that the run changed (or its operator== compares something it should not)");
    w(lp.id, state.send_seq[i], one.data());
  }
  w.value<std::uint64_t>(state.pending.size());
  for (const Event& ev : state.pending) {
    w(ev.key, ev.dest, ev.payload_size);
    w.bytes(ev.payload, ev.payload_size);
  }
  for (const PersistentObject& object : *setup_.objects) {
    persist::Writer one;
    object.save(one);
    w(one.data());
  }
  const std::uint64_t checksum = fnv1a(w.data());
  w.value(checksum);
  return w.take();
}

CommittedState Checkpointer::decode(const std::string& bytes, const std::string& file) {
  constexpr std::size_t kSum = sizeof(std::uint64_t);
  const std::size_t magic = std::char_traits<char>::length(kMagic);
  if (bytes.size() < magic + kSum || bytes.compare(0, magic, kMagic) != 0)
    throw InputError("'" + file + "' is not a tracewarp checkpoint");
  std::uint64_t checksum;
  std::memcpy(&checksum, bytes.data() + bytes.size() - kSum, kSum);
  const std::string_view body(bytes.data(), bytes.size() - kSum);
  if (fnv1a(body) != checksum) throw InputError("checkpoint '" + file + "' is damaged (checksum mismatch)");
  persist::Reader r(body.substr(magic), "checkpoint '" + file + "'");

  std::string identity;
  std::int32_t ranks = 0, rank = 0;
  LpId lp_count = 0;
  CommittedState state;
  r(identity, ranks, rank, lp_count, state.at, state.committed);
  if (identity != setup_.config.identity)
    throw InputError("checkpoint '" + file + "' belongs to another run (" + identity + "; this is " +
                     setup_.config.identity + ")");
  if (ranks != setup_.comm.size() || rank != setup_.comm.rank() || lp_count != setup_.lp_count)
    throw InputError("checkpoint '" + file + "' was written by rank " + std::to_string(rank) + " of " +
                     std::to_string(ranks) + " with " + std::to_string(lp_count) + " LPs; resume it on " +
                     std::to_string(ranks) + " ranks");
  const std::size_t lps = r.count(1);
  if (lps != setup_.lps.size()) throw InputError("checkpoint '" + file + "': LP count differs from this rank's");
  state.send_seq.resize(lps);
  for (std::size_t i = 0; i < lps; ++i) {
    LpId id = 0;
    std::string blob;
    r(id, state.send_seq[i], blob);
    if (id != setup_.lps[i].id)
      throw InputError("checkpoint '" + file + "': LP " + std::to_string(id) + " out of place");
    persist::Reader one(blob, "checkpoint '" + file + "', LP " + std::to_string(id));
    setup_.lps[i].runtime->load(one);
    if (!one.done()) throw InputError("checkpoint '" + file + "': LP " + std::to_string(id) + " has extra bytes");
  }
  state.pending.resize(r.count(sizeof(EventKey)));
  for (Event& ev : state.pending) {
    r(ev.key, ev.dest, ev.payload_size);
    if (ev.payload_size > kMaxPayloadBytes || ev.dest >= setup_.lp_count || setup_.local_index[ev.dest] == kNotLocal)
      throw InputError("checkpoint '" + file + "': damaged event");
    r.bytes(ev.payload, ev.payload_size);
  }
  for (const PersistentObject& object : *setup_.objects) {
    std::string blob;
    r(blob);
    persist::Reader one(blob, "checkpoint '" + file + "', model data");
    object.load(one);
  }
  if (!r.done()) throw InputError("checkpoint '" + file + "' has trailing bytes");
  return state;
}

void Checkpointer::save(const CommittedState& state) {
  const double start = steady_seconds();
  const int rank = setup_.comm.rank();
  const std::uint64_t next = generation_ + 1;
  // Every rank writes its file; a failure anywhere leaves the previous checkpoint in force.
  std::uint64_t failed[1] = {0};
  std::string why;
  try {
    if (rank == 0) fs::create_directories(dir_);
    setup_.comm.barrier();
    const std::string bytes = encode(state);
    write_atomically(rank_file(next, rank), bytes);
    last_bytes_ = bytes.size();
  } catch (const InvariantError&) {
    throw;  // a model error: every rank has the same LP types, and reports it
  } catch (const std::exception& e) {
    failed[0] = 1;
    why = e.what();
  }
  setup_.comm.sum(failed);
  if (failed[0] != 0) {
    if (!why.empty()) throw IoError("checkpoint: " + why);
    throw PeerFailure("checkpoint: another rank could not write its part");
  }
  if (rank == 0)
    write_atomically(dir_ + "/latest", "generation " + std::to_string(next) + " ranks " +
                                           std::to_string(setup_.comm.size()) + " time " + std::to_string(state.at) +
                                           "\n");
  setup_.comm.barrier();
  if (generation_ > 1) fs::remove(rank_file(generation_ - 1, rank));  // the previous one stays
  generation_ = next;
  ++saved_;
  chances_ = 0;
  last_ = steady_seconds();
  seconds_ += last_ - start;
}

std::optional<CommittedState> Checkpointer::restore() {
  if (!setup_.config.resume) return std::nullopt;
  const std::optional<Latest> latest = read_latest(dir_);
  if (!latest) return std::nullopt;
  if (latest->ranks != setup_.comm.size())
    throw UsageError("the checkpoint in '" + dir_ + "' was written by " + std::to_string(latest->ranks) +
                     " ranks; resume it on " + std::to_string(latest->ranks) + " ranks (this run has " +
                     std::to_string(setup_.comm.size()) + ")");
  // Every rank reads the newest generation; if any rank's part is damaged, all go back to the one
  // before together (the ranks' parts must be of one generation).
  std::string damage;
  for (std::uint64_t generation = latest->generation; generation + 1 >= latest->generation && generation > 0;
       --generation) {
    const std::string file = rank_file(generation, setup_.comm.rank());
    std::optional<CommittedState> state;
    std::string why;
    try {
      state = decode(read_whole_file(file), file);
    } catch (const InputError& e) {
      why = e.what();
    }
    std::uint64_t failed[1] = {state ? 0u : 1u};
    setup_.comm.sum(failed);
    if (failed[0] == 0) {
      if (!damage.empty() && setup_.comm.rank() == 0)
        std::fprintf(stderr,
                     "tracewarp: warning: %s; the run goes on from the checkpoint before it (generation %llu)\n",
                     damage.c_str(), static_cast<unsigned long long>(generation));
      generation_ = generation;
      last_ = steady_seconds();
      return state;
    }
    if (damage.empty()) damage = why.empty() ? "another rank's part of the newest checkpoint is damaged" : why;
  }
  const std::string how =
      "; remove '" + dir_ + "' to run this run again from its start (a sweep keeps its finished runs with --resume)";
  if (damage.find("damaged") == std::string::npos) damage += " (damaged)";
  throw UsageError(damage + ", and no whole checkpoint before it" + how);  // every rank, together
}

}  // namespace tracewarp::detail
