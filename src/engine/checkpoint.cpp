#include "checkpoint.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/files.hpp"
#include "tracewarp/engine/stop_request.hpp"

namespace tracewarp::detail {
namespace {

namespace fs = std::filesystem;
// Version 2: each rank file holds its generation (a file copied from another generation is
// refused), and `latest` carries a checksum.
constexpr const char* kMagic = "tracewarp-checkpoint 2\n";

struct Latest {
  std::uint64_t generation = 0;
  int ranks = 0;
  Time at = 0;
};

std::string latest_fields(const Latest& l) {
  return "generation " + std::to_string(l.generation) + " ranks " + std::to_string(l.ranks) + " time " +
         std::to_string(l.at);
}

std::string latest_text(const Latest& l) {
  char crc[16];
  std::snprintf(crc, sizeof crc, "%08x", static_cast<unsigned>(crc32_of(latest_fields(l))));
  return latest_fields(l) + " crc32 " + crc + "\n";
}

// std::nullopt: no `latest` (no checkpoint was completed); InputError: damaged.
std::optional<Latest> read_latest(const std::string& dir) {
  const std::string path = dir + "/latest";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return std::nullopt;
  const std::string text = read_whole_file(path);
  std::istringstream in(text);
  std::string w1, w2, w3;
  Latest l;
  if (!(in >> w1 >> l.generation >> w2 >> l.ranks >> w3 >> l.at) || w1 != "generation" || w2 != "ranks" ||
      w3 != "time" || text != latest_text(l))
    throw InputError("checkpoint '" + path + "' is damaged");
  return l;
}

// What every rank file starts with, after the magic line.
struct RankHeader {
  std::string identity;
  std::int32_t ranks = 0, rank = 0;
  LpId lp_count = 0;
  std::uint64_t generation = 0;
  Time at = 0;
  std::uint64_t committed = 0;
};

// The body of a checkpoint file (after its magic line, before its checksum), once its checksum
// holds; InputError otherwise.
std::string_view verified_body(const std::string& bytes, const std::string& file) {
  constexpr std::size_t kSum = sizeof(std::uint64_t);
  const std::size_t magic = std::char_traits<char>::length(kMagic);
  if (bytes.size() < magic + kSum || bytes.compare(0, magic, kMagic) != 0)
    throw InputError("'" + file + "' is not a tracewarp checkpoint (or is damaged)");
  std::uint64_t checksum;
  std::memcpy(&checksum, bytes.data() + bytes.size() - kSum, kSum);
  const std::string_view body(bytes.data(), bytes.size() - kSum);
  if (fnv1a(body) != checksum) throw InputError("checkpoint '" + file + "' is damaged (checksum mismatch)");
  return body.substr(magic);
}

RankHeader read_header(persist::Reader& r) {
  RankHeader h;
  r(h.identity, h.ranks, h.rank, h.lp_count, h.generation, h.at, h.committed);
  return h;
}

// This rank's files in `dir`: their generations, newest first.
std::uint64_t newest_rank_file(const std::string& dir, int rank) {
  std::uint64_t newest = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    unsigned long long generation = 0;
    int file_rank = -1;
    char tail = 0;
    if (std::sscanf(entry.path().filename().c_str(), "gen-%llu.rank-%d%c", &generation, &file_rank, &tail) == 2 &&
        file_rank == rank)
      newest = std::max<std::uint64_t>(newest, generation);
  }
  return newest;
}

}  // namespace

Checkpointer::Checkpointer(const KernelSetup& setup)
    : setup_(setup),
      every_s_(setup.config.checkpoint_every_s),
      dir_(setup.config.checkpoint_dir),
      last_(steady_seconds()) {
  const bool persistable =
      std::all_of(setup.lps.begin(), setup.lps.end(), [](const LocalLp& lp) { return lp.runtime->persistable(); });
  saves_on_stop_ = !dir_.empty() && persistable;
  if (!enabled() && !setup.config.resume) return;
  if (dir_.empty()) throw UsageError("checkpoints need a directory (EngineConfig::checkpoint_dir)");
  if (!enabled()) return;
  for (const LocalLp& lp : setup.lps)
    if (!lp.runtime->persistable())
      throw UsageError("engine.checkpoint_every_s: LP " + std::to_string(lp.id) +
                       " is of a type that cannot be checkpointed (its class lists no state with TRACEWARP_PERSIST)");
}

bool Checkpointer::due() {
  if (saves_on_stop_ && stop_requested()) return true;
  return enabled() && ++chances_ >= setup_.config.checkpoint_min_gap && steady_seconds() - last_ >= every_s_;
}

std::string Checkpointer::rank_file(std::uint64_t generation, int rank) const {
  char name[64];
  std::snprintf(name, sizeof name, "/gen-%06llu.rank-%04d", static_cast<unsigned long long>(generation), rank);
  return dir_ + name;
}

