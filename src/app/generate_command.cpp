// tracewarp generate: write a workload to a file. Generators:
//   swf   the workload the configuration's workload.* keys describe (a trace after its
//         transforms: a window of jobs, WRA, inter-arrival and node scaling), as SWF.
// The synthetic generators of the studies (kcomputer, las) are added with their models.
#include <cstdio>

#include "commands.hpp"
#include "tracewarp/core/error.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/io/config.hpp"
#include "tracewarp/io/swf.hpp"
#include "tracewarp/io/transforms.hpp"
#include "tracewarp/model/registry.hpp"

namespace tracewarp::app {

void add_generate_command(CLI::App& app, Action& action) {
  struct Options {
    std::string config;
    std::string output;
    std::vector<std::string> sets;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("generate", "write a workload to a file (SWF)");
  cmd->require_subcommand(1);
  CLI::App* swf = cmd->add_subcommand("swf", "the workload of a configuration (workload.* keys), transformed, as SWF");
  swf->add_option("config", o->config, "experiment configuration (TOML); may be empty with --set workload.trace=...");
  swf->add_option("-o,--output", o->output, "output file (.swf, or .swf.gz to compress)")->required();
  swf->add_option("--set", o->sets, "override a key, e.g. --set workload.window_jobs=10000");
  swf->callback([o, &action] {
    action = [o] {
      if (Communicator::world().rank() != 0) return;
      const io::Experiment e = o->config.empty()
                                   ? io::parse_experiment("", "(no file)", o->sets, model::config_schema())
                                   : io::load_experiment(o->config, o->sets, model::config_schema());
      const io::Workload w = model::configured_workload(e.base);
      const auto it = w.header.find("CoresPerNode");
      const std::uint32_t cpn = it == w.header.end() ? 1 : static_cast<std::uint32_t>(std::stoul(it->second));
      io::write_swf(w, o->output, cpn);
      std::printf("wrote %zu jobs to %s (%zu transform%s)\n", w.jobs.size(), o->output.c_str(), w.transforms.size(),
                  w.transforms.size() == 1 ? "" : "s");
    };
  });
}

}  // namespace tracewarp::app
