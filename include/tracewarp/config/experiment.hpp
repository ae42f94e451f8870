// Experiment configuration (TOML). An experiment file has sections — experiment, engine,
// workload, output, one per model (phold, ...) — and optionally [sweep], whose keys name other
// keys and give lists of values to cross, and [sweep.paired.<name>] tables, whose keys' lists go
// together value by value (the i-th of each in one run: each trace with its own machine size)
// and cross with the rest as one list:
//   [sweep]
//   "batch.policy" = ["fcfs", "easy"]                 # crossed with the pair below: 4 runs
//   [sweep.paired.machine]
//   "workload.trace" = ["kth.swf", "hpc2n.swf"]
//   "batch.nodes" = [100, 240]
//
// Every key is declared once, with the struct member it sets (core/params.hpp): the sections every
// experiment has in config/settings.hpp, each model's own section with the model (model/registry.hpp
// puts them together). The schema drives validation (unknown keys and wrong types are errors
// naming key and file), --set overrides, and `tracewarp run --keys`, from which
// docs/configuration.md is made.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "tracewarp/core/config.hpp"

namespace tracewarp::config {

// A run of a sweep: its id, its parameters, and what makes it differ from the base.
struct RunSpec {
  std::string id;  // "run-0000", ...
  std::size_t index = 0;
  Config config;
  std::map<std::string, ConfigValue> varied;  // sweep point and seed
  std::string varied_text() const;            // "key=value, ..." of `varied`
};

// One list a sweep crosses: one key (a [sweep] key), or the keys of a [sweep.paired.<name>]
// table, whose lists are as long as each other and taken value by value.
struct SweepDimension {
  std::string paired;  // the paired table's name; empty for a single key
  std::vector<std::pair<std::string, std::vector<ConfigValue>>> keys;
  std::size_t size() const { return keys.front().second.size(); }
};

struct Experiment {
  std::string source;                  // file name
  std::string text;                    // the TOML as read, stored in results
  Config base;                         // defaults < file < --set
  std::vector<SweepDimension> sweep;   // in crossing order, the first slowest
  std::vector<std::string> overrides;  // the --set arguments
  std::vector<std::string> notes;      // what the user should hear (a --set that fixed a swept key)
  std::vector<RunSpec> runs() const;   // expanded: sweep keys in order (first slowest), seeds fastest
  double run_count() const;            // how many runs() gives, without expanding them
};

// The most runs one experiment may expand to (sweep points x replications).
inline constexpr std::int64_t kMaxRuns = 100'000;

// Reads and validates an experiment file against a schema, applying the --set overrides
// (key=value) last.
Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides,
                           const ConfigSchema& schema);
Experiment parse_experiment(const std::string& text, const std::string& source,
                            const std::vector<std::string>& overrides, const ConfigSchema& schema);

}  // namespace tracewarp::config
