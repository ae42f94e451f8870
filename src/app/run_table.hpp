// The table of runs that `run` prints for a sweep and `report` prints for a results file: one
// row per run with its id, the values of the swept keys and chosen summary figures (a model's
// headline figures unless --columns names others, or "all").
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tracewarp/core/tables.hpp"

namespace tracewarp::app {

class RunTable {
 public:
  // `swept`: the keys a sweep varies (the seed among them with replications); `figures`: the
  // summary figures shown, or {"all"} for every figure of the first row's summary.
  RunTable(std::vector<std::string> swept, std::vector<std::string> figures);

  // Widens the columns to a row's values (call it for the rows known before the header). The
  // first call fixes the figures under "all" (`summary`'s) and each column's alignment.
  void fit(const Attributes& swept_values, const Attributes& summary);
  std::string header(const std::string& tail = "") const;  // `tail`: a last column's heading
  // One row (after at least one fit). A swept key or figure the run lacks is shown as "-".
  std::string row(const std::string& id, const Attributes& swept_values, const Attributes& summary,
                  const std::string& tail = "") const;
  // The asked figures that `summary` lacks (for a warning).
  std::vector<std::string> missing(const Attributes& summary) const;

 private:
  std::vector<std::string> swept_, figures_;
  std::vector<std::string> headings_;  // swept keys without their section where that stays unique
  std::vector<std::size_t> widths_;    // id, swept keys, figures
  std::vector<bool> numeric_;          // right-aligned
};

// --columns as given ("a,b,c", "all"), else the model's headline figures.
std::vector<std::string> table_columns(const std::string& option, const std::vector<std::string>& headline);
// The swept keys' values from a run's "varied" attribute ("key=value, key=value"), taken from
// the run's parameters where it records the key.
Attributes swept_values(const std::string& varied, const Attributes& parameters);
// The keys of a run's "varied" attribute, in its order.
std::vector<std::string> swept_keys(const std::string& varied);

}  // namespace tracewarp::app
