// tracewarp report RESULTS.h5: the summary of every run in a results file.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/io/results.hpp"

namespace tracewarp::app {
namespace {

nlohmann::json attr_json(const io::AttrValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::get<std::string>(v);
}

void report(const std::string& path, bool json) {
  const io::ResultsReader file(path);
  const io::Attributes top = file.file_attributes();
  const auto get = [&](const io::Attributes& a, const std::string& k) {
    const auto it = a.find(k);
    return it == a.end() ? std::string("?") : io::to_text(it->second);
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
  for (const std::string& run : file.runs()) {
    const io::Attributes attrs = file.run_attributes(run);
    nlohmann::json entry = {{"id", run}, {"varied", get(attrs, "varied")}};
    std::string line;
    try {
      for (const auto& [k, v] : file.summary(run)) {
        entry["summary"][k] = attr_json(v);
        line += (line.empty() ? "" : ", ") + k + "=" + io::to_text(v);
      }
    } catch (const IoError&) {
      line = "(no summary: run not finished)";
    }
    out["runs"].push_back(entry);
    if (!json) std::printf("  %s  %-40s  %s\n", run.c_str(), get(attrs, "varied").c_str(), line.c_str());
  }
  if (json) std::cout << out.dump() << '\n';
  if (!complete) throw RunError(path + " is incomplete: the run that wrote it did not finish");
}

}  // namespace

void add_report_command(CLI::App& app, Action& action) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("report", "print the summary table of every run in a results file");
  cmd->add_option("results", *path, "results file (HDF5) written by tracewarp run")->required();
  cmd->add_flag("--json", *json, "print one JSON object");
  cmd->callback([path, json, &action] {
    action = [path, json] {
      if (Communicator::world().rank() == 0) report(*path, *json);
    };
  });
}

}  // namespace tracewarp::app
