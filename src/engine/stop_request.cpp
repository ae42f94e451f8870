#include "tracewarp/engine/stop_request.hpp"

#include <atomic>

namespace tracewarp {
namespace {
// Lock-free, so a signal handler may set it.
std::atomic<bool> requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);
}  // namespace

void request_stop() noexcept { requested.store(true, std::memory_order_relaxed); }
bool stop_requested() noexcept { return requested.load(std::memory_order_relaxed); }
void clear_stop_request() noexcept { requested.store(false, std::memory_order_relaxed); }

}  // namespace tracewarp
