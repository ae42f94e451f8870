#!/bin/sh
# How the robustness and benefit findings depend on readings the study leaves open: lambda
# (fixed 0.5, 1, 2, or estimated from the sample), the start-up of an attempt (its wait, 0-10 s,
# and its CPU work, 0.5-1 core-s), a killed attempt's clean-up (1 core-s), how often tasks
# report progress (1 s against Hadoop's 3 s), the reports an attempt needs before it has an
# estimate (5 against 1), the maps' spread (CV 0.3, the second reading's), the task work's
# calibration (10/20 core-s, the second reading's, against 17.7/35.4) and estimates from each
# attempt's first progress (with 0 and 5 core-s of start-up CPU). Each setting re-runs
# robustness.toml and benefit.toml (10 seeds) with its keys changed; then sensitivity.py prints
# the tables of the README.
#   sh experiments/mapreduce-stragglers/sensitivity.sh [OUT_DIR] [TRACEWARP]
# EXTRA: more --set arguments for every run (the tests shrink the cluster with it).
set -e
here=$(dirname "$0")
out=${1:-mapreduce-sensitivity}
tw=${2:-build/tracewarp}
mkdir -p "$out"
run() {  # NAME KEY=VALUE...
  name=$1
  shift
  sets=""
  for kv in "$@"; do sets="$sets --set $kv"; done
  for e in robustness benefit; do
    # shellcheck disable=SC2086
    "$tw" run "$here/$e.toml" -q --force -o "$out/$name-$e.h5" $sets ${EXTRA:-}
  done
}
for v in 0.5 1 2; do run "lambda-$v" "mapreduce.lambda=$v"; done
run "lambda-sample" "mapreduce.lambda_from_sample=true"
for v in 0 2 5 10; do run "startup-$v" "mapreduce.startup_s=$v"; done
for v in 0.5 1; do run "startup-cpu-$v" "mapreduce.startup_core_s=$v"; done
run "cleanup-1" "mapreduce.kill_cleanup_core_s=1"
run "report-1" "mapreduce.progress_report_s=1"
run "work-10" "mapreduce.map_work_s=10" "mapreduce.reduce_work_s=20"
run "estimates-5" "mapreduce.estimates_needed=5"
run "map-cv-0.3" "mapreduce.map_work_cv=0.3"
# A change of meaning the study does not describe: estimates from each attempt's first progress
# (mapreduce.estimate_from), alone and with 5 core-s of start-up CPU.
run "first-progress-0" "mapreduce.estimate_from=first_progress"
run "first-progress-5" "mapreduce.estimate_from=first_progress" "mapreduce.startup_core_s=5"
/usr/bin/python3 "$here/sensitivity.py" "$out"
