#!/usr/bin/env bash
# Output ready for analysis and a smoother first day (issue 37): export as CSV and SWF (a round
# trip through inspect and a second replay), the Python helper on several files and on quoted
# commas, paired sweeps, inspect's wording, and the WRSA plot on small windows.
#   tests/cli/test_analysis.sh TRACEWARP PYTHON SRC
set -u
tw="$1"; python="$2"; src="$3"
export TRACEWARP_DATA="${TRACEWARP_DATA:-$src/../shared/data}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=checks.sh
source "$(dirname "$0")/checks.sh"

# Two small logs: 4 nodes x 2 cores, and 6 one-core nodes; logged waits in field 3.
cat >"$work/a.swf" <<'SWF'
; UnixStartTime: 1000000000
; MaxNodes: 4
; MaxProcs: 8
1 0 0 100 4 -1 -1 4 200 -1 1 1 3 -1 1 -1 -1 -1
2 10 90 50 8 -1 -1 8 60 -1 1 2 3 -1 1 -1 -1 -1
3 20 5 30 2 -1 -1 2 40 -1 1 1 4 -1 1 -1 -1 -1
4 30 0 200 2 -1 -1 2 300 -1 1 2 4 -1 1 -1 -1 -1
5 40 0 10 1 -1 -1 1 20 -1 1 3 4 -1 1 -1 -1 -1
SWF
cat >"$work/b.swf" <<'SWF'
; MaxNodes: 6
; MaxProcs: 6
1 0 0 100 6 -1 -1 6 100 -1 1 1 1 -1 1 -1 -1 -1
2 5 95 100 3 -1 -1 3 100 -1 1 1 1 -1 1 -1 -1 -1
3 6 0 50 3 -1 -1 3 50 -1 1 2 1 -1 1 -1 -1 -1
SWF

# --- inspect's wording (item 8) ---
printf '; MaxNodes: 1\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n' >"$work/noreq.swf"
expect "inspect: a log without requested times says so" 0 "requested time +none in the trace" \
  -- "$tw" inspect "$work/noreq.swf"
refuse "inspect: no 'requested time mean 0' for a log without them" "requested time \\(s\\) +mean 0" \
  -- "$tw" inspect "$work/noreq.swf"
expect "inspect: the first submission with its date" 0 "first at 0 s \\(2001-09-09 01:46:40 UTC\\)" \
  -- "$tw" inspect "$work/a.swf"
expect "inspect: SWF field 13 is groups" 0 "groups \\(SWF field 13\\) +2" -- "$tw" inspect "$work/a.swf"
cat >"$work/alcf.csv" <<'CSV'
,job,user,project,state,gpu_num,cpu_num,node_num,submit_time,wait_time,run_time,wall_time,node_hour,new_status
0,1,u1,p1,0,0,8192.0,512.0,1535348017.0,100,1000.0,1800.0,1.0,Pass
1,2,u2,p1,0,0,1024.0,64.0,1535348117.0,50,500.0,600.0,1.0,Pass
CSV
expect "inspect: an ALCF log's first submission as a date, counted from 0 by a run" 0 \
  "first at 2018-08-27 05:33:37 UTC \\(Unix time 1535348017; a run counts from it: 0 s\\)" \
  -- "$tw" inspect --format alcf "$work/alcf.csv"
expect "inspect: an ALCF log's cores per node from its jobs" 0 "cores per node +16$" \
  -- "$tw" inspect --format alcf "$work/alcf.csv"
expect "inspect: no machine size: set batch.nodes" 0 "unknown: the trace does not say its size; set batch.nodes" \
  -- "$tw" inspect --format alcf "$work/alcf.csv"
printf '[experiment]\nmodel = "batch"\n[workload]\ntrace = "%s"\nformat = "alcf"\n' "$work/alcf.csv" >"$work/alcf.toml"
expect "run: no machine size, in words that fit a CSV log" 2 "does not say the machine's size: set batch.nodes" \
  -- "$tw" run "$work/alcf.toml" -o "$work/alcf.h5"
refuse "run: no SWF header named for a CSV log" "MaxNodes" -- "$tw" run "$work/alcf.toml" -o "$work/alcf.h5"

# --- export (item 2): every table as CSV; the schedule as SWF, read back and replayed ---
printf '[experiment]\nname = "a"\nmodel = "batch"\n[workload]\ntrace = "%s"\n[batch]\npolicy = "easy"\n' \
  "$work/a.swf" >"$work/a.toml"
