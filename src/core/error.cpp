#include "tracewarp/core/error.hpp"

#include <cstdio>

namespace tracewarp {
namespace {

// Printable ASCII as it is, anything else as \xNN, cut at `limit` characters of the input.
std::string printable(std::string_view text, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  if (text.size() > limit) out += "...";
  return out;
}

}  // namespace

std::string quoted_input(std::string_view text) {
  std::string quoted(1, '\'');
  quoted += printable(text, 40);
  quoted += '\'';
  return quoted;
}

InputError::InputError(const std::string& file, long line, const std::string& field, const std::string& problem)
    : Error(file + ":" + std::to_string(line) + ": field '" + printable(field, 60) + "': " + problem, 2) {}

}  // namespace tracewarp
