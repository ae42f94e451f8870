// The TOML experiment configuration, with every key tracewarp declares: any text is either an
// experiment whose runs (sweep expanded) pass the experiment, engine, workload and output
// checks, or a ConfigError/UsageError naming what is wrong; never a crash, a hang, a sanitizer
// report or another exception (a std::bad_variant_access from a mistyped value, say). The
// models' own sections are checked again when a model reads them at run time; that code is not
// reached here. (fuzz/CMakeLists.txt builds it.)
#include <string>

#include "fuzz_input.hpp"
#include "tracewarp/config/experiment.hpp"
#include "tracewarp/config/settings.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/workload/configured.hpp"
#include "tracewarp/workload/transforms.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tracewarp;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const config::Experiment e = config::parse_experiment(text, "fuzz.toml", {}, experiment::config_schema());
    if (e.run_count() < 1 || e.run_count() > static_cast<double>(config::kMaxRuns)) fuzz::violated("run count");
    if (e.run_count() > 4096) return 0;  // expanding is linear in the runs; the checks below need a few
    const std::vector<config::RunSpec> runs = e.runs();
    if (static_cast<double>(runs.size()) != e.run_count()) fuzz::violated("run count differs from the expansion");
    for (std::size_t i = 0; i < runs.size() && i < 64; ++i) {
      const Config& c = runs[i].config;
      engine_params().read(c);
      experiment::run_layout_params().read(c);
      workload::source_params().read(c);
      workload::transform_params().read(c);
      config::output_params().read(c);
      model::find_model(experiment::model_params().read(c).model);
      model::generator_params().read(c);
    }
  } catch (const Error& e) {  // bad input must be an exit-2 error, never a "run failure"
    if (e.exit_code() != 2) fuzz::violated(e.what());
  }
  return 0;
}
