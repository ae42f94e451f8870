// The results file (HDF5), written by one process (rank 0 of the whole job):
//
//   /                       attrs: tool_version, git_revision, command_line, config (TOML text),
//                                  config_file, overrides, set_options, sweep_identity,
//                                  start_time, end_time, ranks, threads, complete (= 1, written
//                                  last)
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
#include "tracewarp/core/tables.hpp"

namespace tracewarp::results {

class Writer {
 public:
  // Creates "<path>.partial" with the file-level attributes (complete = 0).
  Writer(std::string path, const Attributes& file_attributes);
  ~Writer();  // without finish(): the partial file stays, marked incomplete
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

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
class Reader {
 public:
  explicit Reader(const std::string& path);
  ~Reader();
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

}  // namespace tracewarp::results