"$tw" run "$work/a.toml" -o "$work/a.h5" -q || fail "run of the small log"
expect "export --csv and --swf" 0 "wrote 1 simulated schedule" \
  -- "$tw" export "$work/a.h5" --csv "$work/csv" --swf "$work/swf"
if [ -s "$work/csv/runs.csv" ] && [ "$(wc -l <"$work/csv/run-0000/jobs.csv")" -eq 6 ] &&
  [ -s "$work/csv/run-0000/summary.csv" ] && [ -s "$work/csv/run-0000/engine.csv" ]; then
  pass "export --csv: runs.csv and each table of the run, one line per job"
else fail "export --csv"; ls -R "$work/csv"; fi
expect "export --swf reads back: the same jobs" 0 "jobs accepted +5" -- "$tw" inspect "$work/swf/run-0000.swf"
expect "export --swf keeps the trace's time origin" 0 "UnixStartTime: +1000000000" \
  -- "$tw" inspect "$work/swf/run-0000.swf"
printf '[experiment]\nmodel = "batch"\n[workload]\ntrace = "%s"\n' "$work/swf/run-0000.swf" >"$work/again.toml"
"$tw" run "$work/again.toml" -o "$work/again.h5" -q || fail "replay of the exported schedule"
if "$python" - "$work/a.h5" "$work/again.h5" "$src" <<'PY'; then pass "the exported waits are the simulated ones"; else fail "round trip"; fi
import sys
sys.path.insert(0, sys.argv[3] + "/experiments/common")
import tracewarp_results as tr
first, again = (tr.load(p) for p in sys.argv[1:3])
a = first.table(first.run_ids[0], "jobs")
b = again.table(again.run_ids[0], "jobs")
assert list(a["id"]) == list(b["id"]), (list(a["id"]), list(b["id"]))
assert list(a["wait_s"]) == list(b["logged_wait_s"]), (list(a["wait_s"]), list(b["logged_wait_s"]))
assert list(a["run_s"]) == list(b["run_s"])
PY
# --- Batsim's jobs file (issue 53, item 4): read back as Batsim's tools read it; a Gantt chart ---
expect "export --batsim" 0 "wrote 1 schedule\\(s\\) as Batsim jobs files" -- "$tw" export "$work/a.h5" --batsim "$work/batsim"
if "$python" - "$work/batsim/run-0000_jobs.csv" "$work/a.h5" <<'PY'; then pass "export --batsim: Batsim's columns, intervals that hold each job's resources once"; else fail "export --batsim"; fi
import csv, sys
import h5py
columns = ["job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources", "requested_time",
           "success", "final_state", "starting_time", "execution_time", "finish_time", "waiting_time",
           "turnaround_time", "stretch", "allocated_resources", "consumed_energy", "metadata"]
rows = list(csv.DictReader(open(sys.argv[1])))
assert list(rows[0].keys()) == columns, list(rows[0].keys())
with h5py.File(sys.argv[2], "r") as f:
    run = f["runs"]["run-0000"]
    units, jobs = int(run.attrs["machine.units"]), run["jobs"][()]
assert len(rows) == len(jobs)
def resources(text):  # Batsim's interval syntax: "a-b c", as intervalset's from_string_hyphen reads it
    out = []
    for part in text.split(" ") if text else []:
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out
held = []
for row, job in zip(rows, jobs):
    assert int(row["job_id"]) == job["id"]
    ids = resources(row["allocated_resources"])
    assert len(ids) == len(set(ids)) == int(row["requested_number_of_resources"]), row
    assert all(0 <= i < units for i in ids), row
    assert float(row["waiting_time"]) == job["wait_s"] and float(row["starting_time"]) == job["start_s"]
    assert row["final_state"] in ("COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED"), row
    held += [(i, float(row["starting_time"]), float(row["finish_time"])) for i in ids]
held.sort()
for (i, s, e), (k, s2, e2) in zip(held, held[1:]):  # no resource holds two jobs at once
    assert i != k or s2 >= e, (i, s, e, s2)
PY
expect "gantt.py draws a run's allocations and utilisation" 0 "wrote .*gantt.png: 5 ranges" \
  -- "$python" "$src/experiments/common/gantt.py" "$work/a.h5" -o "$work/gantt.png"