// Header, LPs (id, send counter, state), pending events, model objects; then a checksum of all.
std::string Checkpointer::encode(const CommittedState& state, std::uint64_t generation) const {
  persist::Writer w;
  w.bytes(kMagic, std::char_traits<char>::length(kMagic));
  w(setup_.config.identity, static_cast<std::int32_t>(setup_.comm.size()),
    static_cast<std::int32_t>(setup_.comm.rank()), setup_.lp_count, generation, state.at, state.committed);
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

void Checkpointer::check_header(const std::string& bytes, const std::string& file, std::uint64_t generation,
                                std::optional<Time> at) const {
  persist::Reader r(verified_body(bytes, file), "checkpoint '" + file + "'");
  const RankHeader h = read_header(r);
  // Whole, but of another run or layout: never overwritten or passed over (UsageError).
  if (h.identity != setup_.config.identity)
    throw UsageError("checkpoint '" + file + "' belongs to another run (" + h.identity + "; this is " +
                     setup_.config.identity + ")");
  if (h.ranks != setup_.comm.size() || h.rank != setup_.comm.rank() || h.lp_count != setup_.lp_count)
    throw UsageError("checkpoint '" + file + "' was written by rank " + std::to_string(h.rank) + " of " +
                     std::to_string(h.ranks) + " with " + std::to_string(h.lp_count) + " LPs; resume it on " +
                     std::to_string(h.ranks) + " ranks");
  if (h.generation != generation || (at && h.at != *at))
    throw InputError("checkpoint '" + file + "' holds generation " + std::to_string(h.generation) + " at time " +
                     std::to_string(h.at) + ", not the generation " + std::to_string(generation) +
                     (at ? " at time " + std::to_string(*at) : std::string()) + " its name and 'latest' say");
}

CommittedState Checkpointer::decode(const std::string& bytes, const std::string& file) {
  persist::Reader r(verified_body(bytes, file), "checkpoint '" + file + "'");
  const RankHeader h = read_header(r);  // checked by check_header on every rank already
  CommittedState state;
  state.at = h.at;
  state.committed = h.committed;
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
    const std::string bytes = encode(state, next);
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
  if (rank == 0) write_atomically(dir_ + "/latest", latest_text({next, setup_.comm.size(), state.at}));
  setup_.comm.barrier();
  if (generation_ > 1) fs::remove(rank_file(generation_ - 1, rank));  // the previous one stays
  generation_ = next;
  ++saved_;
  chances_ = 0;
  last_ = steady_seconds();
  seconds_ += last_ - start;
  if (setup_.comm.max(saves_on_stop_ && stop_requested() ? 1.0 : 0.0) > 0)
    throw StoppedError("stopped on request at simulated time " + std::to_string(to_seconds(state.at)) +
                       " s, saved in '" + dir_ + "'");
}

std::optional<CommittedState> Checkpointer::restore() {
  if (!setup_.config.resume) return std::nullopt;
  const int rank = setup_.comm.rank();
  std::optional<Latest> latest;
  std::string damage;
  try {
    latest = read_latest(dir_);
  } catch (const InputError& e) {
    damage = e.what();  // then the newest rank files on disk are tried, as `latest` would have named
  }
  if (latest && latest->ranks != setup_.comm.size())
    throw UsageError("the checkpoint in '" + dir_ + "' was written by " + std::to_string(latest->ranks) +
                     " ranks; resume it on " + std::to_string(latest->ranks) + " ranks (this run has " +
                     std::to_string(setup_.comm.size()) + ")");
  std::uint64_t newest[1] = {latest ? latest->generation : newest_rank_file(dir_, rank)};
  if (!latest) setup_.comm.max(newest);
  if (!latest && damage.empty()) return std::nullopt;  // killed before its first checkpoint was whole

  // The newest generation, or the one before it, whose every rank file is whole, of this run, of
  // that generation, and of one committed time: all ranks agree on each step before any loads.
  for (std::uint64_t generation = newest[0]; generation > 0 && generation + 1 >= newest[0]; --generation) {
    const std::string file = rank_file(generation, rank);
    std::string bytes, why;
    const std::optional<Time> at =
        latest && generation == latest->generation ? std::optional<Time>(latest->at) : std::nullopt;
    std::uint64_t failed[2] = {0, 0};  // damaged, another run's
    try {
      bytes = read_whole_file(file);
      check_header(bytes, file, generation, at);
    } catch (const InputError& e) {
      why = e.what();
      failed[0] = 1;
    } catch (const UsageError& e) {
      why = e.what();
      failed[1] = 1;
    }
    if (!why.empty() && rank != 0)  // rank 0 says what follows; each other rank says its own reason
      std::fprintf(stderr, "tracewarp: warning: rank %d: %s\n", rank, why.c_str());
    const bool foreign_here = failed[1] != 0;
    setup_.comm.sum(failed);
    if (failed[1] != 0)  // every rank, together
      throw UsageError((foreign_here ? why : "another rank's checkpoint belongs to another run") + "; remove '" + dir_ +
                       "' to run this run again from its start");
    if (failed[0] == 0) {
      if (!damage.empty() && rank == 0)
        std::fprintf(stderr, "tracewarp: warning: %s; the run goes on from the checkpoint of generation %llu\n",
                     damage.c_str(), static_cast<unsigned long long>(generation));
      generation_ = generation;
      last_ = steady_seconds();
      return decode(bytes, file);
    }
    if (damage.empty()) damage = why.empty() ? "another rank's part of the newest checkpoint is damaged" : why;
  }
  // Nothing whole to go on from: the run starts again from its beginning (nothing was loaded, and
  // its results are the same, only later), and its old files go so that none is mistaken later.
  if (rank == 0)
    std::fprintf(stderr,
                 "tracewarp: warning: %s, and no whole checkpoint before it: the run starts again from its "
                 "beginning\n",
                 damage.c_str());
  setup_.comm.barrier();
  std::error_code ec;
  for (std::uint64_t g = newest[0] + 1; g > 0; --g) fs::remove(rank_file(g, rank), ec);
  setup_.comm.barrier();
  if (rank == 0) fs::remove(dir_ + "/latest", ec);
  return std::nullopt;
}

}  // namespace tracewarp::detail
