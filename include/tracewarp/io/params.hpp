// A component's parameters declared once: a plain struct whose default member initialisers are
// the defaults, plus one table binding each configuration key to a member with its meaning and
// validation. The table yields the component's configuration schema (so `--keys`,
// docs/configuration.md and type errors come from it) and reads a validated struct back from a
// resolved Config; range and choice errors name the key.
//
//   struct HostParams { std::uint32_t hosts = 1600; double grain = 1e10; Time step = from_seconds(10); };
//   const io::ParamTable<HostParams>& table() {
//     static const auto t = io::ParamTable<HostParams>("replication")
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
#include <utility>
#include <vector>

#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/time.hpp"
#include "tracewarp/io/config.hpp"
#include "tracewarp/io/results.hpp"

namespace tracewarp::io {

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
    add(key, ConfigType::number, P{}.*member, meaning,
        [=, name = full(key)](const Config& c, P& p) { p.*member = checked(name, c.get_number(name), b); });
    return std::move(*this);
  }
  // A duration keyed in seconds, held in engine ticks.
  ParamTable&& seconds(const std::string& key, Time P::*member, const std::string& meaning, Bounds b = {}) && {
    add(key, ConfigType::number, to_seconds(P{}.*member), meaning, [=, name = full(key)](const Config& c, P& p) {
      p.*member = from_seconds(checked(name, c.get_number(name), b));
    });
    return std::move(*this);
  }
  template <std::integral I>
  ParamTable&& integer(const std::string& key, I P::*member, const std::string& meaning, Bounds b = {}) && {
    b.min = std::max(b.min, static_cast<double>(std::numeric_limits<I>::min()));
    add(key, ConfigType::integer, static_cast<std::int64_t>(P{}.*member), meaning,
        [=, name = full(key)](const Config& c, P& p) {
          const std::int64_t v = c.get_int(name);
          checked(name, static_cast<double>(v), b);
          if (std::cmp_greater(v, std::numeric_limits<I>::max()))
            throw ConfigError(name + " must be at most " + std::to_string(std::numeric_limits<I>::max()) + ", got " +
                              std::to_string(v));
          p.*member = static_cast<I>(v);
        });
    return std::move(*this);
  }
  ParamTable&& flag(const std::string& key, bool P::*member, const std::string& meaning) && {
    add(key, ConfigType::boolean, P{}.*member, meaning,
        [=, name = full(key)](const Config& c, P& p) { p.*member = c.get_bool(name); });
    return std::move(*this);
  }
  // A name from a fixed list (a policy registry's names, say); the list is part of the help.
  ParamTable&& choice(const std::string& key, std::string P::*member, std::vector<std::string> allowed,
                      const std::string& meaning) && {
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    add(key, ConfigType::string, P{}.*member, meaning + " (" + list + ")",
        [=, name = full(key)](const Config& c, P& p) {
          const std::string& v = c.get_string(name);
          if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
            throw ConfigError(name + " must be one of " + list + ", got '" + v + "'");
          p.*member = v;
        });
    return std::move(*this);
  }

  const ConfigSchema& schema() const { return schema_; }
  // The struct the configuration describes; every bound and choice checked.
  P read(const Config& config) const {
    P p{};
    for (const auto& r : readers_) r(config, p);
    return p;
  }

 private:
  std::string full(const std::string& key) const { return section_ + "." + key; }
  void add(const std::string& key, ConfigType type, ConfigValue default_value, const std::string& meaning,
           std::function<void(const Config&, P&)> reader) {
    schema_.push_back({full(key), type, std::move(default_value), meaning});
    readers_.push_back(std::move(reader));
  }
  static std::string text(double v) {
    return v == std::floor(v) && std::abs(v) < 1e15 ? std::to_string(static_cast<std::int64_t>(v))
                                                    : to_string(ConfigValue(v));
  }
  static double checked(const std::string& name, double v, const Bounds& b) {
    if (v >= b.min && v <= b.max) return v;
    const bool low = std::isfinite(b.min) && b.min > -9e18, high = std::isfinite(b.max);
    const std::string range = low && high ? "in [" + text(b.min) + ", " + text(b.max) + "]"
                              : high      ? "<= " + text(b.max)
                                          : ">= " + text(b.min);
    throw ConfigError(name + " must be " + range + ", got " + text(v));
  }

  std::string section_;
  ConfigSchema schema_;
  std::vector<std::function<void(const Config&, P&)>> readers_;
};

}  // namespace tracewarp::io
