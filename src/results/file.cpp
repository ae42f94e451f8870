// All of tracewarp's HDF5 code. Every call is checked; failures become IoError carrying
// HDF5's own error chain.
#include "tracewarp/results/file.hpp"

#include <hdf5.h>
#include <tbb/parallel_for.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <vector>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/files.hpp"

namespace tracewarp::results {
namespace {

// HDF5 prints its error stack to stderr by default; we collect it into the exception instead.
// HDF5's own clean-up at exit is turned off: after a write failed (a full disk) the file's handle
// cannot be closed, and that clean-up then crashed on it. Every file is closed by its owner.
struct SilenceHdf5 {
  SilenceHdf5() {
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
};
const SilenceHdf5 silence_hdf5;

std::string hdf5_error_chain() {
  std::string chain;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
        auto* out = static_cast<std::string*>(data);
        if (!out->empty()) *out += "; ";
        std::string desc = e->desc != nullptr ? e->desc : "?";
        std::replace(desc.begin(), desc.end(), '\n', ' ');  // errors are one line
        *out += desc;
        return 0;
      },
      &chain);
  H5Eclear2(H5E_DEFAULT);
  return chain.empty() ? "unknown HDF5 error" : chain;
}

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) {
    const std::string chain = hdf5_error_chain();
    // A full disk is said plainly: HDF5's chain for it is ten lines of driver detail.
    if (chain.find("errno = 28,") != std::string::npos) throw IoError(what + ": no space left on device");
    throw IoError(what + ": " + chain);
  }
  return id;
}

// Closes an HDF5 handle at scope exit.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

hid_t native(ColumnType t) {
  switch (t) {
    case ColumnType::i16:
      return H5T_NATIVE_INT16;
    case ColumnType::i32:
      return H5T_NATIVE_INT32;
    case ColumnType::u32:
      return H5T_NATIVE_UINT32;
    case ColumnType::i64:
      return H5T_NATIVE_INT64;
    case ColumnType::u64:
      return H5T_NATIVE_UINT64;
    case ColumnType::f32:
      return H5T_NATIVE_FLOAT;
    case ColumnType::f64:
      return H5T_NATIVE_DOUBLE;
  }
  return H5T_NATIVE_INT64;
}

hid_t string_type() {
  const hid_t t = check(H5Tcopy(H5T_C_S1), "string type");
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

void write_attribute(hid_t object, const std::string& name, const AttrValue& value) {
  if (H5Aexists(object, name.c_str()) > 0) H5Adelete(object, name.c_str());
  const Handle space(check(H5Screate(H5S_SCALAR), "attribute space"), H5Sclose);
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    const Handle a(
        check(H5Acreate2(object, name.c_str(), H5T_NATIVE_INT64, space, H5P_DEFAULT, H5P_DEFAULT), "attribute " + name),
        H5Aclose);
    check(H5Awrite(a, H5T_NATIVE_INT64, i), "attribute " + name);
  } else if (const auto* d = std::get_if<double>(&value)) {
    const Handle a(check(H5Acreate2(object, name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT),
                         "attribute " + name),
                   H5Aclose);
    check(H5Awrite(a, H5T_NATIVE_DOUBLE, d), "attribute " + name);
  } else {
    const Handle type(string_type(), H5Tclose);
    const Handle a(check(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "attribute " + name),
                   H5Aclose);
    const char* text = std::get<std::string>(value).c_str();
    check(H5Awrite(a, type, &text), "attribute " + name);
  }
}

void write_attributes(hid_t object, const Attributes& attributes) {
  for (const auto& [name, value] : attributes) write_attribute(object, name, value);
}

