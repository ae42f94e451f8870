// Experiment configuration (TOML). An experiment file has sections — experiment, engine,
// workload, output, one per model (phold, ...) — and optionally [sweep], whose keys name other
// keys and give lists of values to cross.
//
// Every key is declared once in a registry (key, type, default, meaning); the registry drives
// validation (unknown keys and wrong types are errors naming key and file), --set overrides,
// and `tracewarp run --keys`, from which docs/configuration.md is made.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace tracewarp::io {

using ConfigValue = std::variant<bool, std::int64_t, double, std::string>;
enum class ConfigType { boolean, integer, number, string };

struct ConfigKey {
  std::string name;  // "section.key"
  ConfigType type;
  ConfigValue default_value;
  std::string meaning;
};

// All keys, in documentation order.
const std::vector<ConfigKey>& config_keys();
const ConfigKey* find_config_key(const std::string& name);
std::string to_string(const ConfigValue& value);

// One fully resolved parameter set: every key has a value.
class Config {
 public:
  Config();  // all defaults

  bool get_bool(const std::string& key) const;
  std::int64_t get_int(const std::string& key) const;
  double get_number(const std::string& key) const;  // integers convert
  const std::string& get_string(const std::string& key) const;
  const std::map<std::string, ConfigValue>& values() const { return values_; }

  // Sets a declared key, checking (and where lossless converting) the type; `origin` names the
  // file or option in errors.
  void set(const std::string& key, const ConfigValue& value, const std::string& origin);
  // Parses `text` as the declared type of key (for --set key=value).
  void set_from_text(const std::string& key, const std::string& text, const std::string& origin);

 private:
  std::map<std::string, ConfigValue> values_;
};

// A run of a sweep: its id, its parameters, and what makes it differ from the base.
struct RunSpec {
  std::string id;  // "run-0000", ...
  std::size_t index = 0;
  Config config;
  std::map<std::string, ConfigValue> varied;  // sweep point and seed
};

struct Experiment {
  std::string source;                                                   // file name
  std::string text;                                                     // the TOML as read, stored in results
  Config base;                                                          // defaults < file < --set
  std::vector<std::pair<std::string, std::vector<ConfigValue>>> sweep;  // key order = crossing order
  std::vector<std::string> overrides;                                   // the --set arguments
  std::vector<RunSpec> runs() const;  // expanded: sweep keys in order (first slowest), seeds fastest
};

// Reads and validates an experiment file, applying the --set overrides (key=value) last.
Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides);
Experiment parse_experiment(const std::string& text, const std::string& source,
                            const std::vector<std::string>& overrides);

}  // namespace tracewarp::io
