#include "tracewarp/config/experiment.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "toml.hpp"
#include "tracewarp/config/settings.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/core/memory.hpp"

namespace tracewarp::config {
namespace {

ConfigValue from_toml(const toml::node& node, const std::string& key, const std::string& origin) {
  if (const auto* b = node.as_boolean()) return b->get();
  if (const auto* i = node.as_integer()) return i->get();
  if (const auto* f = node.as_floating_point()) return f->get();
  if (const auto* s = node.as_string()) return s->get();
  throw ConfigError(origin + ": key '" + key +
                    "' has a value of an unsupported kind (tables, arrays and dates are not settings)");
}

// Walks a table, calling f(dotted key, node) for every leaf (non-table) node.
template <class F>
void for_each_leaf(const toml::table& table, const std::string& prefix, F&& f) {
  for (const auto& [k, node] : table) {
    const std::string name = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* sub = node.as_table())
      for_each_leaf(*sub, name, f);
    else
      f(name, node);
  }
}

}  // namespace

namespace {

// What one run of an expanded sweep holds: a full copy of the parameters (Experiment::runs), each
// a map node of key and value (and of origin, where one was given), its key on the heap when
// longer than a short string holds. Measured on 143 keys: 10,000 PHOLD runs hold 210 MB more at
// the sweep's start than 1 run; this gives 200 MB.
double bytes_per_run(const Config& base) {
  constexpr double kMapNode = 120;  // red-black node, key and variant value, allocator header
  double bytes = 0;
  for (const auto& [key, value] : base.values()) {
    bytes += kMapNode + (key.size() > 15 ? 32.0 : 0.0);
    if (const auto* text = std::get_if<std::string>(&value)) bytes += static_cast<double>(text->size());
    if (!base.origin_of(key).empty()) bytes += kMapNode + static_cast<double>(key.size() + base.origin_of(key).size());
  }
  return bytes;
}

// A sweep too large to expand in memory is refused before it is expanded (a 100,000-run sweep
// once needed 4 GB for its parameters alone), with what it would take.
void refuse_expansion_beyond_memory(const Experiment& e, const std::string& source) {
  const double runs = e.run_count(), need = runs * bytes_per_run(e.base);
  const double usable = static_cast<double>(usable_memory_bytes());
  if (usable <= 0 || need <= usable / 2) return;
  char text[160];
  std::snprintf(text, sizeof text,
                "%.0f runs, each a full copy of its parameters: about %.1f GB, more than half the %.1f GB", runs,
                need / 1e9, usable / 1e9);
  throw ConfigError(source + ": the sweep makes " + text +
                    " this process may use; split it into several experiments (or fewer replications)");
}

}  // namespace

