// The normals of a host's availability walk, eight steps at a time (resources.hpp says what the
// walk is). Step n's two normals come from one Philox4x32-10 block keyed by (seed, host) at
// counter n, by Box-Muller with the portable log and sin/cos (core/portable_math.hpp): a pure
// function of (seed, host, n), the same bits with every kernel and on every machine.
//
// Each step costs a block and a transform. Drawing eight at once lets the compiler run the eight
// blocks and transforms side by side in vector registers; the kernels differ only in the
// instruction set they are compiled for, and the tests hold each to the portable one's bits.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace tracewarp::replication {

inline constexpr int kWalkBatch = 8;

struct WalkKey {
  std::uint64_t seed = 0;
  std::uint64_t host = 0;
};

// u drives x (variance 1 before scaling), w drives y; index i is step first + i.
struct StepNormals {
  double u[kWalkBatch];
  double w[kWalkBatch];
};

using DrawSteps = void (*)(const WalkKey& key, std::uint64_t first_step, StepNormals& out);

struct WalkKernel {
  std::string_view name;
  DrawSteps draw;
};

// Every kernel this CPU runs, the portable one first and the fastest last.
std::span<const WalkKernel> walk_kernels();

// The fastest kernel of this CPU.
inline void draw_steps(const WalkKey& key, std::uint64_t first_step, StepNormals& out) {
  static const DrawSteps fastest = walk_kernels().back().draw;
  fastest(key, first_step, out);
}

}  // namespace tracewarp::replication
