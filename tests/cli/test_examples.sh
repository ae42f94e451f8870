#!/usr/bin/env bash
# Examples are tests: every experiments/**/*.toml runs, shortened by the overrides below (fewer
# days, tasks or hosts; sweeps kept, replications cut), and writes a complete results file.
# Configurations that read a trace from the data folder are skipped with a message when it is
# absent. With REFERENCE=<another tracewarp>, each configuration also runs with that binary and
# the two files must hold identical model data (how a refactor proves it changed no result;
# parameters added since the reference are allowed).
#   tests/cli/test_examples.sh TRACEWARP PYTHON SRC
set -u
tw="$1"; python="$2"; src="$3"
export TRACEWARP_DATA="${TRACEWARP_DATA:-$src/../shared/data}"
data="$TRACEWARP_DATA"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0; ran=0

shorten() {  # the --set arguments that make one configuration quick
  case "$1" in
    */phold/*) echo "--set phold.end=50" ;;
    */kcomputer-interval/*) echo "--set kmix.days=1 --set batch.window_from_s=0 --set batch.window_until_s=0 --set experiment.replications=1" ;;
    */wrsa-backfill/study.toml) echo "--set workload.window_jobs=1500 --set workload.window_start=0 --set workload.iat_scale=0.5" ;;
    */wrsa-backfill/*) echo "--set workload.window_jobs=1500" ;;
    */replay/*) echo "--set workload.window_jobs=2000" ;;
    */las-multiresource/alibaba2017.toml) echo "--set workload.window_jobs=3000" ;;
    */las-multiresource/sensitivity-nodes.toml) echo "--set lasmix.tasks=2000" ;;
    */las-multiresource/*) echo "--set lasmix.tasks=2000 --set las.nodes=16" ;;
    */replication/scale.toml) echo "--set replication.hosts=2000 --set replication.tasks=10000" ;;
    */replication/study.toml) echo "--set replication.tasks=200 --set experiment.replications=1 --set replication.grain=1e9" ;;
    */mapreduce-stragglers/scale.toml) echo "--set mapreduce.workers=100 --set mapreduce.jobs=4" ;;
    */mapreduce-stragglers/*) echo "--set mapreduce.workers=10 --set mapreduce.maps=300 --set mapreduce.reduces=40 --set experiment.replications=1" ;;
    */replication/*) echo "--set replication.hosts=100 --set replication.tasks=500 --set experiment.replications=1" ;;
    *) echo "" ;;
  esac
}

for toml in $(cd "$src" && find experiments -name '*.toml' | sort); do
  if grep -q 'TRACEWARP_DATA' "$src/$toml" && [ ! -d "$data/traces" ]; then
    echo "skip $toml (no traces in $data)"; continue
  fi
  name=$(echo "$toml" | tr '/' '_')
  # shellcheck disable=SC2046
  if "$tw" run "$src/$toml" -q -o "$work/$name.h5" $(shorten "$toml") >"$work/$name.log" 2>&1 &&
    "$python" -c "import h5py,sys; sys.exit(0 if h5py.File(sys.argv[1])['/'].attrs['complete'] == 1 else 1)" "$work/$name.h5"; then
    echo "ok   $toml"
  else
    echo "FAIL $toml"; head -5 "$work/$name.log"; failures=$((failures + 1))
  fi
  ran=$((ran + 1))
  if [ -n "${REFERENCE:-}" ]; then
    # shellcheck disable=SC2046
    "$REFERENCE" run "$src/$toml" -q -o "$work/$name.ref.h5" $(shorten "$toml") >/dev/null 2>&1 || echo "     (reference failed)"
    if "$python" "$src/tests/python/compare_results.py" --allow-new-parameters "$work/$name.ref.h5" "$work/$name.h5" >"$work/$name.cmp" 2>&1; then
      echo "ok   $toml: identical to the reference"; else echo "FAIL $toml: differs from the reference"; cat "$work/$name.cmp" | head -5; failures=$((failures + 1)); fi
  fi
done
echo "examples: $ran configurations, $failures failure(s)"
[ "$failures" -eq 0 ] && [ "$ran" -gt 0 ]
