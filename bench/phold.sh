#!/usr/bin/env bash
# The PHOLD figures of docs/performance.md: median of REPS runs (default 5) of the standard
# configuration (1024 LPs in total, 16 events/LP, mean 1.0, lookahead 0.1, end 1000), at remote
# 0.1 and 1.0, sequentially on 1 rank, optimistically and conservatively on 2 ranks. Prints a
# Markdown table.
#   bench/phold.sh [build-dir]     REPS=3 END=1000 bench/phold.sh
set -euo pipefail
build=${1:-build}
reps=${REPS:-5}
end=${END:-1000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tw="$build/tracewarp"
median_row() {  # label, then the command; prints one table row from the median-rate run
  local label="$1"
  shift
  for _ in $(seq "$reps"); do "$@" --json; done | python3 "$(dirname "$0")/median_row.py" "$label"
}
echo "| run | committed | committed events/s, median of $reps | rolled back | efficiency | peak RSS (max rank) | checksum |"
echo "|---|---|---|---|---|---|---|"
for remote in 0.1 1.0; do
  common=(bench phold --events-per-lp 16 --remote "$remote" --mean 1.0 --lookahead 0.1 --end "$end")
  median_row "remote $remote, sequential, 1 rank" "$tw" "${common[@]}" --lps 1024
  for sync in optimistic conservative; do
    median_row "remote $remote, $sync, 2 ranks" mpirun -np 2 --oversubscribe --bind-to core "$tw" "${common[@]}" \
      --lps-per-rank 512 --sync "$sync"
  done
done