AttrValue read_attribute(hid_t attribute) {
  const Handle type(check(H5Aget_type(attribute), "attribute type"), H5Tclose);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
      std::int64_t v = 0;
      check(H5Aread(attribute, H5T_NATIVE_INT64, &v), "read attribute");
      return v;
    }
    case H5T_FLOAT: {
      double v = 0;
      check(H5Aread(attribute, H5T_NATIVE_DOUBLE, &v), "read attribute");
      return v;
    }
    case H5T_STRING: {
      if (H5Tis_variable_str(type) > 0) {
        const Handle mem(string_type(), H5Tclose);
        char* text = nullptr;
        check(H5Aread(attribute, mem, &text), "read attribute");
        std::string s = text != nullptr ? text : "";
        H5free_memory(text);
        return s;
      }
      std::string s(H5Tget_size(type), '\0');
      check(H5Aread(attribute, type, s.data()), "read attribute");
      return std::string(s.c_str());
    }
    default:
      return std::string("(unsupported attribute type)");
  }
}

Attributes read_attributes(hid_t object) {
  Attributes out;
  H5O_info_t info;
  check(H5Oget_info2(object, &info, H5O_INFO_NUM_ATTRS), "object info");
  for (hsize_t i = 0; i < info.num_attrs; ++i) {
    const Handle a(
        check(H5Aopen_by_idx(object, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT), "open attribute"),
        H5Aclose);
    const ssize_t len = H5Aget_name(a, 0, nullptr);
    std::string name(static_cast<std::size_t>(len), '\0');
    H5Aget_name(a, static_cast<std::size_t>(len) + 1, name.data());
    out[name] = read_attribute(a);
  }
  return out;
}

std::vector<std::string> children(hid_t group, H5O_type_t kind) {
  std::vector<std::string> names;
  H5G_info_t info;
  check(H5Gget_info(group, &info), "group info");
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t len = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    std::string name(static_cast<std::size_t>(len), '\0');
    H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), static_cast<std::size_t>(len) + 1,
                       H5P_DEFAULT);
    H5O_info_t oinfo;
    check(H5Oget_info_by_name2(group, name.c_str(), &oinfo, H5O_INFO_BASIC, H5P_DEFAULT), "object info");
    if (oinfo.type == kind) names.push_back(name);
  }
  return names;
}

hid_t compound_type(const TableSchema& schema) {
  const hid_t t = check(H5Tcreate(H5T_COMPOUND, schema.row_size), "table type " + schema.name);
  for (const Column& c : schema.columns)
    check(H5Tinsert(t, c.name.c_str(), c.offset, native(c.type)), "column " + c.name);
  return t;
}

std::string iso_now() {
  char buf[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

// The table's chunks as HDF5's shuffle and deflate filters would store them, made in parallel and
// written with H5Dwrite_chunk: compressing one chunk after the other was most of the time of
// writing a large table (a whole production log's jobs, millions of tasks). The bytes are those
// the filters make (shuffle: byte j of row i goes to j * rows + i; then zlib at `level`), so
// readers see an ordinary filtered dataset. The last chunk is padded with the fill value (zeros).
void write_compressed_chunks(hid_t dataset, const std::string& name, const void* rows, std::size_t count,
                             std::size_t row_size, std::size_t chunk_rows, int level) {
  const std::size_t chunks = (count + chunk_rows - 1) / chunk_rows, chunk_bytes = chunk_rows * row_size;
  std::vector<std::vector<Bytef>> packed(chunks);
  std::vector<int> status(chunks, Z_OK);
  tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
    const auto* in = static_cast<const unsigned char*>(rows) + c * chunk_bytes;
    const std::size_t n = std::min(chunk_rows, count - c * chunk_rows);
    std::vector<Bytef> shuffled(chunk_bytes, 0);
    if (row_size > 1 && chunk_rows > 1) {
      for (std::size_t j = 0; j < row_size; ++j) {  // written in order, read with a stride
        Bytef* out = shuffled.data() + j * chunk_rows;
        for (std::size_t i = 0; i < n; ++i) out[i] = in[i * row_size + j];
      }
    } else {
      std::memcpy(shuffled.data(), in, n * row_size);
    }
    uLongf size = compressBound(static_cast<uLong>(chunk_bytes));
    packed[c].resize(size);
    status[c] = compress2(packed[c].data(), &size, shuffled.data(), static_cast<uLong>(chunk_bytes), level);
    packed[c].resize(size);
  });
  for (std::size_t c = 0; c < chunks; ++c) {
    if (status[c] != Z_OK) throw IoError("compress " + name + ": zlib error " + std::to_string(status[c]));
    const hsize_t offset[1] = {c * chunk_rows};
    check(H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, offset, packed[c].size(), packed[c].data()), "write " + name);
  }
}

