#!/usr/bin/env bash
# The post-processing step of a batch study: the study's plot script on its results file.
#   slurm-scripts/batch-plots.sh RESULTS.h5 STUDY.toml [OUT_DIR]
# Runs anywhere (a login node, or as the last step of batch-study.sbatch).
set -euo pipefail
results="$1"; study="$2"; out="${3:-${results%.h5}-plots}"
python=${PYTHON:-/usr/bin/python3}
"$python" "$(dirname "$study")/plot.py" "$results" --out "$out"
