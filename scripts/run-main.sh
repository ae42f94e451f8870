#!/usr/bin/env bash
# Everything from a fresh Debian 12 machine to the main job's result: installs the Debian
# packages, builds, and runs the main job on its embedded default — a short K computer
# interval-scheduling experiment (experiments/kcomputer-interval/quick.toml: the full
# 82,944-node machine in its small and large resource groups, 3 days of a generated job mix,
# pattern A, measured from day 2) — and prints its summary. Extra arguments go to `tracewarp run`
# (e.g. --set batch.interval_pattern=C).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target tracewarp
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
./build/tracewarp run experiments/kcomputer-interval/quick.toml -o build/kcomputer-quick.h5 "$@"
