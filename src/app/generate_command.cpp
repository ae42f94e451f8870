// tracewarp generate: write a workload to a file. Generators:
//   swf        the workload the configuration's workload.* keys describe (a trace after its
//              transforms, or a model's generator), as SWF.
//   kcomputer  the K computer job mix (workload/kcomputer_mix.hpp; keys kmix.*, seed
//              experiment.seed), as SWF.
#include <cstdio>

#include "commands.hpp"
#include "tracewarp/config/experiment.hpp"
#include "tracewarp/config/settings.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/experiment/settings.hpp"
#include "tracewarp/model/registry.hpp"
#include "tracewarp/traces/swf.hpp"
#include "tracewarp/workload/configured.hpp"

namespace tracewarp::app {
namespace {

struct Options {
  std::string config;
  std::string output;
  std::vector<std::string> sets;
};

// Loads the configuration (with `forced` settings after the user's), builds its workload and
// writes it as SWF, on world rank 0.
void write_workload(const Options& o, const std::vector<std::string>& forced) {
  if (Communicator::world().rank() != 0) return;
  std::vector<std::string> sets = o.sets;
  sets.insert(sets.end(), forced.begin(), forced.end());
  const config::Experiment e = o.config.empty()
                                   ? config::parse_experiment("", "(no file)", sets, experiment::config_schema())
                                   : config::load_experiment(o.config, sets, experiment::config_schema());
  const workload::Workload w = model::configured_workload(e.base);
  const auto it = w.header.find("CoresPerNode");
  const std::uint32_t cpn = it == w.header.end() ? 1 : static_cast<std::uint32_t>(std::stoul(it->second));
  traces::write_swf(w, o.output, cpn);
  std::printf("wrote %zu jobs to %s (%zu transform%s)\n", w.jobs.size(), o.output.c_str(), w.transforms.size(),
              w.transforms.size() == 1 ? "" : "s");
}

void add_options(CLI::App* cmd, Options& o, const char* config_help, const char* set_example) {
  cmd->add_option("config", o.config, config_help);
  cmd->add_option("-o,--output", o.output, "output file (.swf, or .swf.gz to compress)")->required();
  cmd->add_option("--set", o.sets, set_example);
}

}  // namespace

void add_generate_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("generate", "write a workload to a file (SWF)");
  cmd->require_subcommand(1);
  CLI::App* swf = cmd->add_subcommand("swf", "the workload of a configuration (workload.* keys), transformed, as SWF");
  add_options(swf, *o, "experiment configuration (TOML); may be empty with --set workload.trace=...",
              "override a key, e.g. --set workload.window_jobs=10000");
  swf->callback([o, &action] { action = [o] { write_workload(*o, {}); }; });
  CLI::App* k = cmd->add_subcommand("kcomputer", "a K computer job mix (kmix.* keys, seed experiment.seed), as SWF");
  add_options(k, *o, "optional configuration (TOML) for kmix.*, batch.machine and workload.* transforms",
              "override a key, e.g. --set kmix.days=30 --set experiment.seed=7");
  k->callback([o, &action] {
    action = [o] {
      write_workload(*o, {model::generator_params().key_of(&model::GeneratorChoice::generator) + "=kcomputer"});
    };
  });
}

}  // namespace tracewarp::app
