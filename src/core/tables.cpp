#include "tracewarp/core/tables.hpp"

#include <cstdio>

namespace tracewarp {

std::string to_text(const AttrValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", *d);
    return text;
  }
  return std::get<std::string>(v);
}

const char* to_string(ColumnType type) {
  switch (type) {
    case ColumnType::i16:
      return "int16";
    case ColumnType::i32:
      return "int32";
    case ColumnType::u32:
      return "uint32";
    case ColumnType::i64:
      return "int64";
    case ColumnType::u64:
      return "uint64";
    case ColumnType::f32:
      return "float32";
    case ColumnType::f64:
      return "float64";
  }
  return "?";
}

AttrValue to_attr(const ConfigValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return std::int64_t{*b ? 1 : 0};
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::get<std::string>(v);
}

}  // namespace tracewarp
