#!/usr/bin/env python3
"""The results helper on a file produced by the test suite: runs, tables, concat, refusal of
incomplete files."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "experiments", "common"))
from tracewarp_results import IncompleteResults, load  # noqa: E402

path, partial = sys.argv[1], sys.argv[2]
r = load(path)
failures = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)

check(r.complete and len(r.run_ids) == 4, "four complete runs")
check(list(r.runs["run_id"]) == ["run-0000", "run-0001", "run-0002", "run-0003"], "runs in id order")
check(set(r.runs["phold.remote"]) == {0.1, 1.0}, "parameters as columns")
check(all(r.runs["summary.committed"] > 0), "summary metrics as columns")
s = r.concat("series")
check({"run_id", "time_s", "committed", "phold.remote", "experiment.seed"} <= set(s.columns), "concat adds run and sweep point")
for run_id in r.run_ids:
    check(int(s[s.run_id == run_id]["committed"].sum()) == r.summary(run_id)["committed"], f"{run_id}: series sums to summary")
check(r.varied("run-0003") == {"experiment.seed": 2, "phold.remote": 1.0}, "varied parsed")
check(r.table("run-0000", "engine")["committed"].sum() == r.summary("run-0000")["committed"], "engine table")
try:
    load(partial)
    check(False, "incomplete file refused")
except IncompleteResults:
    check(True, "incomplete file refused")
check(not load(partial, allow_incomplete=True).complete, "incomplete file readable on request")
print(f"{len(failures) == 0 and 'all' or 'some'} checks done: {len(failures)} failed")
sys.exit(1 if failures else 0)
