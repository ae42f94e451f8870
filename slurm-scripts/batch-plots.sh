#!/usr/bin/env bash
# The post-processing step of a batch study: the study's plot script on its results file.
#   slurm-scripts/batch-plots.sh RESULTS.h5 STUDY.toml [OUT_DIR]
# Runs anywhere (a login node, or as the last step of batch-study.sbatch).
set -euo pipefail
results="$1"; study="$2"; out="${3:-${results%.h5}-plots}"
python=${PYTHON:-/usr/bin/python3}
plot="$(dirname "$study")/plot.py"
if [ ! -e "$plot" ]; then  # one's own configuration, outside the study folders: nothing to draw
  echo "no plot.py beside $study: no figures; the results are in $results (tracewarp report, tracewarp export)"
  exit 0
fi
"$python" "$plot" "$results" --out "$out"
