#include "tracewarp/experiment/journal.hpp"

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/files.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/workload/configured.hpp"

namespace tracewarp::experiment {
namespace {

namespace fs = std::filesystem;
constexpr const char* kRunMagic = "tracewarp-journal-run 2";

std::string hex(std::uint64_t v) {
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

std::string hex32(std::uint32_t v) {
  char text[12];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(v));
  return text;
}

// "tracewarp-journal-run 2\n<digest>\n<run index>\n<size>\n<crc32 of the output>\n" then the
// output's bytes. Every field is checked on load: a flipped bit anywhere drops the record.
std::string run_header(const SweepIdentity& identity, std::size_t index, std::size_t size, std::uint32_t crc) {
  return std::string(kRunMagic) + "\n" + identity.parameters_digest + "\n" + std::to_string(index) + "\n" +
         std::to_string(size) + "\n" + hex32(crc) + "\n";
}

constexpr std::string_view kChecksumLine = "checksum: ";

// What an input file holds: "<size> bytes, crc32 <hex>" of its content, or "" where the value
// names no regular file (engine.placement = "block"). The content, not the path, is what a run
// depends on: a data folder moved between allocations still resumes, a trace replaced in place
// or a data folder pointed elsewhere does not. Each file is read once per process.
std::string input_fingerprint(const std::string& given) {
  const std::string path = workload::expand_data_path(given);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return {};
  const auto size = fs::file_size(path, ec);
  const auto modified = fs::last_write_time(path, ec).time_since_epoch().count();
  const std::string key =
      fs::weakly_canonical(path, ec).string() + "\n" + std::to_string(size) + " " + std::to_string(modified);
  static std::map<std::string, std::string> known;
  if (const auto it = known.find(key); it != known.end()) return it->second;
  const std::string bytes = read_whole_file(path);
  char text[64];
  std::snprintf(text, sizeof text, "%zu bytes, crc32 %08x", bytes.size(), static_cast<unsigned>(crc32_of(bytes)));
  return known[key] = text;
}

bool names_input_file(const std::string& key) {
  const ConfigKey* k = find_config_key(config_schema(), key);
  return k != nullptr && k->names_input_file;
}

}  // namespace

SweepIdentity SweepIdentity::of(const config::Experiment& experiment, const std::vector<config::RunSpec>& runs,
                                const std::string& model, const std::string& tool_version,
                                const std::string& git_revision) {
  SweepIdentity id{tool_version, git_revision, model, runs.size(), {}, {}};
  for (const auto& [key, value] : experiment.base.values()) id.parameters[key] = tracewarp::to_string(value);
  for (const config::SweepDimension& d : experiment.sweep)
    for (const auto& [key, values] : d.keys) {
      std::string list;
      for (const ConfigValue& v : values) list += (list.empty() ? "[" : ", ") + tracewarp::to_string(v);
      id.parameters[key] = list + (d.paired.empty() ? "] (swept)" : "] (swept, paired: " + d.paired + ")");
    }
  std::uint64_t h = fnv1a("");
  const auto mix = [&h](const std::string& s) { h = fnv1a(s, h); };
  for (const config::RunSpec& run : runs) {
    mix(run.id + "\n");
    for (const auto& [key, value] : run.config.values()) {
      mix(key + " = " + tracewarp::to_string(value) + "\n");
      if (!names_input_file(key) || !std::holds_alternative<std::string>(value)) continue;
      const std::string& given = std::get<std::string>(value);
      const std::string content = input_fingerprint(given);
      if (content.empty()) continue;
      id.parameters["input " + given] = content;
      mix("input " + given + " = " + content + "\n");
    }
  }
  id.parameters_digest = hex(h);
  return id;
}

std::string SweepIdentity::text() const {
  std::string t = "tool_version: " + tool_version + "\ngit_revision: " + git_revision + "\nmodel: " + model +
                  "\nruns: " + std::to_string(runs) + "\nparameters_digest: " + parameters_digest + "\n";
  for (const auto& [key, value] : parameters) t += "parameter: " + key + " = " + value + "\n";
  return t + std::string(kChecksumLine) + hex32(crc32_of(t)) + "\n";
}

SweepIdentity SweepIdentity::parse(const std::string& text) {
  // The last line is the checksum of all before it: a damaged identity is never compared.
  const std::size_t at = text.rfind(kChecksumLine);
  if (at == std::string::npos || (at > 0 && text[at - 1] != '\n') ||
      text.substr(at + kChecksumLine.size()) != hex32(crc32_of(std::string_view(text).substr(0, at))) + "\n")
    throw InputError("damaged (checksum mismatch)");
  SweepIdentity id;
  std::istringstream in(text.substr(0, at));
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(": ");
    if (colon == std::string::npos) continue;
    const std::string name = line.substr(0, colon), value = line.substr(colon + 2);
    if (name == "tool_version") id.tool_version = value;
    if (name == "git_revision") id.git_revision = value;
    if (name == "model") id.model = value;
    if (name == "runs") id.runs = std::strtoull(value.c_str(), nullptr, 10);
    if (name == "parameters_digest") id.parameters_digest = value;
    if (name == "parameter") {
      const auto equals = value.find(" = ");
      if (equals != std::string::npos) id.parameters[value.substr(0, equals)] = value.substr(equals + 3);
    }
  }
  return id;
}

