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

namespace {
// "t = 12.5 s (3.2%)  4.1e+06 events/s (rank 0)  ETA 380 s": where a run stands.
std::string progress_text(const Progress& p) {
  const double reached = to_seconds(p.reached);
  const double rate = p.wall_s > 0 ? static_cast<double>(p.committed) / p.wall_s : 0;
  char text[160];
  if (p.reached == kTimeInfinity) {  // every event done: the run is writing its results
    std::snprintf(text, sizeof text, "all events done  %.3g events/s (rank 0)", rate);
  } else if (p.end != kTimeInfinity && p.reached > 0) {
    const double fraction = std::min(1.0, static_cast<double>(p.reached) / static_cast<double>(p.end));
    const double eta = fraction > 0 ? p.wall_s * (1 - fraction) / fraction : 0;
    std::snprintf(text, sizeof text, "t = %.6g s (%.1f%%)  %.3g events/s (rank 0)  ETA %.0f s", reached, 100 * fraction,
                  rate, eta);
  } else {
    std::snprintf(text, sizeof text, "t = %.6g s  %.3g events/s (rank 0)", reached, rate);
  }
  return text;
}
}  // namespace

std::function<void(const Progress&)> terminal_progress(std::function<std::string()> describe, bool quiet,
                                                       const std::shared_ptr<PlainProgress>& plain) {
  if (quiet) return {};
  if (progress_shown(quiet))  // a terminal: one line, redrawn in place
    return [describe = std::move(describe)](const Progress& p) {
      std::fprintf(stderr, "\r[tracewarp] %s  %s   ", describe().c_str(), progress_text(p).c_str());
      std::fflush(stderr);
    };
  if (plain == nullptr || plain->every_s <= 0) return {};
  // A pipe or a file (mpirun, Slurm): whole lines, one per interval, for a log that is read later.
  return [describe = std::move(describe), plain](const Progress& p) {
    const double now = plain->clock.seconds();
    if (now - plain->last_s < plain->every_s) return;
    plain->last_s = now;
    std::fprintf(stderr, "[tracewarp] %.0f s: %s  %s\n", now, describe().c_str(), progress_text(p).c_str());
    std::fflush(stderr);
  };
}

}  // namespace tracewarp::app
