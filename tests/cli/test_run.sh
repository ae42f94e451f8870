#!/usr/bin/env bash
# The run/report pipeline as a user meets it: results identical for any rank layout, exit codes,
# errors naming key and file, incomplete files refused, the Python helper and a plotting script.
set -u
tw="$1"; mpirun="$2"; python="$3"; src="$4"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=checks.sh
source "$(dirname "$0")/checks.sh"
sweep="$src/experiments/phold/sweep.toml"

"$tw" run "$sweep" -o "$work/one.h5" -q || fail "sweep on 1 rank"
"$mpirun" -np 3 --oversubscribe "$tw" run "$sweep" -o "$work/three.h5" -q || fail "sweep on 3 ranks"
"$mpirun" -np 4 --oversubscribe "$tw" run "$sweep" -o "$work/groups.h5" --ranks-per-run 2 -q ||
  fail "sweep on 2 groups of 2 ranks"
for other in three groups; do
  if "$python" "$src/tests/python/compare_results.py" "$work/one.h5" "$work/$other.h5"; then
    pass "identical model data: 1 rank vs $other"; else fail "identical model data: 1 rank vs $other"; fi
done

# Under mpirun stderr is a pipe or a file, not a terminal: progress comes as whole lines from
# rank 0 every --progress-every seconds of wall-clock time, and not at all with -q.
printf '[phold]\nlps = 1024\nend = 1000\n[sweep]\n"phold.remote" = [0.1, 0.5]\n' >"$work/progress.toml"
for quiet in "" -q; do
  "$mpirun" -np 2 --oversubscribe "$tw" run "$work/progress.toml" -o "$work/progress.h5" --force $quiet \
    --set engine.sync=optimistic --progress-every 0.1 2>"$work/progress.err" >/dev/null ||
    fail "progress sweep $quiet"
  lines=$(grep -cE '^\[tracewarp\] [0-9]+ s: run-000[01] \[[0-9]/2 runs done.*events/s \(rank 0\)' "$work/progress.err")
  if [ -z "$quiet" ] && [ "$lines" -ge 2 ]; then pass "progress lines under mpirun, stderr to a file ($lines)"
  elif [ -n "$quiet" ] && [ ! -s "$work/progress.err" ]; then pass "no progress lines with -q"
  else fail "progress lines under mpirun ($quiet): $lines"; cat "$work/progress.err"; fi
done

expect "report: a table with the swept keys and the headline figures" 0 \
  "^run +seed +remote +committed +checksum$" -- "$tw" report "$work/one.h5"
expect "report: one row per run" 0 "^run-0003 +2 +1 +[0-9]+ +0x[0-9a-f]+$" -- "$tw" report "$work/one.h5"
expect "report --columns: the figures asked" 0 "^run-0003 +2 +1 +[0-9]+$" -- "$tw" report "$work/one.h5" --columns committed
expect "report --columns: a figure the runs lack is named" 0 "no figure 'nonsense'" -- \
  "$tw" report "$work/one.h5" --columns committed,nonsense
expect "report --json" 0 '"complete":true' -- "$tw" report --json "$work/one.h5"
expect "--set overrides a key" 0 "^run-0000 .* [0-9]+ +0x[0-9a-f]+ +[0-9.]+$" -- "$tw" run "$sweep" -o "$work/set.h5" --set phold.lps=32 --set experiment.replications=1
printf '[phold]\nspeed = 3\n' >"$work/unknown.toml"
expect "unknown key: exit 2, names key and file" 2 "unknown.toml: unknown key 'phold.speed'" -- "$tw" run "$work/unknown.toml"
expect "unknown --set key: exit 2" 2 "\\-\\-set: unknown key 'phold.speed'" -- "$tw" run "$sweep" --set phold.speed=3
printf '[phold]\nlps = "many"\n' >"$work/bad.toml"
expect "wrong type: exit 2, names key and file" 2 "bad.toml: key 'phold.lps' must be an integer" -- "$tw" run "$work/bad.toml"
expect "ranks per run must divide the job" 2 "must divide the 3 ranks" \
  -- "$mpirun" -np 3 --oversubscribe "$tw" run "$sweep" -o "$work/x.h5" --ranks-per-run 2
