// Experiment configuration (TOML). An experiment file has sections — experiment, engine,
// workload, output, one per model (phold, ...) — and optionally [sweep], whose keys name other
// keys and give lists of values to cross.
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

struct Experiment {
  std::string source;                                                   // file name
  std::string text;                                                     // the TOML as read, stored in results
  Config base;                                                          // defaults < file < --set
  std::vector<std::pair<std::string, std::vector<ConfigValue>>> sweep;  // key order = crossing order
  std::vector<std::string> overrides;                                   // the --set arguments
  std::vector<RunSpec> runs() const;  // expanded: sweep keys in order (first slowest), seeds fastest
  double run_count() const;           // how many runs() gives, without expanding them
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
