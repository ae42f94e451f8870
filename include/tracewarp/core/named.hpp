// Lookup by name in a registry (a vector of entries with a `name` member): the one way policies,
// methods and models are found, so every unknown name gets the same error listing the known ones.
#pragma once

#include <string>
#include <vector>

#include "tracewarp/core/error.hpp"

namespace tracewarp {

template <class Entry>
std::vector<std::string> names_of(const std::vector<Entry>& entries) {
  std::vector<std::string> names;
  for (const Entry& e : entries) names.push_back(e.name);
  return names;
}

// The entry called `name`; otherwise ConfigError "unknown <what> 'name' (a, b, c)".
template <class Entry>
const Entry& find_named(const std::vector<Entry>& entries, const std::string& name, const std::string& what) {
  for (const Entry& e : entries)
    if (e.name == name) return e;
  std::string known;
  for (const Entry& e : entries) known += (known.empty() ? "" : ", ") + e.name;
  throw ConfigError("unknown " + what + " '" + name + "' (" + known + ")");
}

}  // namespace tracewarp
