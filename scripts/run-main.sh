#!/usr/bin/env bash
# Everything from a fresh Debian 12 machine to the main job's result: installs the Debian
# packages, builds, and runs the main job on its embedded default — for now the PHOLD engine
# benchmark at the standard settings (1024 LPs, 16 events/LP, remote 0.1, end 1000), once
# sequentially and once optimistically on 2 MPI ranks. Extra arguments go to both runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target tracewarp
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "== sequential, 1 rank"
./build/tracewarp bench phold --lps 1024 "$@"
echo
echo "== optimistic, 2 ranks"
mpirun -np 2 --oversubscribe ./build/tracewarp bench phold --lps-per-rank 512 --sync optimistic "$@"
