#!/usr/bin/env bash
# Slurm accounting records as a trace, on a real Slurm: a private cluster with accounting
# (private_cluster.sh: slurmdbd on a private MariaDB) runs jobs in its two partitions — some that
# queue behind a job holding every CPU, one that fails, a job array — and `sacct --parsable2` dumps them as a site would. tracewarp must read the dump back
# (traces/sacct.hpp) with every finished job, its partition, its logged wait (Start - Submit), its
# time limit and its CPUs, drop the job steps, counted, and replay it. (A job cancelled before it
# started is not in sacct's time window at all; the reader's rule for one is tested by hand in
# tests/traces/test_sacct.cpp.)
#   tests/slurm/test_sacct.sh TRACEWARP PYTHON SRC
# Exit 77 (ctest: skipped) when the packages cannot be installed or the test is not root.
set -uo pipefail
tw=$(realpath "$1"); python="$2"; src=$(realpath "$3")
# shellcheck source=private_cluster.sh
source "$src/tests/slurm/private_cluster.sh"
start_cluster accounting

job() { sbatch --parsable --output=/dev/null --mem=50 "$@"; }
ids=()
ids+=("$(job -p debug -n "$cpus" -t 2 --wrap "sleep 3")")  # holds every CPU: the next ones queue
ids+=("$(job -p long -n 1 -t 1 --wrap "sleep 1")")
ids+=("$(job -p debug -n 1 -t 3 --wrap "sleep 1; exit 3")")  # FAILED
ids+=("$(job -p long -n 1 -t 1 -a 1-2 --wrap "sleep 1")")  # an array of 2 tasks
for id in "${ids[@]}"; do [ -n "$id" ] || fail "sbatch refused a job"; done

# Every job ends, and its record reaches the database (slurmctld sends it on asynchronously).
for _ in $(seq 300); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
fields=JobIDRaw,JobID,User,Group,Partition,QOS,Submit,Start,End,Timelimit,NNodes,NCPUS,State
dump="$work/sacct.txt"
for _ in $(seq 150); do
  sacct --allusers --parsable2 --starttime=now-1hour --format="$fields" >"$dump" 2>/dev/null
  finished=$(grep -cE '^[0-9]+\|[0-9_]+\|.*\|(COMPLETED|FAILED)$' "$dump")
  [ "$finished" -ge 5 ] && break
  sleep 0.2
done
echo "sacct: $(($(wc -l <"$dump") - 1)) records, $finished jobs ended"
[ "$finished" -ge 5 ] || { fail "sacct shows $finished ended jobs, expected 5"; cat "$dump"; }

# Read back: the summary of the trace, and a replay whose jobs table holds the logged waits.
"$tw" inspect "$dump" --json >"$work/inspect.json" || fail "tracewarp inspect refused the dump"
cat >"$work/replay.toml" <<EOF
[experiment]
model = "batch"
[workload]
trace = "$dump"
[batch]
nodes = $cpus  # the node's CPUs, one unit each (the jobs' CPUs per node vary: the reader says 1)
resources = "processors"
EOF
"$tw" run "$work/replay.toml" -q -o "$work/replay.h5" >"$work/replay.out" 2>&1 ||
  { fail "the replay of the dump failed"; cat "$work/replay.out"; }

"$python" - "$dump" "$work/inspect.json" "$work/replay.h5" <<'EOF' || fail "the dump read back differs"
import json, sys
from datetime import datetime

import h5py

dump, inspect, replay = sys.argv[1:]
lines = open(dump).read().splitlines()
names = lines[0].split("|")
rows = [dict(zip(names, line.split("|"))) for line in lines[1:]]
t = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").timestamp()
jobs = [r for r in rows if "." not in r["JobID"] and r["Start"] not in ("Unknown", "None") and r["End"] > r["Start"]]
info = json.load(open(inspect))
partitions = {name: int(n) for n, name in (p.split("=") for p in info["header"]["Partitions"].split())}
problems = []
if info["jobs"] != len(jobs):
    problems.append(f"{info['jobs']} jobs read, {len(jobs)} in the dump")
if info["dropped"].get("job step (JobID with '.')", 0) != sum("." in r["JobID"] for r in rows):
    problems.append(f"job steps dropped: {info['dropped']}")
if not any(r["State"] == "FAILED" for r in jobs):
    problems.append("no failed job read back")
with h5py.File(replay) as f:
    (run,) = f["runs"]
    table = {int(r["id"]): r for r in f["runs"][run]["jobs"][:]}
for r in jobs:
    row = table.get(int(r["JobIDRaw"]))
    if row is None:
        problems.append(f"job {r['JobID']} missing from the replay")
        continue
    limit = sum(int(x) * m for x, m in zip(reversed(r["Timelimit"].split(":")), (1, 60, 3600)))
    expected = {"logged_wait_s": t(r["Start"]) - t(r["Submit"]), "run_s": t(r["End"]) - t(r["Start"]),
                "requested_s": limit, "procs": int(r["NCPUS"]), "partition": partitions[r["Partition"]]}
    for field, value in expected.items():
        if abs(float(row[field]) - value) > 1e-9 and not (field == "run_s" and row[field] <= value):
            problems.append(f"job {r['JobID']}: {field} {row[field]}, logged {value}")
if sorted(partitions) != ["debug", "long"]:
    problems.append(f"partitions {partitions}")
if not any(float(table[int(r["JobIDRaw"])]["logged_wait_s"]) > 0 for r in jobs):
    problems.append("no job waited in the log: the test's queueing did not happen")
print("\n".join(problems) if problems else f"ok   {len(jobs)} jobs read back with partitions, waits, limits, CPUs")
sys.exit(1 if problems else 0)
EOF

echo "sacct: $failures failure(s)"
[ "$failures" -eq 0 ]