struct EngineRow {
  std::int64_t rank;
  std::uint64_t committed, rolled_back, rollbacks, anti_messages, remote_sent, gvt_rounds, peak_rss_bytes,
      peak_engine_bytes, checkpoints, checkpoint_bytes, checkpoint_ms, window_end_ns, gvt_interval_end, tuning_steps,
      committed_at_once;
};

}  // namespace

const TableSchema& engine_table_schema() {
  static const TableSchema schema{
      "engine",
      sizeof(EngineRow),
      {TRACEWARP_COLUMN(EngineRow, rank, "", "MPI rank within the run"),
       TRACEWARP_COLUMN(EngineRow, committed, "events", "events committed on this rank"),
       TRACEWARP_COLUMN(EngineRow, rolled_back, "events", "event executions undone"),
       TRACEWARP_COLUMN(EngineRow, rollbacks, "", "rollback episodes"),
       TRACEWARP_COLUMN(EngineRow, anti_messages, "", "cancellations sent"),
       TRACEWARP_COLUMN(EngineRow, remote_sent, "events", "events sent to other ranks"),
       TRACEWARP_COLUMN(EngineRow, gvt_rounds, "", "GVT computations"),
       TRACEWARP_COLUMN(EngineRow, peak_rss_bytes, "bytes", "peak resident memory of the process"),
       TRACEWARP_COLUMN(EngineRow, peak_engine_bytes, "bytes", "peak engine-held memory (budget accounting)"),
       TRACEWARP_COLUMN(EngineRow, checkpoints, "", "checkpoints written (engine.checkpoint_every_s)"),
       TRACEWARP_COLUMN(EngineRow, checkpoint_bytes, "bytes", "size of this rank's newest checkpoint file"),
       TRACEWARP_COLUMN(EngineRow, checkpoint_ms, "ms", "wall-clock time spent writing checkpoints"),
       TRACEWARP_COLUMN(EngineRow, window_end_ns, "ns", "optimism window at the end of the run (0 = none)"),
       TRACEWARP_COLUMN(EngineRow, gvt_interval_end, "events", "GVT interval at the end of the run"),
       TRACEWARP_COLUMN(EngineRow, tuning_steps, "", "changes engine.tune_optimism made to the two above"),
       TRACEWARP_COLUMN(EngineRow, committed_at_once, "events",
                        "events committed as they ran, nothing saved (engine.commit_within_lookahead)")},
      "engine statistics, one row per rank (these depend on rank count and timing; model tables do not)"};
  return schema;
}

struct Writer::Handles {
  hid_t file = -1;
  hid_t runs = -1;
};

