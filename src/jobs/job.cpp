#include "tracewarp/jobs/job.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tracewarp::workload {

std::uint64_t ReadTally::dropped_total() const {
  std::uint64_t n = 0;
  for (const auto& [reason, count] : dropped) n += count;
  return n;
}

std::uint64_t ReadTally::repaired_total() const {
  std::uint64_t n = 0;
  for (const auto& [reason, count] : repaired) n += count;
  return n;
}

std::uint32_t scaled_nodes(std::uint32_t nodes, std::uint32_t from, std::uint32_t to) {
  const double scaled = std::ceil(static_cast<double>(nodes) * to / from);
  return static_cast<std::uint32_t>(std::clamp(scaled, 1.0, static_cast<double>(to)));
}

std::int64_t header_int(const std::map<std::string, std::string>& header, const std::string& key) {
  const auto it = header.find(key);
  if (it == header.end()) return -1;
  std::int64_t v = -1;
  const auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  return ec == std::errc() && end == it->second.data() + it->second.size() ? v : -1;
}

}  // namespace tracewarp::workload
