// tracewarp export RESULTS.h5 --csv DIR | --swf DIR | --batsim DIR: a results file for tools that
// do not read HDF5 — every table of every run as CSV, or the batch runs' simulated schedules as
// SWF or as Batsim's jobs file (which evalys and Batsim's other tools read).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <span>

#include "commands.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/model/batch/batch_model.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/results/file.hpp"
#include "tracewarp/traces/swf.hpp"

namespace tracewarp::app {
namespace {

namespace fs = std::filesystem;

struct ExportOptions {
  std::string results;
  std::string csv_dir;
  std::string swf_dir;
  std::string batsim_dir;
};

std::string attribute(const Attributes& a, const std::string& key) {
  const auto it = a.find(key);
  return it == a.end() ? std::string() : to_text(it->second);
}
std::int64_t integer_attribute(const Attributes& a, const std::string& key, std::int64_t otherwise) {
  const auto it = a.find(key);
  if (it == a.end()) return otherwise;
  const auto* i = std::get_if<std::int64_t>(&it->second);
  return i ? *i : otherwise;
}

// A CSV field: quoted when it holds a comma, a quote or a line break (quotes doubled).
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// One value of a row as text: integers exactly, floating point with enough digits to read back
// the same number.
std::string cell(const std::byte* row, const Column& c) {
  char text[40];
  const std::byte* at = row + c.offset;
  const auto get = [&](auto v) {
    std::memcpy(&v, at, sizeof v);
    return v;
  };
  switch (c.type) {
    case ColumnType::i16:
      return std::to_string(get(std::int16_t{}));
    case ColumnType::i32:
      return std::to_string(get(std::int32_t{}));
    case ColumnType::u32:
      return std::to_string(get(std::uint32_t{}));
    case ColumnType::i64:
      return std::to_string(get(std::int64_t{}));
    case ColumnType::u64:
      return std::to_string(get(std::uint64_t{}));
    case ColumnType::f32:
      std::snprintf(text, sizeof text, "%.9g", static_cast<double>(get(float{})));
      return text;
    case ColumnType::f64:
      std::snprintf(text, sizeof text, "%.17g", get(double{}));
      return text;
  }
  return {};
}

std::ofstream create(const fs::path& path) {
  std::ofstream out(path);
  if (!out) throw UsageError("cannot create '" + path.string() + "': " + std::strerror(errno));
  return out;
}

// The schemas a run's tables were written with: its model's and the engine table's.
std::vector<const TableSchema*> schemas_of(const Attributes& run) {
  std::vector<const TableSchema*> out{&results::engine_table_schema()};
  const std::string model = attribute(run, "experiment.model");
  if (!model.empty())
    for (const TableSchema* s : model::find_model(model).tables) out.push_back(s);
  return out;
}

void write_table_csv(const results::Reader& file, const std::string& run, const TableSchema& schema,
                     const fs::path& path) {
  const std::vector<std::byte> rows = file.read_table(run, schema);
  std::ofstream out = create(path);
  for (std::size_t c = 0; c < schema.columns.size(); ++c) out << (c ? "," : "") << schema.columns[c].name;
  out << '\n';
  for (std::size_t r = 0; r + schema.row_size <= rows.size(); r += schema.row_size) {
    for (std::size_t c = 0; c < schema.columns.size(); ++c) out << (c ? "," : "") << cell(&rows[r], schema.columns[c]);
    out << '\n';
  }
}

void write_attributes_csv(const Attributes& a, const fs::path& path) {
  std::ofstream out = create(path);
  out << "name,value\n";
  for (const auto& [name, value] : a) out << csv_field(name) << ',' << csv_field(to_text(value)) << '\n';
}

// A run's name from the file, as the name of a file or folder inside DIR: a crafted file could
// otherwise name a run "..", or "../../x", and have export write outside DIR.
const std::string& as_file_name(const std::string& run, const std::string& source) {
  const bool plain = !run.empty() && run != "." && run != ".." && run.size() <= 255 &&
                     std::none_of(run.begin(), run.end(), [](char c) {
                       return c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
                     });
  if (!plain)
    throw InputError(source + ": a run is named '" + run +
                     "', which is not a plain file name: not a results file tracewarp wrote, or damaged");
  return run;
}

// DIR/runs.csv (one row per run: its id, the sweep point and its summary), and DIR/<run>/ with
// every table as <table>.csv, the summary and the run's parameters.
void export_csv(const results::Reader& file, const std::string& source, const fs::path& dir) {
  const std::vector<std::string> runs = file.runs();
  for (const std::string& run : runs) as_file_name(run, source);  // every name, before any file
  fs::create_directories(dir);
  std::set<std::string> summary_keys;
  for (const std::string& run : runs)
    for (const auto& [k, v] : file.summary(run)) summary_keys.insert(k);
  std::ofstream index = create(dir / "runs.csv");
  index << "run_id,varied";
  for (const std::string& k : summary_keys) index << ',' << csv_field(k);
  index << '\n';
  for (const std::string& run : runs) {
    const Attributes attributes = file.run_attributes(run), summary = file.summary(run);
    index << run << ',' << csv_field(attribute(attributes, "varied"));
    for (const std::string& k : summary_keys) index << ',' << csv_field(attribute(summary, k));
    index << '\n';
    const fs::path folder = dir / run;
    fs::create_directories(folder);
    write_attributes_csv(summary, folder / "summary.csv");
    write_attributes_csv(attributes, folder / "parameters.csv");
    const std::vector<const TableSchema*> schemas = schemas_of(attributes);
    for (const std::string& table : file.tables(run)) {
      const TableSchema* schema = nullptr;
      for (const TableSchema* s : schemas)
        if (s->name == table) schema = s;
      if (schema == nullptr) {
        std::fprintf(stderr, "tracewarp: note: %s/%s: no schema known for this table; not exported\n", run.c_str(),
                     table.c_str());
        continue;
      }
      write_table_csv(file, run, *schema, folder / (table + ".csv"));
    }
  }
  std::printf("wrote %zu run(s) as CSV into %s\n", runs.size(), dir.c_str());
}

// A table's rows as the struct they were written from.
template <class Row>
std::vector<Row> read_rows(const results::Reader& file, const std::string& run, const TableSchema& schema) {
  const std::vector<std::byte> bytes = file.read_table(run, schema);
  std::vector<Row> rows(bytes.size() / sizeof(Row));
  std::memcpy(rows.data(), bytes.data(), rows.size() * sizeof(Row));
  return rows;
}

// A batch run's simulated schedule as a workload whose logged waits and run times are the
// simulated ones, for traces::write_swf: SWF tools then read the schedule as if it were a log.
// Times are whole seconds there; the trace's group, queue and partition are kept (without a queue,
// the resource group is the queue, field 15); a job killed at its
// walltime has status 0 (failed), a rejected one status 5 (cancelled) and no run time.
workload::Workload simulated_schedule(const results::Reader& file, const std::string& run, const Attributes& a,
                                      const std::string& source, std::uint32_t cores_per_node) {
  const std::vector<batch::JobRow> rows = read_rows<batch::JobRow>(file, run, batch::job_table_schema());
  workload::Workload w;
  w.source = source + " run " + run;
  w.header["Computer"] = "tracewarp simulated schedule";
  w.unix_start_time = integer_attribute(a, "workload.unix_start_time", -1);
  w.max_nodes = integer_attribute(a, "machine.nodes", -1);
  w.transforms.push_back("simulated schedule: batch.policy = " + attribute(a, "batch.policy") +
                         ", batch.resources = " + attribute(a, "machine.resources"));
  for (const batch::JobRow& r : rows) {
    workload::Job j;
    j.id = r.id;
    j.submit = from_seconds(r.submit_s);
    const bool ran = r.status != static_cast<std::int16_t>(batch::JobStatus::rejected);
    j.trace_wait = ran ? from_seconds(r.wait_s) : -1;
    j.run = ran ? from_seconds(r.run_s) : -1;
    j.requested = r.requested_s > 0 ? from_seconds(r.requested_s) : -1;
    j.procs = r.procs > 0 ? r.procs : r.nodes * cores_per_node;
    j.nodes = (j.procs + cores_per_node - 1) / cores_per_node;
    j.user = r.user;
    j.group = r.account;
    // The trace's queue and partition where it had them; else the resource group as the queue.
    j.queue = r.queue >= 0 ? r.queue : r.group + 1;
    j.partition = r.partition;
    j.status = r.status == static_cast<std::int16_t>(batch::JobStatus::completed) ? 1 : ran ? 0 : 5;
    w.jobs.push_back(j);
  }
  return w;
}

void export_swf(const results::Reader& file, const std::string& source, const fs::path& dir) {
  for (const std::string& run : file.runs()) as_file_name(run, source);  // every name, before any file
  fs::create_directories(dir);
  std::size_t written = 0;
  for (const std::string& run : file.runs()) {
    const Attributes a = file.run_attributes(run);
    if (attribute(a, "experiment.model") != "batch") continue;
    const auto cpn =
        static_cast<std::uint32_t>(std::max<std::int64_t>(1, integer_attribute(a, "machine.cores_per_node", 1)));
    traces::write_swf(simulated_schedule(file, run, a, source, cpn), (dir / (run + ".swf")).string(), cpn);
    ++written;
  }
  if (written == 0) throw UsageError(source + ": no batch runs: --swf writes the schedules of batch runs only");
  std::printf("wrote %zu simulated schedule(s) as SWF into %s\n", written, dir.c_str());
}

// Resource ids in Batsim's interval syntax: ranges "a-b" (inclusive) and single ids, separated by
// spaces, ascending.
std::string batsim_intervals(std::span<const batch::AllocationRow> ranges) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;  // [first, last]
  for (const batch::AllocationRow& r : ranges) {
    if (r.count == 0) continue;
    const std::uint64_t last = std::uint64_t{r.first} + r.count - 1;
    if (!merged.empty() && merged.back().second + 1 == r.first)
      merged.back().second = last;
    else
      merged.emplace_back(r.first, last);
  }
  std::string out;
  for (const auto& [first, last] : merged)
    out += (out.empty() ? "" : " ") + std::to_string(first) + (last > first ? "-" + std::to_string(last) : "");
  return out;
}

std::string seconds_text(double s) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", s);
  return text;
}

