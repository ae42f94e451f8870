// PHOLD as an experiment (experiment.model = "phold"): committed events per series interval,
// and the checksum.
#include <cstdio>

#include "tracewarp/config/settings.hpp"
#include "tracewarp/model/phold/phold.hpp"
#include "tracewarp/model/registry.hpp"

namespace tracewarp::phold {
namespace {

struct SeriesRow {
  double time_s;
  std::uint64_t committed;
};
const TableSchema kSeries{
    "series",
    sizeof(SeriesRow),
    {TRACEWARP_COLUMN(SeriesRow, time_s, "s", "start of the interval"),
     TRACEWARP_COLUMN(SeriesRow, committed, "events", "events committed with a time in the interval")},
    "PHOLD: committed events per output.series_interval_s"};

// The phold.* keys and the run context, checked.
Params prepare(const Config& c) {
  Params p = param_table().read(c);
  p.context = model::run_context(c);
  model::check_series_rows(c, from_seconds(p.end));  // first: it names the key
  p.validate();
  return p;
}

model::RunOutput output(const Result& r, const Params& p) {
  model::RunOutput out;
  char checksum[24];
  std::snprintf(checksum, sizeof checksum, "0x%016llx", static_cast<unsigned long long>(r.checksum));
  out.summary = {{"committed", static_cast<std::int64_t>(r.committed)}, {"checksum", std::string(checksum)}};
  std::vector<SeriesRow> rows;
  for (std::size_t i = 0; i < r.per_interval.size(); ++i)
    rows.push_back({static_cast<double>(i) * to_seconds(p.context.series_interval), r.per_interval[i]});
  out.tables.push_back(model::table_of(kSeries, rows));
  return out;
}

}  // namespace

const model::ModelInfo& phold_model() {
  static const model::ModelInfo info = [] {
    model::ModelInfo m =
        model::make_model<Params, Result>("phold", "the PHOLD engine benchmark (docs/studies.md#engine); keys phold.*",
                                          {&kSeries}, model::keys_of(param_table()), {}, {prepare, run, output});
    m.headline = {"committed", "checksum"};
    return m;
  }();
  return info;
}

}  // namespace tracewarp::phold
