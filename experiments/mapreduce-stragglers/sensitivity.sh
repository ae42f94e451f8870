#!/bin/sh
# How the robustness and benefit findings depend on two readings the study leaves open: lambda
# (fixed 0.5, 1, 2, or estimated from the sample) and the start-up of an attempt (0-10 s).
# Each value re-runs robustness.toml and benefit.toml (10 seeds) with one key changed; then
# sensitivity.py prints the tables of the README.
#   sh experiments/mapreduce-stragglers/sensitivity.sh [OUT_DIR] [TRACEWARP]
# EXTRA: more --set arguments for every run (the tests shrink the cluster with it).
set -e
here=$(dirname "$0")
out=${1:-mapreduce-sensitivity}
tw=${2:-build/tracewarp}
mkdir -p "$out"
run() {  # NAME KEY=VALUE
  for e in robustness benefit; do
    # shellcheck disable=SC2086
    "$tw" run "$here/$e.toml" -q --force -o "$out/$1-$e.h5" --set "$2" ${EXTRA:-}
  done
}
for v in 0.5 1 2; do run "lambda-$v" "mapreduce.lambda=$v"; done
run "lambda-sample" "mapreduce.lambda_from_sample=true"
for v in 0 2 5 10; do run "startup-$v" "mapreduce.startup_s=$v"; done
/usr/bin/python3 "$here/sensitivity.py" "$out"