expect "unwritable output: exit 2" 2 "the folder '/nonexistent-dir' does not exist" -- "$tw" run "$sweep" -o /nonexistent-dir/r.h5
[ ! -e "$work/x.h5" ] && pass "failed runs leave no results file" || fail "failed runs leave no results file"

# An interrupted run: killed while running leaves only a .partial file, which report refuses.
printf '[phold]\nlps = 4096\nend = 1e6\n' >"$work/long.toml"
"$tw" run "$work/long.toml" -o "$work/long.h5" -q & pid=$!
for _ in $(seq 50); do [ -e "$work/long.h5.partial" ] && break; sleep 0.1; done
sleep 0.5; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
[ ! -e "$work/long.h5" ] && [ -e "$work/long.h5.partial" ] && pass "killed run leaves only a .partial file" ||
  fail "killed run leaves only a .partial file"
expect "report refuses an incomplete file: exit 1" 1 "INCOMPLETE" -- "$tw" report "$work/long.h5.partial"

if "$python" "$src/tests/python/test_helper.py" "$work/one.h5" "$work/long.h5.partial"; then pass "python helper"; else fail "python helper"; fi
if "$python" "$src/experiments/phold/plot.py" "$work/groups.h5" --out "$work/plots" && [ -s "$work/plots/phold_series.png" ]; then
  pass "experiments/phold/plot.py draws from a results file"; else fail "experiments/phold/plot.py"; fi

# The K computer study, small: the quick configuration over patterns A and C on 1 rank and on 2
# ranks (optimistic), identical model data; the study script draws from the file; the mix is
# exported as SWF and read back.
quick="$src/experiments/kcomputer-interval/quick.toml"
kset=(--set kmix.days=1.5 --set batch.window_until_s=129600 --set experiment.replications=2)
printf '[sweep]\n"batch.interval_pattern" = ["A", "C"]\n' >"$work/kpatterns.toml"
cat "$quick" "$work/kpatterns.toml" >"$work/kquick.toml"
"$tw" run "$work/kquick.toml" -o "$work/k1.h5" -q "${kset[@]}" || fail "K computer quick run on 1 rank"
"$mpirun" -np 2 --oversubscribe "$tw" run "$work/kquick.toml" -o "$work/k2.h5" -q "${kset[@]}" \
  --set engine.sync=optimistic --ranks-per-run 2 || fail "K computer quick run on 2 ranks"
if "$python" "$src/tests/python/compare_results.py" "$work/k1.h5" "$work/k2.h5"; then
  pass "K computer: identical model data sequential vs optimistic on 2 ranks"; else fail "K computer: 1 vs 2 ranks"; fi
if "$python" "$src/experiments/kcomputer-interval/plot.py" "$work/k1.h5" --out "$work/kplots" >/dev/null &&
  [ -s "$work/kplots/utilisation.png" ] && [ -s "$work/kplots/patterns.csv" ]; then
  pass "experiments/kcomputer-interval/plot.py draws from a results file"; else fail "kcomputer-interval/plot.py"; fi
expect "generate kcomputer writes SWF" 0 "wrote [0-9]+ jobs" -- "$tw" generate kcomputer -o "$work/kmix.swf" --set kmix.days=2
expect "the generated mix reads back" 0 "MaxNodes|82944" -- "$tw" inspect "$work/kmix.swf"

# The WRSA study's script on a small sweep (a generated mix scaled to 768 nodes, so no trace is
# needed): every policy, two WRA variants, two inter-arrival scalings.
"$tw" generate kcomputer -o "$work/k768.swf" --set kmix.days=3 --set batch.machine=kcomputer-768 >/dev/null ||
  fail "generate kcomputer for the 768-node machine"
