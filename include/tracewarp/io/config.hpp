// Experiment configuration (TOML). An experiment file has sections — experiment, engine,
// workload, output, one per model (phold, ...) — and optionally [sweep], whose keys name other
// keys and give lists of values to cross.
//
// Every key is declared once, with the struct member it sets (io/params.hpp): the sections every
// experiment has in io/settings.hpp, each model's own section with the model (model/registry.hpp
// puts them together). The schema drives validation (unknown keys and wrong types are errors
// naming key and file), --set overrides, and `tracewarp run --keys`, from which
// docs/configuration.md is made.
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

using ConfigSchema = std::vector<ConfigKey>;

const ConfigKey* find_config_key(const ConfigSchema& schema, const std::string& name);
std::string to_string(const ConfigValue& value);

// One fully resolved parameter set: every key of its schema has a value.
class Config {
 public:
  explicit Config(const ConfigSchema& schema);  // all defaults; the schema must outlive the Config

  bool get_bool(const std::string& key) const;
  std::int64_t get_int(const std::string& key) const;
  double get_number(const std::string& key) const;  // integers convert
  const std::string& get_string(const std::string& key) const;
  const std::map<std::string, ConfigValue>& values() const { return values_; }
  const ConfigSchema& schema() const { return *schema_; }

  // Sets a declared key, checking (and where lossless converting) the type; `origin` names the
  // file or option in errors.
  void set(const std::string& key, const ConfigValue& value, const std::string& origin);
  // Parses `text` as the declared type of key (for --set key=value).
  void set_from_text(const std::string& key, const std::string& text, const std::string& origin);

 private:
  const ConfigSchema* schema_;
  std::map<std::string, ConfigValue> values_;
};

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

}  // namespace tracewarp::io
