// tracewarp report RESULTS.h5: the summary of every run in a results file.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

#include "commands.hpp"
#include "run_table.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/files.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/experiment/journal.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/results/file.hpp"

namespace tracewarp::app {
namespace {

nlohmann::json attr_json(const AttrValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::get<std::string>(v);
}

// An interrupted run leaves "<file>.partial" (and the journal "<file>.journal"): either name
// reports it.
std::string file_to_read(const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::exists(path) && fs::exists(path + ".partial")) return path + ".partial";
  if (fs::exists(path + ".partial"))
    std::fprintf(stderr, "tracewarp: note: %s.partial is a newer run, still going or interrupted: report it by name\n",
                 path.c_str());
  return path;
}

std::string final_name(const std::string& path) {
  const std::string suffix = ".partial";
  const bool partial =
      path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return partial ? path.substr(0, path.size() - suffix.size()) : path;
}

std::size_t journaled_runs(const std::string& output) { return experiment::SweepJournal(output, {}).recorded_count(); }
// "failed: <reason>; " when the run that wrote the file recorded why it stopped, else nothing
// (it was killed, or is still going).
std::string failure(const std::string& output) {
  const std::optional<std::string> why = experiment::SweepJournal(output, {}).failure();
  return why ? "failed: " + *why + "; " : "";
}
std::string checkpointed_runs(const std::string& output) {
  const std::size_t n = experiment::SweepJournal(output, {}).checkpointed_runs();
  return n == 0 ? "" : ", " + std::to_string(n) + " run(s) in progress continue from their checkpoints";
}

// A word for a POSIX shell, whatever it holds: the hint is built from the file's attributes, which
// a crafted file chooses, and the user is told to paste it.
std::string shell_quoted(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_-./=:,@%+", c) != nullptr;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// `tracewarp run CONFIG -o OUTPUT --set ... --resume`, every word quoted for the shell.
std::string resume_command(const Attributes& top, const std::string& output) {
  const auto it = top.find("config_file");
  std::string command = "`tracewarp run " +
                        shell_quoted(it == top.end() ? std::string("CONFIG") : to_text(it->second)) + " -o " +
                        shell_quoted(output);
  if (const auto sets = top.find("set_options"); sets != top.end()) {
    std::istringstream lines(to_text(sets->second));
    for (std::string line; std::getline(lines, line);) command += " --set " + shell_quoted(line);
  }
  return command + " --resume`";
}

void report(const std::string& given, bool json, const std::string& columns) {
  const std::string path = file_to_read(given);
  const std::string output = final_name(path);
  std::unique_ptr<results::Reader> reader;
  try {
    reader = std::make_unique<results::Reader>(path);
  } catch (const InputError&) {
    if (const std::optional<std::string> writer = FileLock::holder(output + ".lock"))
      throw RunError(path + " is being written by a run in progress (" + *writer +
                     " holds its lock): report it again when that run has ended");
    const std::size_t kept = journaled_runs(output);
    if (kept == 0) throw;
    const std::string why = failure(output);
    throw RunError(path + " is unreadable (" +
                   (why.empty() ? "its run was killed while writing it" : why.substr(0, why.size() - 2)) + "), but " +
                   std::to_string(kept) + " finished run(s) are kept in " +
                   experiment::SweepJournal::directory_of(output) + ": `tracewarp run CONFIG -o " +
                   shell_quoted(output) + " --resume` (with its --set options) rebuilds the file and runs the rest");
  }
  const results::Reader& file = *reader;
  const Attributes top = file.file_attributes();
  const auto get = [&](const Attributes& a, const std::string& k) {
    const auto it = a.find(k);
    return it == a.end() ? std::string("?") : to_text(it->second);
  };
  const bool complete = file.complete();
  nlohmann::json out = {{"file", path}, {"complete", complete}, {"runs", nlohmann::json::array()}};
  for (const char* k : {"model", "config_file", "start_time", "end_time", "ranks", "git_revision"})
    if (top.count(k)) out[k] = attr_json(top.at(k));
  if (!json) {
    std::printf("%s: %s, model %s, %s runs, %s ranks, started %s%s\n", path.c_str(),
                complete ? "complete" : "INCOMPLETE", get(top, "model").c_str(), get(top, "runs").c_str(),
                get(top, "ranks").c_str(), get(top, "start_time").c_str(),
                complete ? "" : " (the run that wrote it did not finish)");
  }
  // The text table's rows: its columns are known once every run's swept keys are.
  std::vector<std::tuple<std::string, Attributes, std::optional<Attributes>>> rows;
  std::vector<std::string> swept;
  const Attributes* first_summary = nullptr;
  for (const std::string& run : file.runs()) {
    const Attributes attrs = file.run_attributes(run);
    nlohmann::json entry = {{"id", run}, {"varied", get(attrs, "varied")}};
    std::optional<Attributes> summary;
    try {
      summary = file.summary(run);
      for (const auto& [k, v] : *summary) entry["summary"][k] = attr_json(v);
    } catch (const IoError&) {  // the run did not finish
    }
    out["runs"].push_back(entry);
    const std::string varied = attrs.count("varied") ? to_text(attrs.at("varied")) : "";
    for (const std::string& key : swept_keys(varied))
      if (std::find(swept.begin(), swept.end(), key) == swept.end()) swept.push_back(key);
    rows.emplace_back(run, swept_values(varied, attrs), std::move(summary));
  }
  const Attributes* first_values = rows.empty() ? nullptr : &std::get<1>(rows.front());
  for (const auto& row : rows)
    if (!first_summary && std::get<2>(row)) first_summary = &*std::get<2>(row);
  if (!json && !rows.empty()) {
    const std::string model = top.count("model") ? to_text(top.at("model")) : "";
    std::vector<std::string> headline;
    for (const model::ModelInfo& m : model::models())
      if (m.name == model) headline = m.headline;
    RunTable table(swept, table_columns(columns, headline.empty() ? std::vector<std::string>{"all"} : headline));
    table.fit(*first_values, first_summary ? *first_summary : Attributes{});
    for (const auto& [run, values, summary] : rows) table.fit(values, summary ? *summary : Attributes{});
    std::printf("%s\n", table.header().c_str());
    if (first_summary)
      for (const std::string& name : table.missing(*first_summary))
        std::fprintf(stderr, "tracewarp: warning: --columns: the runs have no figure '%s'\n", name.c_str());
    for (const auto& [run, values, summary] : rows)
      std::printf("%s\n", summary ? table.row(run, values, *summary).c_str()
                                  : table.row(run, values, {}, "(no summary: run not finished)").c_str());
  }
  if (json) std::cout << out.dump() << '\n';
  if (!complete) {
    throw RunError(path + " is incomplete: " + failure(output) + std::to_string(file.runs().size()) + " of " +
                   get(top, "runs") + " runs are in it (listed above), " + std::to_string(journaled_runs(output)) +
                   " finished runs are kept in its journal" + checkpointed_runs(output) + "; " +
                   resume_command(top, output) + " runs the rest");
  }
}

}  // namespace

void add_report_command(CLI::App& app, Action& action) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto columns = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("report", "print the summary table of every run in a results file");
  cmd->add_option("results", *path, "results file (HDF5) written by tracewarp run")->required();
  cmd->add_flag("--json", *json, "print one JSON object");
  cmd->add_option("--columns", *columns,
                  "the summary figures of the table, NAME,NAME,... or all (default: the model's headline figures)");
  cmd->callback([path, json, columns, &action] {
    action = [path, json, columns] {
      if (Communicator::world().rank() == 0) report(*path, *json, *columns);
    };
  });
}

}  // namespace tracewarp::app