cat >"$work/wrsa.toml" <<TOML
[experiment]
model = "batch"
[workload]
trace = "$work/k768.swf"
[batch]
nodes = 768
queue_depth = 100
tick_s = 60.0
[sweep]
"batch.policy" = ["easy", "lwjf", "wrsa-or", "wrsa-ar"]
"workload.iat_scale" = [1.0, 0.25]
"workload.wra" = [0.0, 0.2]
TOML
# Sequential runs (engine.sync's default) under mpirun: one rank per run unless told otherwise.
"$mpirun" -np 2 --oversubscribe "$tw" run "$work/wrsa.toml" -o "$work/wrsa.h5" -q || fail "WRSA sweep"
if "$python" -c "import h5py, sys; sys.exit(int(h5py.File(sys.argv[1]).attrs['ranks_per_run'] != 1))" "$work/wrsa.h5"; then
  pass "a sweep of sequential runs on 2 ranks runs one per rank by default"
else fail "a sweep of sequential runs on 2 ranks runs one per rank by default"; fi
# A run records the keys it used: a policy's keys only under that policy, a generator's or the
# multifactor priority's only when chosen, a trace's only when read; output.file is the file
# written (-o here).
if "$python" - "$work/wrsa.h5" <<'PY'; then
import sys, h5py
f = h5py.File(sys.argv[1])
for run in f["runs"].values():
    keys, policy = set(run.attrs), run.attrs["batch.policy"]
    assert ("batch.wrsa_alpha" in keys) == (policy in ("wrsa-or", "wrsa-ar")), (policy, "wrsa_alpha")
    assert "batch.interval_pattern" not in keys and "batch.reserved_jobs" not in keys, policy
    assert not any(k.startswith("kmix.") for k in keys) and "workload.trace" in keys
    assert "batch.priority" in keys and "batch.priority_weight_age" not in keys
    assert run.attrs["output.file"] == sys.argv[1], run.attrs["output.file"]
PY
  pass "runs record the keys they used and the file written"
else fail "runs record the keys they used and the file written"; fi
if "$python" "$src/experiments/wrsa-backfill/plot.py" "$work/wrsa.h5" --out "$work/wplots" >/dev/null 2>&1 &&
  [ -s "$work/wplots/makespan.png" ] && [ -s "$work/wplots/user_wrsa.png" ]; then
  pass "experiments/wrsa-backfill/plot.py draws from a results file"; else fail "wrsa-backfill/plot.py"; fi

# The MapReduce study's scripts on a small cluster: the tables and figures, and the sensitivity
# runs end to end (every setting, its table row).
small_mr="--set mapreduce.workers=6 --set mapreduce.maps=120 --set mapreduce.reduces=20 --set experiment.replications=2"
# shellcheck disable=SC2086
"$tw" run "$src/experiments/mapreduce-stragglers/robustness.toml" -q -o "$work/mr.h5" $small_mr || fail "MapReduce run"
if "$python" "$src/experiments/mapreduce-stragglers/plot.py" "$work/mr.h5" --out "$work/mrplots" >/dev/null &&
  [ -s "$work/mrplots/window.png" ] && grep -q "^| proposed | 30.0 | 60.0 | 2 |" "$work/mrplots/points.md"; then
  pass "experiments/mapreduce-stragglers/plot.py: figures and the median/quartile table"; else fail "mapreduce plot.py"; fi
if EXTRA="$small_mr" sh "$src/experiments/mapreduce-stragglers/sensitivity.sh" "$work/mrsens" "$tw" >"$work/mrsens.md" &&
  [ "$(grep -c '^| \(lambda\|startup\|cleanup\|report\|work\|estimates\|map-cv\|first-progress\)-' "$work/mrsens.md")" -eq 34 ]; then
  pass "experiments/mapreduce-stragglers/sensitivity.sh: a row per setting (17) in each of its two tables"
else fail "mapreduce sensitivity.sh"; cat "$work/mrsens.md"; fi

# The LAS study's script on a small run of both schedulers.
"$tw" run "$src/experiments/las-multiresource/google.toml" -q -o "$work/las.h5" --set lasmix.tasks=3000 \
  --set las.nodes=16 || fail "LAS run"
if "$python" "$src/experiments/las-multiresource/plot.py" "$work/las.h5" --out "$work/lasplots" >/dev/null &&
  [ -s "$work/lasplots/slowdown_cdf.png" ] && [ -s "$work/lasplots/summary.csv" ]; then
  pass "experiments/las-multiresource/plot.py draws from a results file"; else fail "las-multiresource/plot.py"; fi

