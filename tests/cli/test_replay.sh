#!/usr/bin/env bash
# Replaying a log as the machine ran it (docs/studies.md#resources): inspect says what a replay
# will offer; each batch.resources mode gives identical tables on 1-4 ranks and under optimistic
# execution; the logged waits sit beside the simulated ones in the file.
#   tests/cli/test_replay.sh TRACEWARP MPIRUN PYTHON SRC
set -u
tw="$1"; mpirun="$2"; python="$3"; src="$4"
export TRACEWARP_DATA="${TRACEWARP_DATA:-$src/../shared/data}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=checks.sh
source "$(dirname "$0")/checks.sh"

# 2 nodes of 4 cores; four 1-processor jobs of 100, 100, 100 and 150 s over a 300-s submission
# span: 450 processor-seconds of 8 x 300 offered (0.1875), but 450 node-seconds of 2 x 300 (0.75)
# when each takes a whole node. The last job ran 150 s of a 100-s request.
cat >"$work/small.swf" <<'SWF'
; MaxNodes: 2
; MaxProcs: 8
1 0 3 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
2 100 0 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
3 200 8 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
4 300 0 150 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
SWF
expect "inspect: the machine and how a replay reads it" 0 \
  "machine for a run +2 nodes x 4 cores = 8 processors" -- "$tw" inspect "$work/small.swf"
expect "inspect: both offered loads" 0 "offered load +0.188 as processors, 0.750 as exclusive nodes" \
  -- "$tw" inspect "$work/small.swf"
expect "inspect: warns that the two readings differ" 0 "warning: whole nodes offer the machine 56 points more" \
  -- "$tw" inspect "$work/small.swf"
expect "inspect: jobs kill_at_walltime would cut" 0 "killed at walltime +1 jobs ran longer than requested \\+ 0 s" \
  -- "$tw" inspect "$work/small.swf"
expect "inspect: a grace period spares them" 0 "killed at walltime +0 jobs ran longer than requested \\+ 60 s" \
  -- "$tw" inspect "$work/small.swf" --walltime-grace 60
expect "inspect --json: the offered loads" 0 '"offered_load_exclusive_nodes":0.75,"offered_load_processors":0.1875' \
  -- "$tw" inspect --json "$work/small.swf"
printf '1 0 3 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n' >"$work/bare.swf"
expect "inspect: a log without its machine's size" 0 "unknown: the trace does not say its size; set batch.nodes" \
  -- "$tw" inspect "$work/bare.swf"

# A real log, every mode: identical model data on 1 rank sequential and on 2-4 ranks optimistic.
ricc="$TRACEWARP_DATA/traces/RICC-2010-2.swf.gz"
if [ ! -e "$ricc" ]; then
  echo "skip the RICC replays ($ricc absent; set TRACEWARP_DATA)"
else
  cat >"$work/ricc.toml" <<TOML
[experiment]
name = "replay-ricc"
model = "batch"
[workload]
trace = "$ricc"
window_start = 100000
window_jobs = 3000
[sweep]
"batch.resources" = ["processors", "exclusive-nodes", "shared-nodes"]
"batch.policy" = ["easy", "conservative"]
TOML
  "$tw" run "$work/ricc.toml" -o "$work/r1.h5" -q || fail "RICC window on 1 rank"
  for n in 2 3 4; do
    "$mpirun" -np "$n" --oversubscribe "$tw" run "$work/ricc.toml" -o "$work/r$n.h5" -q --ranks-per-run "$n" \
      --set engine.sync=optimistic || fail "RICC window on $n ranks"
    if "$python" "$src/tests/python/compare_results.py" "$work/r1.h5" "$work/r$n.h5" >/dev/null; then
      pass "every mode: identical model data, 1 rank sequential vs $n ranks optimistic"
    else fail "every mode: 1 rank vs $n ranks"; fi
  done
  expect "experiments/replay/table.py: one row per run, the null model beside each" 0 \
    "\| ricc \| easy \|.*\| [0-9.]+% \| [0-9.]+% \| -?[0-9.]+ \|$" -- "$python" "$src/experiments/replay/table.py" "$work/r1.h5"
  expect "report --columns: the comparison with the logged schedule, a row per run" 0 \
    "run-000[0-9] +[a-z]+ +shared-nodes +[0-9.]+ +-?[0-9.e-]+$" -- \
    "$tw" report "$work/r1.h5" --columns wait_close_share,wait_rank_correlation
  # The as-ran fit on its smallest log: every candidate scored on the first half (whatever
  # compare_from_s the configuration already holds), the chosen one judged on the second.
  expect "experiments/replay/as-ran/fit.py: candidates on the first half, the chosen one on the second" 0 \
    "second half: close 0\.[0-9]+ \(null 0\.[0-9]+\), rank -?[0-9.]+, mean [0-9]+ s" -- \
    "$python" "$src/experiments/replay/as-ran/fit.py" "$src/experiments/replay/as-ran/kth-sp2.toml" --tracewarp "$tw"
fi

# The closest policy is in bold only where it beats the null model: on one processor, job 2
# waited 1,000 s for job 1 and FCFS says so (every job within 10 minutes, rank correlation 1),
# where the null model (no waits) has half the jobs.
cat >"$work/waited.swf" <<'SWF'
; MaxNodes: 1
; MaxProcs: 1
1 0 0 1000 1 -1 -1 1 1000 -1 1 1 1 -1 1 -1 -1 -1
2 0 1000 100 1 -1 -1 1 100 -1 1 2 1 -1 1 -1 -1 -1
SWF
printf '[experiment]\nname = "replay-waited"\nmodel = "batch"\n[workload]\ntrace = "%s"\n[batch]\npolicy = "fcfs"\n' \
  "$work/waited.swf" >"$work/waited.toml"
"$tw" run "$work/waited.toml" -o "$work/waited.h5" -q || fail "run of the waited log"
expect "table.py: a policy that beats the null model is in bold" 0 \
  "\| waited \| \*\*fcfs\*\* \|.*\*\*100.0%\*\* \| 50.0% \|" -- "$python" "$src/experiments/replay/table.py" "$work/waited.h5"

# The logged waits read back from the file, next to the simulated ones.
printf '[experiment]\nmodel = "batch"\n[workload]\ntrace = "%s"\n' "$work/small.swf" >"$work/small.toml"
"$tw" run "$work/small.toml" -o "$work/small.h5" -q || fail "run of the small log"
if "$python" - "$work/small.h5" "$src" <<'PY'; then pass "logged waits and starts in the jobs table"; else fail "logged waits"; fi
import sys
sys.path.insert(0, sys.argv[2] + "/experiments/common")
import tracewarp_results as tr
results = tr.load(sys.argv[1])
jobs = results.table(results.run_ids[0], "jobs")
assert list(jobs["logged_wait_s"]) == [3, 0, 8, 0], list(jobs["logged_wait_s"])
assert list(jobs["logged_start_s"]) == [3, 100, 208, 300], list(jobs["logged_start_s"])
assert list(jobs["procs"]) == [1, 1, 1, 1]
PY

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