Writer::Writer(std::string path, const Attributes& file_attributes)
    : path_(std::move(path)), partial_(path_ + ".partial"), h_(std::make_unique<Handles>()) {
  clear_for_own_file(partial_);  // never through a link; a reader of an old one keeps its inode
  h_->file = H5Fcreate(partial_.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
  if (h_->file < 0) {
    const std::string chain = hdf5_error_chain();
    // A full disk is an I/O failure said in one line (exit 1), as everywhere else; anything else
    // here is a name or folder the user gave (exit 2).
    if (chain.find("errno = 28,") != std::string::npos)
      throw IoError("cannot create results file '" + partial_ + "': no space left on device");
    throw UsageError("cannot create results file '" + partial_ + "': " + chain);
  }
  h_->runs = check(H5Gcreate2(h_->file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "group /runs");
  Attributes attrs = file_attributes;
  attrs["start_time"] = iso_now();
  attrs["complete"] = std::int64_t{0};
  write_attributes(h_->file, attrs);
  H5Fflush(h_->file, H5F_SCOPE_GLOBAL);
}

Writer::~Writer() {
  if (h_->runs >= 0) H5Gclose(h_->runs);
  if (h_->file >= 0) H5Fclose(h_->file);
}

void Writer::add_run(const std::string& run_id, const Attributes& attributes) {
  const Handle g(check(H5Gcreate2(h_->runs, run_id.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "run " + run_id),
                 H5Gclose);
  write_attributes(g, attributes);
}

void Writer::write_table(const std::string& run_id, const TableSchema& schema, const void* rows, std::size_t count) {
  const Handle run(check(H5Gopen2(h_->runs, run_id.c_str(), H5P_DEFAULT), "run " + run_id), H5Gclose);
  const Handle type(compound_type(schema), H5Tclose);
  const hsize_t dims[1] = {count};
  const hsize_t max_dims[1] = {H5S_UNLIMITED};
  const Handle space(check(H5Screate_simple(1, dims, max_dims), "table space"), H5Sclose);
  const Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "table properties"), H5Pclose);
  const hsize_t chunk[1] = {std::max<hsize_t>(1, std::min<hsize_t>(count, 65536))};
  check(H5Pset_chunk(dcpl, 1, chunk), "chunking");
  check(H5Pset_shuffle(dcpl), "shuffle filter");
  // Level 1: on the whole RICC log's tables 40% less compression work than level 4 for a file 5%
  // larger (docs/performance-history.md); writing was a quarter of a replay's time.
  constexpr int kDeflateLevel = 1;
  check(H5Pset_deflate(dcpl, kDeflateLevel), "deflate filter");
  const Handle ds(
      check(H5Dcreate2(run, schema.name.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), "table " + schema.name),
      H5Dclose);
  if (count > 0) write_compressed_chunks(ds, schema.name, rows, count, schema.row_size, chunk[0], kDeflateLevel);
  std::string columns;
  for (const Column& c : schema.columns)
    columns += c.name + " (" + to_string(c.type) + (c.unit.empty() ? "" : ", " + c.unit) + "): " + c.meaning + "\n";
  write_attributes(ds, {{"description", schema.meaning}, {"columns", columns}});
}

void Writer::write_summary(const std::string& run_id, const Attributes& metrics) {
  const Handle run(check(H5Gopen2(h_->runs, run_id.c_str(), H5P_DEFAULT), "run " + run_id), H5Gclose);
  const Handle g(check(H5Gcreate2(run, "summary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "summary"), H5Gclose);
  write_attributes(g, metrics);
}

void Writer::write_engine(const std::string& run_id, const RunStats& stats) {
  std::vector<EngineRow> rows;
  for (std::size_t r = 0; r < stats.per_rank.size(); ++r) {
    const RankStats& s = stats.per_rank[r];
    rows.push_back({static_cast<std::int64_t>(r), s.committed, s.rolled_back, s.rollbacks, s.anti_messages,
                    s.remote_sent, s.gvt_rounds, s.peak_rss_bytes, s.peak_engine_bytes, s.checkpoints,
                    s.checkpoint_bytes, s.checkpoint_ms, s.window_end_ns, s.gvt_interval_end, s.tuning_steps,
                    s.committed_at_once});
  }
  write_table(run_id, engine_table_schema(), rows);
  const Handle run(check(H5Gopen2(h_->runs, run_id.c_str(), H5P_DEFAULT), "run " + run_id), H5Gclose);
  const Handle ds(check(H5Dopen2(run, "engine", H5P_DEFAULT), "engine table"), H5Dclose);
  write_attributes(ds, {{"sync", stats.sync},
                        {"ranks", std::int64_t{stats.ranks}},
                        {"threads", std::int64_t{stats.threads}},
                        {"wall_s", stats.wall_s},
                        {"committed", static_cast<std::int64_t>(stats.total.committed)},
                        {"events_per_s", stats.events_per_s()},
                        {"efficiency", stats.efficiency()},
                        {"imbalance", stats.imbalance()}});
}

void Writer::flush() { check(H5Fflush(h_->file, H5F_SCOPE_GLOBAL), "flush " + partial_); }

void Writer::finish(const Attributes& final_attributes) {
  Attributes attrs = final_attributes;
  attrs["end_time"] = iso_now();
  write_attributes(h_->file, attrs);
  write_attribute(h_->file, "complete", std::int64_t{1});  // last: the marker of a whole file
  H5Gclose(h_->runs);
  h_->runs = -1;
  check(H5Fclose(h_->file), "close " + partial_);
  h_->file = -1;
  if (std::rename(partial_.c_str(), path_.c_str()) != 0)
    throw IoError("cannot move '" + partial_ + "' to '" + path_ + "': " + std::strerror(errno));
}

Reader::Reader(const std::string& path) : path_(path) {
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0) throw InputError("cannot open results file '" + path + "': " + hdf5_error_chain());
}

Reader::~Reader() {
  if (file_ >= 0) H5Fclose(file_);
}

bool Reader::complete() const {
  const Attributes a = file_attributes();
  const auto it = a.find("complete");
  return it != a.end() && std::holds_alternative<std::int64_t>(it->second) && std::get<std::int64_t>(it->second) == 1;
}

Attributes Reader::file_attributes() const { return read_attributes(file_); }

std::vector<std::string> Reader::runs() const {
  const Handle g(check(H5Gopen2(file_, "runs", H5P_DEFAULT), path_ + ": /runs"), H5Gclose);
  return children(g, H5O_TYPE_GROUP);
}

Attributes Reader::run_attributes(const std::string& run_id) const {
  const Handle g(check(H5Gopen2(file_, ("runs/" + run_id).c_str(), H5P_DEFAULT), path_ + ": run " + run_id), H5Gclose);
  return read_attributes(g);
}

Attributes Reader::summary(const std::string& run_id) const {
  const Handle g(
      check(H5Gopen2(file_, ("runs/" + run_id + "/summary").c_str(), H5P_DEFAULT), path_ + ": summary of " + run_id),
      H5Gclose);
  return read_attributes(g);
}

std::vector<std::string> Reader::tables(const std::string& run_id) const {
  const Handle g(check(H5Gopen2(file_, ("runs/" + run_id).c_str(), H5P_DEFAULT), path_ + ": run " + run_id), H5Gclose);
  return children(g, H5O_TYPE_DATASET);
}

std::size_t Reader::rows(const std::string& run_id, const std::string& table) const {
  const Handle ds(check(H5Dopen2(file_, ("runs/" + run_id + "/" + table).c_str(), H5P_DEFAULT), table), H5Dclose);
  const Handle space(check(H5Dget_space(ds), "table space"), H5Sclose);
  hsize_t dims[1] = {0};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  return static_cast<std::size_t>(dims[0]);
}

std::vector<std::byte> Reader::read_table(const std::string& run_id, const TableSchema& schema) const {
  const std::size_t n = rows(run_id, schema.name);
  std::vector<std::byte> out(n * schema.row_size);
  if (n == 0) return out;
  const Handle ds(check(H5Dopen2(file_, ("runs/" + run_id + "/" + schema.name).c_str(), H5P_DEFAULT), schema.name),
                  H5Dclose);
  const Handle type(compound_type(schema), H5Tclose);
  check(H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "read " + schema.name);
  return out;
}

std::uint64_t Reader::table_digest(const std::string& run_id, const std::string& table) const {
  const Handle ds(check(H5Dopen2(file_, ("runs/" + run_id + "/" + table).c_str(), H5P_DEFAULT), table), H5Dclose);
  const Handle file_type(check(H5Dget_type(ds), "table type"), H5Tclose);
  const Handle type(check(H5Tget_native_type(file_type, H5T_DIR_ASCEND), "native type"), H5Tclose);
  const std::size_t n = rows(run_id, table);
  std::vector<unsigned char> bytes(n * H5Tget_size(type), 0);
  if (n > 0) check(H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), "read " + table);
  return fnv1a({reinterpret_cast<const char*>(bytes.data()), bytes.size()}) ^ n;
}

}  // namespace tracewarp::results