if "$python" "$src/experiments/las-multiresource/calibrate.py" "$src/experiments/las-multiresource/google.toml" \
  --tracewarp "$tw" --tasks 3000 --steps 2 --target 0.3 --out "$work/cal.toml" >/dev/null &&
  grep -q "mean_demand = " "$work/cal.toml"; then
  pass "experiments/las-multiresource/calibrate.py picks a node size by real runs"; else fail "calibrate.py"; fi
if ! "$python" "$src/experiments/las-multiresource/calibrate.py" "$src/experiments/las-multiresource/google.toml" \
  --tracewarp "$tw" --tasks 3000 --steps 2 --target 0.999 --out "$work/cal2.toml" 2>"$work/cal2.err" >/dev/null &&
  grep -q "not reachable: Kairos peaks at" "$work/cal2.err" && grep -q "Q = 32" "$work/cal2.err" &&
  [ ! -e "$work/cal2.toml" ]; then
  pass "calibrate.py says why an unreachable target is out of reach, and writes nothing"; else fail "calibrate.py (unreachable)"; fi

# The replication study: quick.toml on 1 rank and on 3 ranks (optimistic), identical model data;
# every shipped configuration runs shortened; the plot script draws from the files.
rep="$src/experiments/replication"
rset=(--set replication.hosts=120 --set replication.tasks=600)
"$tw" run "$rep/quick.toml" -o "$work/rep1.h5" -q "${rset[@]}" || fail "replication quick on 1 rank"
"$mpirun" -np 3 --oversubscribe "$tw" run "$rep/quick.toml" -o "$work/rep3.h5" -q "${rset[@]}" \
  --set engine.sync=optimistic --ranks-per-run 3 || fail "replication quick on 3 ranks"
if "$python" "$src/tests/python/compare_results.py" "$work/rep1.h5" "$work/rep3.h5"; then
  pass "replication: identical model data sequential vs optimistic on 3 ranks"; else fail "replication: 1 vs 3 ranks"; fi
"$mpirun" -np 2 --oversubscribe "$tw" run "$rep/study.toml" -o "$work/repgrid.h5" -q --ranks-per-run 1 \
  --set replication.tasks=300 --set experiment.replications=2 --set replication.grain=1e9 || fail "replication study grid"
"$tw" run "$rep/success.toml" -o "$work/repsucc.h5" -q "${rset[@]}" --set experiment.replications=1 ||
  fail "replication success experiment"
"$tw" run "$rep/scale.toml" -o "$work/repscale.h5" -q --set replication.hosts=2000 --set replication.tasks=20000 ||
  fail "replication scale configuration"
if "$python" "$src/experiments/replication/plot.py" "$work/repgrid.h5" --out "$work/repplots" >/dev/null &&
  [ -s "$work/repplots/completion.png" ] && [ -s "$work/repplots/points.csv" ] &&
  "$python" "$src/experiments/replication/plot.py" "$work/repsucc.h5" --out "$work/repsplots" >/dev/null &&
  [ -s "$work/repsplots/success.png" ]; then
  pass "experiments/replication/plot.py draws from results files"; else fail "replication/plot.py"; fi
# The adaptive method's monitoring: every setting beside WQR and proposed, three tables per grain.
"$mpirun" -np 2 --oversubscribe "$tw" run "$rep/monitoring.toml" -o "$work/repmon.h5" -q --ranks-per-run 1 \
  --set replication.tasks=300 --set experiment.replications=1 || fail "replication monitoring sweep"
if "$python" "$rep/monitoring.py" "$work/repmon.h5" >"$work/repmon.md" &&
  [ "$(grep -c '^| 1,600 |' "$work/repmon.md")" -eq 6 ] && grep -q 'adaptive/10s free' "$work/repmon.md"; then
  pass "experiments/replication/monitoring.py: completion, slowest method and view age per setting"
else fail "replication/monitoring.py"; cat "$work/repmon.md"; fi

echo "run pipeline: $failures failure(s)"
[ "$failures" -eq 0 ]
