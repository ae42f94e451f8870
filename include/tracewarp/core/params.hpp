// A component's parameters declared once: a plain struct whose default member initialisers are
// the defaults, plus one table binding each configuration key to a member with its meaning and
// validation. The table yields the component's configuration schema (so `--keys`,
// docs/configuration.md and type errors come from it) and reads a validated struct back from a
// resolved Config; range and choice errors name the key.
//
//   struct HostParams { std::uint32_t hosts = 1600; double grain = 1e10; Time step = from_seconds(10); };
//   const ParamTable<HostParams>& table() {
//     static const auto t = ParamTable<HostParams>("replication")
//         .integer("hosts", &HostParams::hosts, "resources (LPs)", {.min = 1})
//         .number("grain", &HostParams::grain, "work per task, floating-point operations", {.min = 1})
//         .seconds("walk_step_s", &HostParams::step, "availability update period", {.min = 1e-9});
//     return t;
//   }
//   HostParams p = table().read(config);  // throws ConfigError("replication.hosts must be >= 1, got 0")
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tracewarp/core/config.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/time.hpp"

namespace tracewarp {

// Inclusive bounds of a numeric parameter.
struct Bounds {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
};

template <class P>
class ParamTable {
 public:
  explicit ParamTable(std::string section) : section_(std::move(section)) {}

  ParamTable&& number(const std::string& key, double P::*member, const std::string& meaning, Bounds b = {}) && {
    b = clock_bounds(key, b);
    add(member, key, ConfigType::number, P{}.*member, meaning + range_text(b),
        [=, name = full(key)](const Config& c, P& p) { p.*member = checked(c, name, c.get_number(name), b); });
    return std::move(*this);
  }
  // A duration keyed in seconds, held in engine ticks.
  ParamTable&& seconds(const std::string& key, Time P::*member, const std::string& meaning, Bounds b = {}) && {
    b = clock_bounds(key, b);
    add(member, key, ConfigType::number, to_seconds(P{}.*member), meaning + range_text(b),
        [=, name = full(key)](const Config& c, P& p) {
          p.*member = from_seconds(checked(c, name, c.get_number(name), b));
        });
    return std::move(*this);
  }
  template <std::integral I>
  ParamTable&& integer(const std::string& key, I P::*member, const std::string& meaning, Bounds b = {}) && {
    if constexpr (std::is_unsigned_v<I>) b.min = std::max(b.min, 0.0);  // a count: shown as ">= 0"
    const std::string help = meaning + range_text(b);
    b.min = std::max(b.min, static_cast<double>(std::numeric_limits<I>::min()));
    add(member, key, ConfigType::integer, static_cast<std::int64_t>(P{}.*member), help,
        [=, name = full(key)](const Config& c, P& p) {
          const std::int64_t v = c.get_int(name);
          checked(c, name, static_cast<double>(v), b);
          if (std::cmp_greater(v, std::numeric_limits<I>::max()))
            throw ConfigError(where(c, name) + name + " must be at most " +
                              std::to_string(std::numeric_limits<I>::max()) + ", got " + std::to_string(v));
          p.*member = static_cast<I>(v);
        });
    return std::move(*this);
  }
  ParamTable&& flag(const std::string& key, bool P::*member, const std::string& meaning) && {
    add(member, key, ConfigType::boolean, P{}.*member, meaning,
        [=, name = full(key)](const Config& c, P& p) { p.*member = c.get_bool(name); });
    return std::move(*this);
  }
  // A name from a fixed list (a policy registry's names, say); the list is part of the help.
  ParamTable&& choice(const std::string& key, std::string P::*member, std::vector<std::string> allowed,
                      const std::string& meaning) && {
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + (a.empty() ? "\"\" (none)" : a);
    add(member, key, ConfigType::string, P{}.*member, meaning + " (one of: " + list + ")",
        [=, name = full(key)](const Config& c, P& p) {
          const std::string& v = c.get_string(name);
          if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
            throw ConfigError(where(c, name) + name + " must be one of " + list + ", got '" + v + "'");
          p.*member = v;
        });
    return std::move(*this);
  }

  ParamTable&& text(const std::string& key, std::string P::*member, const std::string& meaning) && {
    add(member, key, ConfigType::string, P{}.*member, meaning,
        [=, name = full(key)](const Config& c, P& p) { p.*member = c.get_string(name); });
    return std::move(*this);
  }
  // A member held in another form than its configuration value (an enum, bytes keyed in MiB):
  // `show` gives the value a member stands for (the default comes from P{}), `parse` the member
  // from a value; parse throws ConfigError naming the key for a value it refuses.
  template <class M, class V>
  ParamTable&& mapped(const std::string& key, M P::*member, const std::string& meaning, V (*show)(const M&),
                      M (*parse)(const V&, const std::string& key)) && {
    const Bounds b = clock_bounds(key, {});
    add(member, key, config_type_of<V>(), show(P{}.*member), meaning, [=, name = full(key)](const Config& c, P& p) {
      const V v = value_of<V>(c, name);
      if constexpr (std::is_same_v<V, double>) checked(c, name, v, b);
      p.*member = parse(v, where(c, name) + name);
    });
    return std::move(*this);
  }

  // The key declared last names an input file (ConfigKey::names_input_file).
  ParamTable&& naming_input_file() && {
    schema_.back().names_input_file = true;
    return std::move(*this);
  }

