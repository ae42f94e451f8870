#include "tracewarp/engine/partition.hpp"

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "tracewarp/core/error.hpp"

namespace tracewarp {

SyncMode parse_sync_mode(const std::string& name) {
  if (name == "sequential") return SyncMode::sequential;
  if (name == "optimistic") return SyncMode::optimistic;
  if (name == "rollback-check") return SyncMode::rollback_check;
  if (name == "conservative") return SyncMode::conservative;
  throw UsageError("unknown synchronisation mode '" + name +
                   "' (expected sequential, optimistic, conservative or rollback-check)");
}

std::string to_string(SyncMode mode) {
  switch (mode) {
    case SyncMode::sequential:
      return "sequential";
    case SyncMode::optimistic:
      return "optimistic";
    case SyncMode::rollback_check:
      return "rollback-check";
    case SyncMode::conservative:
      return "conservative";
  }
  return "?";
}

Placement parse_placement(const std::string& text) {
  if (text == "block") return {PlacementKind::block, {}};
  if (text == "round-robin") return {PlacementKind::round_robin, {}};
  return {PlacementKind::file, text};
}

Partition Partition::block(LpId lps, int ranks) {
  Partition p;
  p.kind_ = PlacementKind::block;
  p.lps_ = lps;
  p.ranks_ = ranks;
  p.quota_ = lps / static_cast<LpId>(ranks);
  p.big_ = lps % static_cast<LpId>(ranks);
  return p;
}

Partition Partition::round_robin(LpId lps, int ranks) {
  Partition p;
  p.kind_ = PlacementKind::round_robin;
  p.lps_ = lps;
  p.ranks_ = ranks;
  return p;
}

// Format (partitions/README.md): '#' comments, then "lps N", "ranks R", then inclusive ranges
// "FIRST LAST RANK" in increasing order that cover 0..N-1 exactly once.
void Partition::check_file(const Placement& placement, int ranks) {
  if (placement.kind != PlacementKind::file) return;
  std::error_code ec;
  if (std::filesystem::exists(placement.file, ec) && std::filesystem::is_regular_file(placement.file, ec)) {
    std::ifstream in(placement.file);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line.substr(0, line.find('#')));
      std::string first;
      long long lps = 0;
      if (fields >> first && first == "lps" && fields >> lps && lps > 0 &&
          static_cast<unsigned long long>(lps) < std::numeric_limits<LpId>::max()) {
        from_file(placement.file, static_cast<LpId>(lps), ranks);
        return;
      }
    }
  }
  from_file(placement.file, 1, ranks);  // says what is wrong: no file, no "lps" line first
}

Partition Partition::from_file(const std::string& path, LpId lps, int ranks) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InputError("partition file '" + path + "' is not a regular file");  // a FIFO would be read once
  std::ifstream in(path);
  if (!in) throw InputError("cannot open partition file '" + path + "'");
  Partition p;
  p.kind_ = PlacementKind::file;
  p.lps_ = lps;
  p.ranks_ = ranks;
  p.owner_.assign(lps, -1);
  std::string line;
  long line_no = 0;
  LpId next = 0;
  bool have_lps = false, have_ranks = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::string first;
    if (!(fields >> first)) continue;
    if (first == "lps" || first == "ranks") {
      long long value = -1;
      if (!(fields >> value) || value < 1) throw InputError(path, line_no, first, "expected a positive integer");
      if (first == "lps" && static_cast<LpId>(value) != lps)
        throw InputError(path, line_no, "lps",
                         "file is for " + std::to_string(value) + " LPs, the model has " + std::to_string(lps));
      if (first == "ranks" && value != ranks)
        throw InputError(path, line_no, "ranks",
                         "file is for " + std::to_string(value) + " ranks, the run has " + std::to_string(ranks));
      (first == "lps" ? have_lps : have_ranks) = true;
      continue;
    }
    if (!have_lps || !have_ranks) throw InputError(path, line_no, "header", "'lps N' and 'ranks R' must come first");
    unsigned long long lo = 0, hi = 0;
    long long rank = -1;
    std::string extra;
    try {
      lo = std::stoull(first);
    } catch (const std::exception&) {
      throw InputError(path, line_no, "first", "expected an LP id, got '" + first + "'");
    }
    if (!(fields >> hi)) throw InputError(path, line_no, "last", "expected an LP id");
    if (!(fields >> rank)) throw InputError(path, line_no, "rank", "expected a rank");
    if (fields >> extra) throw InputError(path, line_no, "rank", "unexpected text '" + extra + "' after the rank");
    if (lo != next) throw InputError(path, line_no, "first", "range must start at LP " + std::to_string(next));
    if (hi < lo || hi >= lps) throw InputError(path, line_no, "last", "range end out of order or beyond the last LP");
    if (rank < 0 || rank >= ranks) throw InputError(path, line_no, "rank", "rank out of range");
    for (LpId id = lo; id <= hi; ++id) p.owner_[id] = static_cast<std::int32_t>(rank);
    next = hi + 1;
  }
  if (next != lps)
    throw InputError(path, line_no, "last",
                     "ranges end at LP " + std::to_string(next) + ", the model has " + std::to_string(lps) + " LPs");
  return p;
}

Partition Partition::make(const Placement& placement, LpId lps, int ranks) {
  switch (placement.kind) {
    case PlacementKind::block:
      return block(lps, ranks);
    case PlacementKind::round_robin:
      return round_robin(lps, ranks);
    case PlacementKind::file:
      return from_file(placement.file, lps, ranks);
  }
  return block(lps, ranks);
}

}  // namespace tracewarp
