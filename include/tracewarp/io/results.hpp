// The results file (HDF5), written by one process (rank 0 of the whole job):
//
//   /                       attrs: tool_version, git_revision, command_line, config (TOML text),
//                                  config_file, overrides, start_time, end_time, ranks, threads,
//                                  complete (= 1, written last)
//   /runs/<run-id>/         attrs: every parameter of the run ("section.key"), varied (the sweep
//                                  point and seed), workload transforms
//   /runs/<run-id>/<table>  compound tables (jobs, series, ...) described by a TableSchema
//   /runs/<run-id>/summary  group whose attributes are the run's headline metrics
//   /runs/<run-id>/engine   one row per rank of the engine's statistics; attrs: wall_s, ...
//
// The file is written under "<path>.partial" and renamed to <path> only after `complete` is
// set, so an interrupted run never leaves a file that looks finished.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "tracewarp/core/stats.hpp"
#include "tracewarp/io/config.hpp"

namespace tracewarp::io {

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
#define TRACEWARP_COLUMN(Row, member, unit, meaning)                                                       \
  ::tracewarp::io::Column {                                                                                \
#member, offsetof(Row, member), ::tracewarp::io::column_type < decltype(Row::member)>(), unit, meaning \
  }

using AttrValue = std::variant<std::int64_t, double, std::string>;
// For people: integers as they are, numbers with 6 significant digits, text as it is.
std::string to_text(const AttrValue& value);
using Attributes = std::map<std::string, AttrValue>;

AttrValue to_attr(const ConfigValue& v);

class ResultsWriter {
 public:
  // Creates "<path>.partial" with the file-level attributes (complete = 0).
  ResultsWriter(std::string path, const Attributes& file_attributes);
  ~ResultsWriter();  // without finish(): the partial file stays, marked incomplete
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  void add_run(const std::string& run_id, const Attributes& attributes);
  void write_table(const std::string& run_id, const TableSchema& schema, const void* rows, std::size_t count);
  template <class Row>
  void write_table(const std::string& run_id, const TableSchema& schema, const std::vector<Row>& rows) {
    write_table(run_id, schema, rows.data(), rows.size());
  }
  void write_summary(const std::string& run_id, const Attributes& metrics);
  void write_engine(const std::string& run_id, const RunStats& stats);
  // Everything written so far reaches the file (a reader of the .partial file sees those runs).
  void flush();
  // Sets end_time and complete = 1, closes the file and moves it to its final name.
  void finish(const Attributes& final_attributes = {});

  const std::string& path() const { return path_; }

 private:
  struct Handles;
  std::string path_;
  std::string partial_;
  std::unique_ptr<Handles> h_;
};

// Reading back: for `tracewarp report` and the tests.
class ResultsReader {
 public:
  explicit ResultsReader(const std::string& path);
  ~ResultsReader();
  bool complete() const;
  Attributes file_attributes() const;
  std::vector<std::string> runs() const;
  Attributes run_attributes(const std::string& run_id) const;
  Attributes summary(const std::string& run_id) const;
  std::vector<std::string> tables(const std::string& run_id) const;  // datasets of the run
  std::size_t rows(const std::string& run_id, const std::string& table) const;
  // Reads a table into rows laid out as `schema` describes (columns matched by name).
  std::vector<std::byte> read_table(const std::string& run_id, const TableSchema& schema) const;
  // A digest of a table's contents (its raw bytes in file order), to compare files.
  std::uint64_t table_digest(const std::string& run_id, const std::string& table) const;

 private:
  std::string path_;
  std::int64_t file_ = -1;
};

// The engine table's schema (one row per rank), shared by writer, reader and docs.
const TableSchema& engine_table_schema();

}  // namespace tracewarp::io