if [ "$(head -c 8 "$work/gantt.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; then
  pass "gantt.py: a PNG image"
else fail "gantt.py: not a PNG"; fi

printf '[experiment]\nmodel = "phold"\n[phold]\nlps = 16\nend = 5.0\n' >"$work/phold.toml"
"$tw" run "$work/phold.toml" -o "$work/phold.h5" -q || fail "a small PHOLD run"
expect "export --swf refuses a file without batch runs" 2 "no batch runs" \
  -- "$tw" export "$work/phold.h5" --swf "$work/none"
expect "export --csv takes any model" 0 "wrote 1 run" -- "$tw" export "$work/phold.h5" --csv "$work/phold-csv"

# --- paired sweeps (item 5) and the Python helper on several files (item 3) ---
cat >"$work/paired.toml" <<TOML
[experiment]
name = "paired"
model = "batch"
[batch]
resources = "exclusive-nodes"
[sweep]
"batch.policy" = ["fcfs", "easy"]
[sweep.paired.machine]
"workload.trace" = ["$work/a.swf", "$work/b.swf"]
"batch.nodes" = [4, 6]
TOML
"$tw" run "$work/paired.toml" -o "$work/paired.h5" -q || fail "a paired sweep"
expect "a paired sweep: each trace with its own machine, crossed with the policies (4 runs)" 0 \
  "run-0003 +6 +easy +[^ ]*b.swf" -- "$tw" report "$work/paired.h5"
refuse "a paired sweep does not cross its own lists" "run-0004" -- "$tw" report "$work/paired.h5"
cat >"$work/patterns.toml" <<TOML
[experiment]
name = "patterns"
model = "batch"
[workload]
trace = "$work/a.swf"
[batch]
policy = "interval"
allocation = "contiguous"
resources = "exclusive-nodes"
[sweep]
"batch.interval_pattern" = ["10m:1h,30m:12h", "A"]
TOML
"$tw" run "$work/patterns.toml" -o "$work/patterns.h5" -q || fail "interval patterns sweep"
if "$python" - "$work/paired.h5" "$work/patterns.h5" "$src" <<'PY'; then pass "python helper: quoted commas, several files, own keys"; else fail "python helper"; fi
import sys
sys.path.insert(0, sys.argv[3] + "/experiments/common")
import tracewarp_results as tr
paired, patterns = sys.argv[1], sys.argv[2]
p = tr.load(patterns)
assert p.varied(p.run_ids[0]) == {"batch.interval_pattern": "10m:1h,30m:12h"}, p.varied(p.run_ids[0])
assert not any(c.startswith(("phold.", "las.", "replication.", "mapreduce.")) for c in p.runs.columns), p.runs.columns
runs = tr.load_runs([paired, patterns])
assert len(runs) == 6, runs
for column in ("file", "run_id", "batch.policy", "batch.nodes", "workload.trace", "batch.interval_pattern"):
    assert column in runs.columns, (column, list(runs.columns))
assert "engine.sync" not in runs.columns  # the same everywhere: not a column
pairs = set(zip(runs["workload.trace"], runs["batch.nodes"]))
assert sum(1 for t, n in pairs if t.endswith("b.swf") and n == 6) == 1, pairs
jobs = tr.load_table([paired, patterns], "jobs")
assert len(jobs) == 2 * 5 + 2 * 3 + 2 * 5 and "batch.policy" in jobs.columns, jobs.shape
PY

# --- the WRSA study's plot on small windows (item 7) ---
if [ -e "$TRACEWARP_DATA/traces/RICC-2010-2.swf.gz" ]; then
  "$tw" run "$src/experiments/wrsa-backfill/study.toml" -o "$work/wrsa.h5" -q --set workload.window_jobs=1000 \
    --set workload.iat_scale=1.0 --set 'workload.window_start=0' || fail "WRSA study, small windows"
  if "$python" "$src/experiments/wrsa-backfill/plot.py" "$work/wrsa.h5" --out "$work/wrsa-plots" >"$work/plot.log" 2>&1; then
    pass "experiments/wrsa-backfill/plot.py on 1,000-job windows"
  else fail "wrsa plot on small windows"; tail -5 "$work/plot.log"; fi
else
  echo "skip the WRSA plot ($TRACEWARP_DATA/traces/RICC-2010-2.swf.gz absent)"
fi
[ -s "$src/experiments/phold/README.md" ] && pass "experiments/phold/ has a README" || fail "experiments/phold/README.md"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
