// Configuration values: every key of every layer is declared with a name, a type, a default and a
// meaning (core/params.hpp binds keys to struct members), and one Config holds a value for each
// declared key. Layers declare their keys beside their code; the TOML experiment files that set
// them are read in config/, which is above every layer.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace tracewarp {

using ConfigValue = std::variant<bool, std::int64_t, double, std::string>;
enum class ConfigType { boolean, integer, number, string };

struct ConfigKey {
  std::string name;  // "section.key"
  ConfigType type;
  ConfigValue default_value;
  std::string meaning;
  // Its value names a file the run reads (after ${TRACEWARP_DATA} is expanded): a resumed sweep
  // checks that file's content is what the interrupted one read (experiment/journal.hpp).
  bool names_input_file = false;
  // Read once for a whole sweep (the model, the output file, the replications, the rank layout),
  // not per run: a sweep over it would be silently ignored, so a sweep may not list it.
  bool whole_sweep_only = false;
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
  // Where a key's value was given (a file's name, "--set"); empty for a default. Errors about a
  // value name it, so a bad value is found where it was written.
  std::string origin_of(const std::string& key) const;
  const ConfigSchema& schema() const { return *schema_; }

  // Sets a declared key, checking (and where lossless converting) the type; `origin` names the
  // file or option in errors.
  void set(const std::string& key, const ConfigValue& value, const std::string& origin);
  // Parses `text` as the declared type of key (for --set key=value).
  void set_from_text(const std::string& key, const std::string& text, const std::string& origin);

 private:
  const ConfigSchema* schema_;
  std::map<std::string, ConfigValue> values_;
  std::map<std::string, std::string> origins_;
};

}  // namespace tracewarp