std::string SweepIdentity::difference_from(const SweepIdentity& before) const {
  const auto differs = [](const std::string& what, const std::string& was, const std::string& now) {
    return was == now ? std::string() : what + ": was " + was + ", now " + now;
  };
  for (const std::string& d :
       {differs("model", before.model, model), differs("tool version", before.tool_version, tool_version),
        differs("code revision", before.git_revision, git_revision),
        differs("number of runs", std::to_string(before.runs), std::to_string(runs))})
    if (!d.empty()) return d;
  for (const auto& [key, value] : parameters) {
    const auto it = before.parameters.find(key);
    const std::string d = differs(key, it == before.parameters.end() ? "(not set)" : it->second, value);
    if (!d.empty()) return d;
  }
  for (const std::string& d : {differs("parameters of the runs (digest)", before.parameters_digest, parameters_digest)})
    if (!d.empty()) return d;
  return {};
}

SweepJournal::SweepJournal(const std::string& output, SweepIdentity identity)
    : dir_(directory_of(output)), identity_(std::move(identity)) {}

bool SweepJournal::exists() const { return fs::is_directory(dir_); }

std::optional<SweepIdentity> SweepJournal::recorded_identity() const {
  std::error_code ec;
  if (!fs::is_regular_file(dir_ + "/identity", ec)) return std::nullopt;
  try {
    return SweepIdentity::parse(read_whole_file(dir_ + "/identity"));
  } catch (const InputError& e) {
    throw InputError("'" + dir_ + "/identity' is " + e.what() + ": remove '" + dir_ + "' to start again");
  }
}

void SweepJournal::start() const {
  std::error_code ec;
  fs::create_directory(dir_, ec);  // not create_directories: a mistyped folder is an error, not made
  if (ec) throw UsageError("cannot create results file: its journal '" + dir_ + "': " + ec.message());
  write_atomically(dir_ + "/identity", identity_.text());
  clear_failure();
}

std::string SweepJournal::run_file(std::size_t run_index) const {
  char name[32];
  std::snprintf(name, sizeof name, "/run-%06zu.out", run_index);
  return dir_ + name;
}

std::size_t SweepJournal::recorded_count() const {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("run-", 0) == 0 && entry.path().extension() == ".out") ++n;
  }
  return n;
}

std::vector<std::size_t> SweepJournal::finished() const {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < identity_.runs; ++i) {
    if (!has(i)) continue;
    try {
      load(i);
      indices.push_back(i);
    } catch (const Error& e) {
      std::fprintf(stderr, "tracewarp: warning: %s; that run runs again\n", e.what());
    }
  }
  return indices;
}

bool SweepJournal::has(std::size_t run_index) const {
  std::error_code ec;
  return fs::is_regular_file(run_file(run_index), ec);
}

void SweepJournal::record(const config::RunSpec& run, std::span<const std::string_view> output_parts) const {
  std::size_t size = 0;
  for (const std::string_view part : output_parts) size += part.size();
  const std::string header = run_header(identity_, run.index, size, crc32_of(output_parts));
  std::vector<std::string_view> parts{header};
  parts.insert(parts.end(), output_parts.begin(), output_parts.end());
  write_atomically(run_file(run.index), parts);
}

std::string SweepJournal::load(std::size_t run_index) const {
  const std::string path = run_file(run_index);
  const std::string bytes = read_whole_file(path);
  std::istringstream in(bytes);
  std::string magic, digest, index, size, crc;
  std::getline(in, magic);
  std::getline(in, digest);
  std::getline(in, index);
  std::getline(in, size);
  std::getline(in, crc);
  if (!in || magic != kRunMagic) throw InputError(path + ": not a tracewarp journal record (or damaged)");
  if (digest != identity_.parameters_digest) throw InputError(path + ": recorded by another sweep (or damaged)");
  if (index != std::to_string(run_index)) throw InputError(path + ": damaged (holds run '" + index + "')");
  const auto start = static_cast<std::size_t>(in.tellg());
  if (size != std::to_string(bytes.size() - start)) throw InputError(path + ": damaged (wrong length)");
  const std::string_view output = std::string_view(bytes).substr(start);
  if (crc != hex32(crc32_of(output))) throw InputError(path + ": damaged (checksum mismatch)");
  return std::string(output);
}

std::string SweepJournal::checkpoint_directory(std::size_t run_index) const {
  const std::string out = run_file(run_index);
  return out.substr(0, out.size() - 4) + ".checkpoint";
}

std::string SweepJournal::checkpoint_identity(std::size_t run_index) const {
  return "sweep " + identity_.parameters_digest + " revision " + identity_.git_revision + " run " +
         std::to_string(run_index);
}

void SweepJournal::remove_checkpoints(std::size_t run_index) const {
  std::error_code ec;
  fs::remove_all(checkpoint_directory(run_index), ec);
}

std::size_t SweepJournal::checkpointed_runs() const {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("run-", 0) == 0 && entry.path().extension() == ".checkpoint" &&
        fs::exists(entry.path() / "latest", ec))
      ++n;
  }
  return n;
}

void SweepJournal::record_failure(const std::string& reason) const noexcept {
  try {
    if (exists()) write_atomically(dir_ + "/failed", reason + "\n");
  } catch (...) {  // the reason reached stderr already; the journal's runs are what matter
  }
}

std::optional<std::string> SweepJournal::failure() const {
  std::error_code ec;
  if (!fs::is_regular_file(dir_ + "/failed", ec)) return std::nullopt;
  std::string reason = read_whole_file(dir_ + "/failed");
  while (!reason.empty() && reason.back() == '\n') reason.pop_back();
  return reason;
}

void SweepJournal::clear_failure() const {
  std::error_code ec;
  fs::remove(dir_ + "/failed", ec);
}

void SweepJournal::remove() const {
  std::error_code ec;
  fs::remove_all(dir_, ec);
  if (ec) std::fprintf(stderr, "tracewarp: warning: cannot remove '%s': %s\n", dir_.c_str(), ec.message().c_str());
}

}  // namespace tracewarp::experiment
