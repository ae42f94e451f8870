#include <catch2/catch.hpp>

#include <set>
#include <tuple>

#include "tracewarp/config/experiment.hpp"
#include "tracewarp/config/settings.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/model/phold/phold.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/workload/configured.hpp"
#include "tracewarp/workload/transforms.hpp"

using namespace tracewarp;
using namespace tracewarp::config;

namespace {
std::string error_of(const std::string& toml, const std::vector<std::string>& sets = {}) {
  try {
    parse_experiment(toml, "exp.toml", sets, experiment::config_schema());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

// The experiment file's own sections and the workload's, without any model's.
const ConfigSchema& sections_without_models() {
  static const ConfigSchema keys = [] {
    ConfigSchema all;
    for (const ConfigSchema* part : {&experiment_params().schema(), &workload::source_params().schema(),
                                     &workload::transform_params().schema(), &output_params().schema()})
      all.insert(all.end(), part->begin(), part->end());
    return all;
  }();
  return keys;
}

TEST_CASE("config: the core sections know no model; each model brings its own keys", "[unit][config]") {
  for (const ConfigKey& k : sections_without_models()) REQUIRE(k.name.rfind("phold.", 0) != 0);
  REQUIRE(find_config_key(experiment::config_schema(), "phold.remote") != nullptr);
  REQUIRE_THROWS_WITH(parse_experiment("[phold]\nlps = 3\n", "core.toml", {}, sections_without_models()),
                      "core.toml: unknown key 'phold.lps' (tracewarp run --keys lists them)");
}

TEST_CASE("config: every key has its documented default", "[unit][config]") {
  const Experiment e = parse_experiment("", "empty.toml", {}, experiment::config_schema());
  for (const ConfigKey& k : experiment::config_schema()) REQUIRE(e.base.values().at(k.name) == k.default_value);
  REQUIRE(e.base.get_string("engine.sync") == "sequential");
  REQUIRE(e.base.get_number("output.series_interval_s") == 300.0);
  REQUIRE(e.runs().size() == 1);
  REQUIRE(e.runs()[0].id == "run-0000");
}

TEST_CASE("config: file values, then --set overrides, with type conversion where lossless", "[unit][config]") {
  const Experiment e = parse_experiment("[phold]\nremote = 1\nlps = 64\n[engine]\nsync = \"optimistic\"\n", "exp.toml",
                                        {"phold.lps=128", "engine.window_s=2.5", "experiment.name=\"x y\""},
                                        experiment::config_schema());
  REQUIRE(e.base.get_number("phold.remote") == 1.0);  // integer accepted for a number
  REQUIRE(e.base.get_int("phold.lps") == 128);
  REQUIRE(e.base.get_number("engine.window_s") == 2.5);
  REQUIRE(e.base.get_string("engine.sync") == "optimistic");
  REQUIRE(e.base.get_string("experiment.name") == "x y");
}

TEST_CASE("config: unknown keys and wrong types name the key and the file", "[unit][config]") {
  REQUIRE(error_of("[phold]\nremotes = 0.5\n") ==
          "exp.toml: unknown key 'phold.remotes' (did you mean 'phold.remote'? tracewarp run --keys lists them)");
  REQUIRE(error_of("[phold]\nlps = \"many\"\n") ==
          "exp.toml: key 'phold.lps' must be an integer, got a string (\"many\")");
  REQUIRE(error_of("[phold]\nlps = 1.5\n") == "exp.toml: key 'phold.lps' must be an integer, got a number (1.5)");
  REQUIRE(error_of("", {"phold.lps=ten"}) == "--set: key 'phold.lps' must be an integer, got 'ten'");
  REQUIRE(error_of("", {"nothing"}) == "--set 'nothing': expected key=value");
  REQUIRE(error_of("", {"engine.gpu=1"}) == "--set: unknown key 'engine.gpu' (tracewarp run --keys lists them)");
  REQUIRE(error_of("[sweep]\n\"phold.remote\" = [0.1, \"x\"]\n").find("key 'phold.remote' must be a number") !=
          std::string::npos);
  REQUIRE(error_of("[sweep]\n\"phold.nope\" = [1]\n").find("unknown key 'phold.nope'") != std::string::npos);
  REQUIRE(error_of("[phold\nlps = 3\n").rfind("exp.toml:1:", 0) == 0);  // TOML syntax: file, line, column
}

TEST_CASE("config: a value out of its range names where it was given, the file or --set", "[unit][config]") {
  const auto read_phold = [](const std::string& toml, const std::vector<std::string>& sets) {
    phold::param_table().read(parse_experiment(toml, "exp.toml", sets, experiment::config_schema()).base);
  };
  REQUIRE_THROWS_WITH(read_phold("[phold]\nremote = 1.5\n", {}), "exp.toml: phold.remote must be in [0, 1], got 1.5");
  REQUIRE_THROWS_WITH(read_phold("", {"phold.remote=2"}), "--set: phold.remote must be in [0, 1], got 2");
  REQUIRE(error_of("[experiment]\nreplications = 0\n") == "exp.toml: experiment.replications must be >= 1, got 0");
}

TEST_CASE("config: sweeps cross in key order (last fastest), replications vary the seed fastest", "[unit][config]") {
  const Experiment e = parse_experiment(
      "[experiment]\nseed = 10\nreplications = 2\n"
      "[sweep]\n\"phold.remote\" = [0.1, 1.0]\nengine = { threads = [1, 2, 4] }\n",
      "exp.toml", {}, experiment::config_schema());
  const std::vector<RunSpec> runs = e.runs();
  REQUIRE(runs.size() == 12);
  // keys in order: engine.threads, phold.remote; then the seed
  std::vector<std::tuple<std::int64_t, double, std::int64_t>> points;
  for (const RunSpec& r : runs)
    points.emplace_back(r.config.get_int("engine.threads"), r.config.get_number("phold.remote"),
                        r.config.get_int("experiment.seed"));
  REQUIRE(points[0] == std::make_tuple(1, 0.1, 10));
  REQUIRE(points[1] == std::make_tuple(1, 0.1, 11));
  REQUIRE(points[2] == std::make_tuple(1, 1.0, 10));
  REQUIRE(points[4] == std::make_tuple(2, 0.1, 10));
  REQUIRE(points[11] == std::make_tuple(4, 1.0, 11));
  REQUIRE(runs[11].id == "run-0011");
  REQUIRE(runs[5].varied.size() == 3);
  // an override fixes a swept key
  const Experiment fixed = parse_experiment("[sweep]\n\"phold.remote\" = [0.1, 1.0]\n", "exp.toml",
                                            {"phold.remote=0.5"}, experiment::config_schema());
  REQUIRE(fixed.runs().size() == 1);
  REQUIRE(fixed.runs()[0].config.get_number("phold.remote") == 0.5);
}

TEST_CASE("config: a paired sweep takes its lists value by value and crosses them with the rest", "[unit][config]") {
  const std::string toml =
      "[sweep]\n\"phold.remote\" = [0.1, 1.0]\n"
      "[sweep.paired.size]\n\"phold.lps\" = [64, 128, 256]\n\"phold.end\" = [10.0, 20.0, 40.0]\n";
  const std::vector<RunSpec> runs = parse_experiment(toml, "exp.toml", {}, experiment::config_schema()).runs();
  REQUIRE(runs.size() == 6);  // 3 pairs x 2 remote fractions, not 3 x 3 x 2
  std::set<std::tuple<double, std::int64_t, double>> points;
  for (const RunSpec& r : runs) {
    points.emplace(r.config.get_number("phold.remote"), r.config.get_int("phold.lps"),
                   r.config.get_number("phold.end"));
    REQUIRE(r.config.get_number("phold.end") == 10.0 * static_cast<double>(r.config.get_int("phold.lps")) / 64);
    REQUIRE(r.varied.size() == 3);
  }
  REQUIRE(points.size() == 6);
  // Lists of different lengths cannot go value by value.
  REQUIRE_THAT(error_of("[sweep.paired.size]\n\"phold.lps\" = [64, 128]\n\"phold.end\" = [10.0]\n"),
               Catch::Contains("paired lists go value by value"));
  REQUIRE_THAT(error_of("[sweep]\n\"phold.lps\" = [1]\n[sweep.paired.x]\n\"phold.lps\" = [2]\n"),
               Catch::Contains("given twice"));
  // --set fixes one key of a pair; the other still varies.
  const Experiment fixed = parse_experiment(toml, "exp.toml", {"phold.lps=32"}, experiment::config_schema());
  REQUIRE(fixed.runs().size() == 6);
  REQUIRE(fixed.runs()[0].config.get_int("phold.lps") == 32);
}

TEST_CASE("config: numbers print in their shortest exact form", "[unit][config]") {
  REQUIRE(to_string(ConfigValue{0.1}) == "0.1");
  REQUIRE(to_string(ConfigValue{2.0}) == "2.0");
  REQUIRE(to_string(ConfigValue{std::int64_t{3}}) == "3");
  REQUIRE(to_string(ConfigValue{std::string("a")}) == "\"a\"");
}

TEST_CASE("config: non-ASCII text the TOML parser of Debian 12 mishandled is a plain error (fuzz findings)",
          "[unit][config]") {
  const ConfigSchema& keys = experiment::config_schema();
  // toml++ 3.3 reached __builtin_unreachable on each of these (upstream #190, #295; src/config/toml.hpp).
  for (const std::string& text : {std::string("\xd1\x87"), std::string("[experiment]\nseed = -'[e\xef\xbb\xbexic\"\n"),
                                  std::string("[''.'['\xc9\xae\x03"), std::string("\"\"\" \\\xef\xbb\xb7")})
    CHECK_THROWS_AS(parse_experiment(text, "odd.toml", {}, keys), ConfigError);
  CHECK_THROWS_WITH(parse_experiment("\xd1\x87", "cyrillic.toml", {}, keys), Catch::StartsWith("cyrillic.toml:1:1: "));
  // ... and accepted where TOML allows it: in strings, comments, after a line-ending backslash.
  const Experiment e = parse_experiment(
      "[experiment] # \xd1\x87\nname = \"\"\"caf\\\n  \xc2\xa7\xc3\xa9\"\"\"\n[output]\nfile = '\xd1\x87.h5'\n",
      "ok.toml", {}, keys);
  CHECK(e.base.get_string("experiment.name") == "caf\xc2\xa7\xc3\xa9");
  // A sweep of more runs than any machine could hold is refused before it is expanded.
  CHECK_THROWS_WITH(
      parse_experiment("[experiment]\nreplications = 100000\n[sweep]\n\"phold.lps\" = [1, 2]\n", "big.toml", {}, keys),
      Catch::Contains("the sweep makes 200000 runs"));
}
