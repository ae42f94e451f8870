// What several subcommands share: engine options and the terminal progress line.
#include "commands.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace tracewarp::app {

void add_key_options(CLI::App& cmd, const ConfigSchema& keys, std::vector<std::pair<std::string, std::string>>& given) {
  for (const ConfigKey& k : keys) {
    std::string flag = k.name.substr(k.name.find('.') + 1);
    std::replace(flag.begin(), flag.end(), '_', '-');
    const std::string key = k.name;
    cmd.add_option_function<std::string>(
           "--" + flag, [&given, key](const std::string& text) { given.emplace_back(key, text); },
           k.meaning + " (" + k.name + ")")
        ->default_str(tracewarp::to_string(k.default_value));
  }
}

bool progress_shown(bool quiet) { return !quiet && isatty(STDERR_FILENO); }

std::function<void(const Progress&)> terminal_progress(std::function<std::string()> describe, bool quiet) {
  if (!progress_shown(quiet)) return {};
  return [describe = std::move(describe)](const Progress& p) {
    const std::string label = describe();
    const double reached = to_seconds(p.reached);
    const double rate = p.wall_s > 0 ? static_cast<double>(p.committed) / p.wall_s : 0;
    if (p.end != kTimeInfinity && p.reached > 0) {
      const double fraction = std::min(1.0, static_cast<double>(p.reached) / static_cast<double>(p.end));
      const double eta = fraction > 0 ? p.wall_s * (1 - fraction) / fraction : 0;
      std::fprintf(stderr, "\r[tracewarp] %s  t = %.6g s (%.1f%%)  %.3g events/s (rank 0)  ETA %.0f s   ",
                   label.c_str(), reached, 100 * fraction, rate, eta);
    } else {
      std::fprintf(stderr, "\r[tracewarp] %s  t = %.6g s  %.3g events/s (rank 0)   ", label.c_str(), reached, rate);
    }
    std::fflush(stderr);
  };
}

}  // namespace tracewarp::app