  // The key declared last is read once for a whole sweep (ConfigKey::whole_sweep_only).
  ParamTable&& for_whole_sweep() && {
    schema_.back().whole_sweep_only = true;
    return std::move(*this);
  }

  // Every key of `part`, a table of a member's type, in this table: one section declared by two
  // layers (the batch model's keys and its policies'), read as one. `part` must outlive this.
  template <class M>
  ParamTable&& include(M P::*member, const ParamTable<M>& part) && {
    for (const ConfigKey& k : part.schema()) {
      schema_.push_back(k);
      offsets_.push_back(-1);  // key_of finds a member of `part` through `part`
    }
    readers_.push_back([member, &part](const Config& c, P& p) { p.*member = part.read(c); });
    return std::move(*this);
  }

  // Keys declared elsewhere, read into a member by `read`: a registry's keys (the batch
  // policies', each declared in its policy's file), which no single table holds.
  template <class M>
  ParamTable&& include(M P::*member, const ConfigSchema& keys, M (*read)(const Config&)) && {
    for (const ConfigKey& k : keys) {
      schema_.push_back(k);
      offsets_.push_back(-1);
    }
    readers_.push_back([member, read](const Config& c, P& p) { p.*member = read(c); });
    return std::move(*this);
  }

  const ConfigSchema& schema() const { return schema_; }
  // The full key of a declared member ("section.key"), for code that sets a key it owns.
  template <class M>
  const std::string& key_of(M P::*member) const {
    const std::ptrdiff_t at = offset_of(member);
    for (std::size_t i = 0; i < offsets_.size(); ++i)
      if (offsets_[i] == at) return schema_[i].name;
    throw InvariantError("no configuration key declared for this member in section " + section_);
  }
  // The struct the configuration describes; every bound and choice checked.
  P read(const Config& config) const {
    P p{};
    for (const auto& r : readers_) r(config, p);
    return p;
  }

 private:
  template <class V>
  static constexpr ConfigType config_type_of() {
    if constexpr (std::is_same_v<V, bool>) return ConfigType::boolean;
    if constexpr (std::is_same_v<V, std::int64_t>) return ConfigType::integer;
    if constexpr (std::is_same_v<V, double>) return ConfigType::number;
    if constexpr (std::is_same_v<V, std::string>) return ConfigType::string;
  }
  template <class V>
  static V value_of(const Config& c, const std::string& name) {
    if constexpr (std::is_same_v<V, bool>) return c.get_bool(name);
    if constexpr (std::is_same_v<V, std::int64_t>) return c.get_int(name);
    if constexpr (std::is_same_v<V, double>) return c.get_number(name);
    if constexpr (std::is_same_v<V, std::string>) return c.get_string(name);
  }
  std::string full(const std::string& key) const { return section_ + "." + key; }
  // A key named "..._s" is in seconds (the one naming rule of keys with a unit), so its value is
  // held to what the engine's nanosecond clock can add up (kMaxDurationSeconds): a larger one
  // would overflow mid-run, or be ignored.
  static Bounds clock_bounds(const std::string& key, Bounds b) {
    if (key.size() > 2 && key.ends_with("_s")) b.max = std::min(b.max, kMaxDurationSeconds);
    return b;
  }
  template <class M>
  static std::ptrdiff_t offset_of(M P::*member) {
    static const P probe{};
    return reinterpret_cast<const char*>(&(probe.*member)) - reinterpret_cast<const char*>(&probe);
  }
  template <class M>
  void add(M P::*member, const std::string& key, ConfigType type, ConfigValue default_value, const std::string& meaning,
           std::function<void(const Config&, P&)> reader) {
    schema_.push_back({full(key), type, std::move(default_value), meaning, false, false});
    readers_.push_back(std::move(reader));
    offsets_.push_back(offset_of(member));
  }
  static std::string text(double v) {
    return v == std::floor(v) && std::abs(v) < 1e15 ? std::to_string(static_cast<std::int64_t>(v))
                                                    : to_string(ConfigValue(v));
  }
  static std::string range_of(const Bounds& b) {
    const bool low = std::isfinite(b.min) && b.min > -9e18, high = std::isfinite(b.max);
    return low && high ? "in [" + text(b.min) + ", " + text(b.max) + "]"
           : high      ? "<= " + text(b.max)
           : low       ? ">= " + text(b.min)
                       : "";
  }
  // The bounds as the documentation shows them: " (>= 1)", or nothing.
  static std::string range_text(const Bounds& b) {
    const std::string r = range_of(b);
    return r.empty() ? "" : " (" + r + ")";
  }
  // "exp.toml: " or "--set: " before a message about a key's value; nothing for a default.
  static std::string where(const Config& c, const std::string& name) {
    const std::string origin = c.origin_of(name);
    return origin.empty() ? std::string() : origin + ": ";
  }
  static double checked(const Config& c, const std::string& name, double v, const Bounds& b) {
    if (v >= b.min && v <= b.max) return v;
    const std::string range = range_of(b);
    throw ConfigError(where(c, name) + name + " must be " + (range.empty() ? "a number" : range) + ", got " + text(v));
  }

  std::string section_;
  ConfigSchema schema_;
  std::vector<std::function<void(const Config&, P&)>> readers_;
  std::vector<std::ptrdiff_t> offsets_;
};

}  // namespace tracewarp