// A batch run's schedule as Batsim's jobs file (out_jobs.csv, docs/results.md): one row per job;
// resources are the machine's units (nodes, or processors: the run attribute machine.unit),
// numbered from 0 along the machine's line. A rejected job has final_state REJECTED and -1 for
// every time; a job killed at its walltime COMPLETED_WALLTIME_REACHED and success 0.
void write_batsim_jobs(const results::Reader& file, const std::string& run, const std::string& source,
                       const fs::path& path) {
  const std::vector<std::string> tables = file.tables(run);
  if (std::find(tables.begin(), tables.end(), batch::allocation_table_schema().name) == tables.end())
    throw UsageError(source + ": run " + run +
                     " has no allocations table (written by an older tracewarp): run it again to export it for Batsim");
  const std::vector<batch::JobRow> jobs = read_rows<batch::JobRow>(file, run, batch::job_table_schema());
  const std::vector<batch::AllocationRow> ranges =
      read_rows<batch::AllocationRow>(file, run, batch::allocation_table_schema());
  std::ofstream out = create(path);
  out << "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
         "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
         "allocated_resources,consumed_energy,metadata\n";
  std::size_t at = 0;  // both tables are by job index
  for (const batch::JobRow& j : jobs) {
    const std::size_t from = at;
    while (at < ranges.size() && ranges[at].index == j.index) ++at;
    std::uint64_t units = 0;
    for (std::size_t i = from; i < at; ++i) units += ranges[i].count;
    const bool ran = j.status != static_cast<std::int16_t>(batch::JobStatus::rejected);
    const bool completed = j.status == static_cast<std::int16_t>(batch::JobStatus::completed);
    const double turnaround = ran ? j.end_s - j.submit_s : -1;
    // What the job asked for: its allocation's size (the job's size in the scheduler's unit).
    const std::uint64_t asked = ran ? units : (j.nodes > 0 ? j.nodes : j.procs);
    out << j.id << ',' << csv_field(run) << ",delay," << seconds_text(j.submit_s) << ',' << asked << ','
        << seconds_text(j.requested_s) << ',' << (completed ? 1 : 0) << ','
        << (completed ? "COMPLETED_SUCCESSFULLY"
            : ran     ? "COMPLETED_WALLTIME_REACHED"
                      : "REJECTED")
        << ',' << seconds_text(ran ? j.start_s : -1) << ',' << seconds_text(ran ? j.run_s : -1) << ','
        << seconds_text(ran ? j.end_s : -1) << ',' << seconds_text(ran ? j.wait_s : -1) << ','
        << seconds_text(turnaround) << ',' << seconds_text(ran && j.run_s > 0 ? turnaround / j.run_s : -1) << ','
        << batsim_intervals(std::span(ranges).subspan(from, at - from)) << ",-1,\n";
  }
  if (at != ranges.size()) throw InputError(source + ": run " + run + ": allocations of jobs not in its jobs table");
}