Experiment parse_experiment(const std::string& text, const std::string& source,
                            const std::vector<std::string>& overrides, const ConfigSchema& schema) {
  Experiment e{source, text, Config(schema), {}, {}, {}};
  e.overrides = overrides;
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& err) {
    const auto& where = err.source().begin;
    throw ConfigError(source + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) + ": " +
                      std::string(err.description()));
  }
  const std::string paired_prefix = "sweep.paired.";
  for_each_leaf(root, "", [&](const std::string& key, const toml::node& node) {
    if (key.rfind("sweep.", 0) != 0) {
      e.base.set(key, from_toml(node, key, source), source);
      return;
    }
    std::string target = key.substr(6), paired;
    if (key.rfind(paired_prefix, 0) == 0) {  // sweep.paired.<name>.<key>
      const std::string rest = key.substr(paired_prefix.size());
      const auto dot = rest.find('.');
      if (dot == std::string::npos)
        throw ConfigError(source + ": '" + key + "': a paired sweep is a table, [sweep.paired.<name>], of lists");
      paired = rest.substr(0, dot);
      target = rest.substr(dot + 1);
    }
    if (const ConfigKey* k = find_config_key(schema, target); k != nullptr && k->whole_sweep_only)
      throw ConfigError(source + ": sweep key '" + target +
                        "' is read once for the whole sweep, not per run, so a sweep over it would be ignored: run one "
                        "experiment per value instead");
    const auto* list = node.as_array();
    if (list == nullptr || list->empty())
      throw ConfigError(source + ": sweep key '" + target + "' must be a non-empty list of values");
    std::vector<ConfigValue> values;
    Config probe(schema);
    for (const toml::node& item : *list) {
      const ConfigValue v = from_toml(item, target, source);
      probe.set(target, v, source);  // validates key and type now, not at run time
      values.push_back(probe.values().at(target));
    }
    const auto group = std::find_if(e.sweep.begin(), e.sweep.end(),
                                    [&](const SweepDimension& d) { return !paired.empty() && d.paired == paired; });
    if (group == e.sweep.end()) {
      e.sweep.push_back({paired, {{target, std::move(values)}}});
      return;
    }
    if (values.size() != group->size())
      throw ConfigError(source + ": sweep.paired." + paired + ": '" + target + "' has " +
                        std::to_string(values.size()) + " values and '" + group->keys.front().first + "' " +
                        std::to_string(group->size()) + ": paired lists go value by value, so they need as many each");
    group->keys.emplace_back(target, std::move(values));
  });
  for (const SweepDimension& d : e.sweep)
    for (const auto& [key, values] : d.keys)
      for (const SweepDimension& other : e.sweep)
        for (const auto& [other_key, other_values] : other.keys)
          if (&d != &other && key == other_key) throw ConfigError(source + ": sweep key '" + key + "' is given twice");
  // In order, so a key given twice takes its last value (a script's defaults, then the user's);
  // every one is checked, and all are kept in the results file's `overrides`.
  for (const std::string& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0) throw ConfigError("--set '" + o + "': expected key=value");
    const std::string key = o.substr(0, eq);
    e.base.set_from_text(key, o.substr(eq + 1), "--set");
    // An override of a swept key fixes it (its paired keys still go together), and says so.
    for (SweepDimension& d : e.sweep)
      for (const auto& [swept, values] : d.keys)
        if (swept == key)
          e.notes.push_back("--set " + key + " fixes a swept key: its " + std::to_string(values.size()) +
                            " values in " + source + " give way to one");
    for (SweepDimension& d : e.sweep) std::erase_if(d.keys, [&](const auto& k) { return k.first == key; });
    std::erase_if(e.sweep, [](const SweepDimension& d) { return d.keys.empty(); });
  }
  experiment_params().read(e.base);  // the experiment section's bounds, now rather than per run
  // A sweep is expanded into one RunSpec (a full copy of the parameters) per run.
  if (const double runs = e.run_count(); runs > static_cast<double>(kMaxRuns)) {
    char count[32];
    std::snprintf(count, sizeof count, "%.6g", runs);
    throw ConfigError(source + ": the sweep makes " + count +
                      " runs (sweep points x experiment.replications); at most " + std::to_string(kMaxRuns));
  }
  refuse_expansion_beyond_memory(e, source);
  return e;
}

Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides,
                           const ConfigSchema& schema) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError("configuration '" + path + "' is a directory: give the experiment's TOML file");
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot open configuration '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_experiment(text.str(), path, overrides, schema);
}

std::string RunSpec::varied_text() const {
  std::string s;
  for (const auto& [k, v] : varied) s += (s.empty() ? "" : ", ") + k + "=" + to_string(v);
  return s;
}

double Experiment::run_count() const {
  double runs = static_cast<double>(experiment_params().read(base).replications);
  for (const SweepDimension& d : sweep) runs *= static_cast<double>(d.size());
  return runs;
}

std::vector<RunSpec> Experiment::runs() const {
  std::vector<RunSpec> out;
  const ExperimentSettings settings = experiment_params().read(base);
  const std::int64_t replications = settings.replications;
  const std::string& seed_key = experiment_params().key_of(&ExperimentSettings::seed);
  std::size_t points = 1;
  for (const SweepDimension& d : sweep) points *= d.size();
  for (std::size_t p = 0; p < points; ++p) {
    // Mixed-radix digits of p, the last sweep dimension fastest.
    std::size_t rest = p;
    std::vector<std::size_t> digit(sweep.size());
    for (std::size_t k = sweep.size(); k-- > 0;) {
      digit[k] = rest % sweep[k].size();
      rest /= sweep[k].size();
    }
    for (std::int64_t r = 0; r < replications; ++r) {
      RunSpec run{"", 0, base, {}};
      run.index = out.size();
      char id[32];
      std::snprintf(id, sizeof id, "run-%04zu", run.index);
      run.id = id;
      for (std::size_t k = 0; k < sweep.size(); ++k)
        for (const auto& [key, values] : sweep[k].keys) {
          run.config.set(key, values[digit[k]], source);
          run.varied[key] = values[digit[k]];
        }
      std::int64_t run_seed = 0;
      if (__builtin_add_overflow(experiment_params().read(run.config).seed, replications > 1 ? r : 0, &run_seed))
        throw ConfigError(source + ": " + seed_key + " + " + std::to_string(replications - 1) +
                          " (the replications' seeds) exceeds the largest seed, " +
                          std::to_string(std::numeric_limits<std::int64_t>::max()));
      run.config.set(seed_key, run_seed, source);
      if (replications > 1 || run.varied.count(seed_key)) run.varied[seed_key] = run_seed;
      out.push_back(std::move(run));
    }
  }
  return out;
}

}  // namespace tracewarp::config
