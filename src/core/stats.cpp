#include "tracewarp/core/stats.hpp"

#include <algorithm>
#include <cstdio>

namespace tracewarp {

double RunStats::efficiency() const {
  if (total.committed == 0) return 1.0;
  return 1.0 - static_cast<double>(total.rolled_back) / static_cast<double>(total.committed);
}

double RunStats::imbalance() const {
  if (per_rank.empty() || total.committed == 0) return 1.0;
  std::uint64_t most = 0;
  for (const auto& r : per_rank) most = std::max(most, r.committed);
  const double mean = static_cast<double>(total.committed) / static_cast<double>(per_rank.size());
  return static_cast<double>(most) / mean;
}

std::string RunStats::brief() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "engine: %s, %d rank(s) x %d thread(s), %.3f s wall\n"
                "  committed %llu events (%.3g /s), rolled back %llu in %llu rollbacks, "
                "efficiency %.4f\n"
                "  anti-messages %llu, GVT rounds %llu, imbalance %.3f, peak RSS %.1f MiB (max rank)",
                sync.c_str(), ranks, threads, wall_s, static_cast<unsigned long long>(total.committed), events_per_s(),
                static_cast<unsigned long long>(total.rolled_back), static_cast<unsigned long long>(total.rollbacks),
                efficiency(), static_cast<unsigned long long>(total.anti_messages),
                static_cast<unsigned long long>(total.gvt_rounds), imbalance(),
                static_cast<double>(total.peak_rss_bytes) / (1024.0 * 1024.0));
  std::string text = buf;
  if (total.committed_at_once > 0) {
    std::snprintf(buf, sizeof buf, "\n  committed at once (within the lookahead of GVT): %llu events",
                  static_cast<unsigned long long>(total.committed_at_once));
    text += buf;
  }
  if (total.tuning_steps > 0) {
    std::snprintf(buf, sizeof buf, "\n  tuned optimism: %llu steps, ending at window %g s, GVT interval %llu",
                  static_cast<unsigned long long>(total.tuning_steps), static_cast<double>(total.window_end_ns) * 1e-9,
                  static_cast<unsigned long long>(total.gvt_interval_end));
    text += buf;
  }
  return text;
}

}  // namespace tracewarp
