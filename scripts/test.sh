#!/usr/bin/env bash
# Everything from a fresh Debian 12 machine to a passing test suite:
# installs the Debian packages, builds with -Wall -Wextra -Werror, runs ctest (unit, MPI on
# 1/2/3/4/8 ranks, command line). Validation tests on real traces run too when the traces are
# present (TRACEWARP_DATA, default ../shared/data); pass --fast to skip the 'validation' label.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build_dir=${BUILD_DIR:-build}
jobs=$(nproc)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRACEWARP_WERROR=ON
cmake --build "$build_dir" -j "$jobs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest_args=(--test-dir "$build_dir" --output-on-failure)
if [ "${1:-}" = "--fast" ]; then ctest_args+=(-LE validation); fi
ctest "${ctest_args[@]}" -j "$jobs"
