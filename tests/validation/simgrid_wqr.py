#!/usr/bin/env python3
"""Cross-check of the replication model against an independent WQR implementation on SimGrid
(tests/validation/simgrid_wqr.cpp): for a few scenarios, tracewarp runs the WQR method, its copies
table is exported, the SimGrid program runs the same scenario, and every copy must match: the
same task on the same host, replica or original, the same outcome (finished or cancelled), and
start and end within 2 ns. Each side rounds a copy's end up to the nanosecond from its own
integration of the walk (tracewarp's exact sum, SimGrid's speed profile), so one end may differ by
1 ns, and the host's next copy starts that much later: 2 ns is the most seen.

    /usr/bin/python3 tests/validation/simgrid_wqr.py build/tracewarp build/tests/simgrid_wqr
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

TOLERANCE_NS = 2
# (hosts, tasks, grain, seed): fine, medium and coarse grain, a few hundred hosts each.
SCENARIOS = [(300, 3000, 1e9, 2), (300, 3000, 1e10, 1), (400, 2000, 1e11, 3)]
KEYS = ["task", "host", "replica", "finished"]


def tracewarp_copies(tw, folder, hosts, tasks, grain, seed):
    config = os.path.join(folder, "wqr.toml")
    with open(config, "w") as f:
        f.write(f"""[experiment]
name = "simgrid-cross-check"
model = "replication"
seed = {seed}

[replication]
method = "wqr"
hosts = {hosts}
tasks = {tasks}
grain = {grain}
""")
    results = os.path.join(folder, "wqr.h5")
    subprocess.run([tw, "run", config, "-q", "--force", "-o", results], check=True)
    subprocess.run([tw, "export", results, "--csv", os.path.join(folder, "csv")], check=True, stdout=subprocess.DEVNULL)
    copies = pd.read_csv(os.path.join(folder, "csv", "run-0000", "copies.csv"))
    copies["start_ns"] = np.rint(copies["start_s"] * 1e9).astype(np.int64)
    copies["end_ns"] = np.rint(copies["end_s"] * 1e9).astype(np.int64)
    return copies


def simgrid_copies(sg, folder, hosts, tasks, grain, seed):
    out = os.path.join(folder, "simgrid.csv")
    with open(out, "w") as f:
        run = subprocess.run([sg, str(hosts), str(tasks), repr(grain), str(seed)], stdout=f, stderr=subprocess.PIPE,
                             text=True, check=True)
    report = [line for line in run.stderr.splitlines() if line.startswith("simgrid_wqr:")]
    return pd.read_csv(out), report[-1] if report else ""


def compare(a, b):
    """(None, the largest time gap in ns) if every copy matches, else (what differs first, None)."""
    a = a.sort_values(["task", "start_ns", "host"]).reset_index(drop=True)
    b = b.sort_values(["task", "start_ns", "host"]).reset_index(drop=True)
    if len(a) != len(b):
        return f"{len(a)} copies against {len(b)}", None
    for key in KEYS:
        differ = np.flatnonzero(a[key].to_numpy() != b[key].to_numpy())
        if len(differ):
            i = differ[0]
            return f"copy {i}: {key} {a[key][i]} against {b[key][i]} (task {a['task'][i]})", None
    largest = 0
    for key in ["start_ns", "end_ns"]:
        gap = np.abs(a[key].to_numpy() - b[key].to_numpy())
        if gap.max() > TOLERANCE_NS:
            i = int(np.argmax(gap))
            return f"copy {i}: {key} {a[key][i]} against {b[key][i]} ({gap[i]} ns apart)", None
        largest = max(largest, int(gap.max()))
    return None, largest


def main() -> int:
    tw, sg = sys.argv[1], sys.argv[2]
    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        for hosts, tasks, grain, seed in SCENARIOS:
            name = f"{hosts} hosts, {tasks} tasks, grain {grain:g}, seed {seed}"
            ours = tracewarp_copies(tw, folder, hosts, tasks, grain, seed)
            theirs, report = simgrid_copies(sg, folder, hosts, tasks, grain, seed)
            problem, gap = compare(ours, theirs)
            replicas, cancelled = int(ours["replica"].sum()), int((ours["finished"] == 0).sum())
            if problem:
                print(f"FAIL {name}: {problem}")
                failures += 1
            elif replicas == 0 or cancelled == 0:
                print(f"FAIL {name}: no replica or no cancellation, the check would prove little")
                failures += 1
            else:
                print(f"ok   {name}: {len(ours)} copies ({replicas} replicas, {cancelled} cancelled) identical, "
                      f"starts and ends within {gap} ns; {report}")
        # The comparison can fail: another seed's run must not pass for this one.
        hosts, tasks, grain, seed = SCENARIOS[1]
        other, _ = simgrid_copies(sg, folder, hosts, tasks, grain, seed + 1)
        if compare(tracewarp_copies(tw, folder, hosts, tasks, grain, seed), other)[0] is None:
            print("FAIL the comparison accepts another seed's run")
            failures += 1
        else:
            print("ok   another seed's run is told apart")
    print(f"simgrid_wqr: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