void export_batsim(const results::Reader& file, const std::string& source, const fs::path& dir) {
  for (const std::string& run : file.runs()) as_file_name(run, source);  // every name, before any file
  fs::create_directories(dir);
  std::size_t written = 0;
  for (const std::string& run : file.runs()) {
    if (attribute(file.run_attributes(run), "experiment.model") != "batch") continue;
    write_batsim_jobs(file, run, source, dir / (run + "_jobs.csv"));
    ++written;
  }
  if (written == 0) throw UsageError(source + ": no batch runs: --batsim writes the schedules of batch runs only");
  std::printf("wrote %zu schedule(s) as Batsim jobs files into %s\n", written, dir.c_str());
}

void export_results(const ExportOptions& o) {
  if (o.csv_dir.empty() && o.swf_dir.empty() && o.batsim_dir.empty())
    throw UsageError("export: give --csv DIR, --swf DIR or --batsim DIR (or several)");
  const results::Reader file(o.results);
  if (!file.complete())
    throw UsageError(o.results +
                     " is incomplete (its run did not finish): finish it with `tracewarp run ... --resume`");
  try {
    if (!o.csv_dir.empty()) export_csv(file, o.results, o.csv_dir);
    if (!o.swf_dir.empty()) export_swf(file, o.results, o.swf_dir);
    if (!o.batsim_dir.empty()) export_batsim(file, o.results, o.batsim_dir);
  } catch (const fs::filesystem_error& e) {  // a folder that cannot be made, a full disk
    throw IoError("export: " + std::string(e.what()));
  }
}

}  // namespace

void add_export_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "a results file as CSV (every table of every run), or batch schedules as SWF or Batsim");
  cmd->add_option("results", o->results, "results file (HDF5) written by tracewarp run")->required();
  cmd->add_option("--csv", o->csv_dir,
                  "folder to write: runs.csv (one row per run), and per run a folder with each table as CSV, "
                  "summary.csv and parameters.csv");
  cmd->add_option("--swf", o->swf_dir,
                  "folder to write each batch run's simulated schedule into, as <run>.swf (waits and run times "
                  "filled in, whole seconds)");
  cmd->add_option("--batsim", o->batsim_dir,
                  "folder to write each batch run's schedule into as Batsim's jobs file, <run>_jobs.csv (the columns "
                  "evalys reads; allocated_resources in Batsim's interval syntax)");
  cmd->callback([o, &action] {
    action = [o] {
      if (Communicator::world().rank() == 0) export_results(*o);
    };
  });
}

}  // namespace tracewarp::app
