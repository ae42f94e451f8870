#!/usr/bin/env bash
# The as-ran table: each log under FCFS and EASY (../<log>.toml, arrival order, no limits) and
# as it was run (<log>.toml), all judged on the same jobs (those submitted after the first
# half: compare_from_s of <log>.toml), beside the null model.
#   experiments/replay/as-ran/compare.sh OUTDIR [TRACEWARP]
#   /usr/bin/python3 experiments/replay/table.py OUTDIR/*.h5
set -eu
out="$1"; tw="${2:-build/tracewarp}"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$out"
for config in "$here"/*.toml; do
  log="$(basename "$config" .toml)"
  from="$(sed -n 's/^compare_from_s = \([0-9]*\).*/\1/p' "$config")"
  plain=(--set "batch.compare_from_s=$from")
  # RICC's plain replay as its as-ran reading counts the machine: processors, cut at walltime
  [ "$log" = ricc ] && plain+=(--set batch.resources=processors --set batch.kill_at_walltime=true)
  for policy in fcfs easy; do
    "$tw" run "$here/../$log.toml" -q --force -o "$out/$log-1-$policy.h5" --set "batch.policy=$policy" "${plain[@]}"
  done
  "$tw" run "$config" -q --force -o "$out/$log-2-as-ran.h5"
done
