// What a model's outputs are made of, without the writer: tables of plain rows described by a
// TableSchema (one Column per member, with its unit and meaning), and attributes (a run's
// summary, its provenance). results/ writes them to HDF5; models only describe them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "tracewarp/core/config.hpp"

namespace tracewarp {

enum class ColumnType { i16, i32, u32, i64, u64, f32, f64 };

template <class V>
constexpr ColumnType column_type() {
  if constexpr (std::is_same_v<V, std::int16_t>)
    return ColumnType::i16;
  else if constexpr (std::is_same_v<V, std::int32_t>)
    return ColumnType::i32;
  else if constexpr (std::is_same_v<V, std::uint32_t>)
    return ColumnType::u32;
  else if constexpr (std::is_same_v<V, std::int64_t>)
    return ColumnType::i64;
  else if constexpr (std::is_same_v<V, std::uint64_t>)
    return ColumnType::u64;
  else if constexpr (std::is_same_v<V, float>)
    return ColumnType::f32;
  else {
    static_assert(std::is_same_v<V, double>, "columns are 16/32/64-bit integers or floating point");
    return ColumnType::f64;
  }
}
const char* to_string(ColumnType type);

struct Column {
  std::string name;
  std::size_t offset;
  ColumnType type;
  std::string unit;
  std::string meaning;
};

struct TableSchema {
  std::string name;
  std::size_t row_size;
  std::vector<Column> columns;
  std::string meaning;
};

// A column of struct Row from its member: TRACEWARP_COLUMN(JobRow, wait_s, "s", "time queued").
#define TRACEWARP_COLUMN(Row, member, unit, meaning)                                                   \
  ::tracewarp::Column {                                                                                \
#member, offsetof(Row, member), ::tracewarp::column_type < decltype(Row::member)>(), unit, meaning \
  }

using AttrValue = std::variant<std::int64_t, double, std::string>;
// For people: integers as they are, numbers with 6 significant digits, text as it is.
std::string to_text(const AttrValue& value);
using Attributes = std::map<std::string, AttrValue>;

AttrValue to_attr(const ConfigValue& v);

}  // namespace tracewarp
