#include "tracewarp/core/config.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "tracewarp/core/error.hpp"

namespace tracewarp {
namespace {

using T = ConfigType;

const char* type_name(ConfigType t) {
  switch (t) {
    case T::boolean:
      return "a boolean";
    case T::integer:
      return "an integer";
    case T::number:
      return "a number";
    case T::string:
      return "a string";
  }
  return "?";
}

const char* value_type_name(const ConfigValue& v) {
  static constexpr const char* names[] = {"a boolean", "an integer", "a number", "a string"};
  return names[v.index()];
}

// Edits (insert, delete, replace) between two keys: how far a typo is from the key meant.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "unknown key", with the nearest declared key when one is near enough to be a typo of it.
ConfigError unknown_key(const ConfigSchema& schema, const std::string& key, const std::string& origin) {
  const ConfigKey* nearest = nullptr;
  std::size_t best = std::max<std::size_t>(1, key.size() / 5);  // more edits than this: not a typo
  for (const ConfigKey& k : schema)
    if (const std::size_t d = edit_distance(key, k.name); d <= best) best = d, nearest = &k;
  return ConfigError(origin + ": unknown key '" + key + "'" +
                     (nearest ? " (did you mean '" + nearest->name + "'? " : " (") +
                     "tracewarp run --keys lists them)");
}

}  // namespace

std::string Config::origin_of(const std::string& key) const {
  const auto it = origins_.find(key);
  return it == origins_.end() ? std::string() : it->second;
}

const ConfigKey* find_config_key(const ConfigSchema& schema, const std::string& name) {
  for (const ConfigKey& k : schema)
    if (k.name == name) return &k;
  return nullptr;
}

std::string to_string(const ConfigValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, bool>)
          return v ? "true" : "false";
        else if constexpr (std::is_same_v<V, std::string>)
          return '"' + v + '"';
        else if constexpr (std::is_same_v<V, double>) {
          char buf[32];  // shortest text that reads back as the same double
          const auto r = std::to_chars(buf, buf + sizeof buf, v);
          std::string s(buf, r.ptr);
          if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
          return s;
        } else {
          return std::to_string(v);
        }
      },
      value);
}

Config::Config(const ConfigSchema& schema) : schema_(&schema) {
  for (const ConfigKey& k : schema) values_[k.name] = k.default_value;
}

void Config::set(const std::string& key, const ConfigValue& value, const std::string& origin) {
  const ConfigKey* k = find_config_key(*schema_, key);
  if (k == nullptr) throw unknown_key(*schema_, key, origin);
  ConfigValue v = value;
  if (k->type == T::number && std::holds_alternative<std::int64_t>(v))
    v = static_cast<double>(std::get<std::int64_t>(v));  // 1 is a fine number
  if (k->type == T::integer && std::holds_alternative<double>(v)) {
    const double d = std::get<double>(v);
    if (d == std::floor(d) && std::abs(d) < 9e15) v = static_cast<std::int64_t>(d);
  }
  if (static_cast<std::size_t>(k->type) != v.index())
    throw ConfigError(origin + ": key '" + key + "' must be " + type_name(k->type) + ", got " + value_type_name(value) +
                      " (" + to_string(value) + ")");
  values_[key] = std::move(v);
  origins_[key] = origin;
}

void Config::set_from_text(const std::string& key, const std::string& text, const std::string& origin) {
  const ConfigKey* k = find_config_key(*schema_, key);
  if (k == nullptr) throw unknown_key(*schema_, key, origin);
  const auto bad = [&] {
    return ConfigError(origin + ": key '" + key + "' must be " + type_name(k->type) + ", got '" + text + "'");
  };
  switch (k->type) {
    case T::boolean:
      if (text != "true" && text != "false") throw bad();
      set(key, text == "true", origin);
      return;
    case T::integer: {
      std::int64_t v = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      if (r.ec != std::errc() || r.ptr != text.data() + text.size()) throw bad();
      set(key, v, origin);
      return;
    }
    case T::number: {
      double v = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(v)) throw bad();
      set(key, v, origin);
      return;
    }
    case T::string: {
      std::string s = text;
      if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
      set(key, s, origin);
      return;
    }
  }
}

namespace {

const ConfigValue& lookup(const std::map<std::string, ConfigValue>& values, const std::string& key) {
  const auto it = values.find(key);
  if (it == values.end()) throw InvariantError("configuration key '" + key + "' is not declared");
  return it->second;
}
}  // namespace

bool Config::get_bool(const std::string& key) const { return std::get<bool>(lookup(values_, key)); }
std::int64_t Config::get_int(const std::string& key) const { return std::get<std::int64_t>(lookup(values_, key)); }
double Config::get_number(const std::string& key) const {
  const ConfigValue& v = lookup(values_, key);
  return std::holds_alternative<double>(v) ? std::get<double>(v) : static_cast<double>(std::get<std::int64_t>(v));
}
const std::string& Config::get_string(const std::string& key) const {
  return std::get<std::string>(lookup(values_, key));
}

}  // namespace tracewarp
