// What any trace reader accepts as a value: anything beyond is a corrupt record (an error naming
// file, line and field), never a number that overflows the simulator's nanosecond clock or a
// size the machine could not hold.
#pragma once

namespace tracewarp::traces {

inline constexpr double kMaxSeconds = 100.0 * 365 * 24 * 3600;  // a century: absolute Unix times fit
inline constexpr double kMaxCount = 2147483647.0;               // processors, nodes, instances, ids
inline constexpr double kMaxDemand = 1.0e9;                     // cores or memory units of one task

}  // namespace tracewarp::traces
