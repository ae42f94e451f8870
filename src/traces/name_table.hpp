// Names in a trace (users, groups, partitions, jobs given as strings) to small dense numbers, in
// order of first appearance (internal to src/traces/).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tracewarp::traces::detail {

class NameTable {
 public:
  std::int32_t id(std::string_view name) {
    const auto [it, inserted] = ids_.emplace(std::string(name), static_cast<std::int32_t>(names_.size()));
    if (inserted) names_.emplace_back(name);
    return it->second;
  }
  // "0=thin 1=fat": the numbers given, for a trace's header.
  std::string listed() const {
    std::string out;
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (i > 0) out.push_back(' ');
      out.append(std::to_string(i)).append("=").append(names_[i]);
    }
    return out;
  }

 private:
  std::unordered_map<std::string, std::int32_t> ids_;
  std::vector<std::string> names_;
};

}  // namespace tracewarp::traces::detail
