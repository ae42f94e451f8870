#!/usr/bin/env bash
# libFuzzer campaigns on every input parser (fuzz/): builds the targets with clang, ASan and UBSan
# in build-fuzz/, then runs each for RUNS executions (default 10^7) or until a finding, from
# fuzz/corpus/<target> into build-fuzz/corpus/<target>. Findings (crash-*, timeout-*) land in
# build-fuzz/findings/<target>/; the summary line per target goes to build-fuzz/summary.txt.
#   scripts/fuzz.sh [RUNS] [TARGET ...]      e.g. scripts/fuzz.sh 100000 swf config
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000000}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(swf alibaba2017 alibaba2018-task alibaba2018-instance google2011 alcf task-durations config)
bash scripts/install-deps.sh
if ! command -v clang++ >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang
fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACEWARP_FUZZ=ON \
  -DTRACEWARP_BUILD_TESTS=OFF -DTRACEWARP_BUILD_BENCH=OFF -DTRACEWARP_WERROR=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/findings/$t"
  start=$(date +%s)
  if ./build-fuzz/fuzz/"fuzz_$t" -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="build-fuzz/findings/$t/" -print_final_stats=1 \
    "build-fuzz/corpus/$t" "fuzz/corpus/$t" >"build-fuzz/$t.log" 2>&1; then result=clean; else result=FINDING; fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build-fuzz/$t.log" | tail -1)
  line="$t: $result, ${execs:-?} executions in $(($(date +%s) - start)) s, corpus $(ls "build-fuzz/corpus/$t" | wc -l) inputs"
  echo "$line" | tee -a build-fuzz/summary.txt
  [ "$result" = clean ] || tail -30 "build-fuzz/$t.log"
done
