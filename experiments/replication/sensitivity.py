#!/usr/bin/env python3
"""What sensitivity.toml shows: for each setting of the walk and the server (one changed at a
time), the median completion of each method per size, where WQR stops being fastest at 10^10
flop (the study: about 600 hosts), and which method is slowest at 10^11 (the study: adaptive).

    /usr/bin/python3 experiments/replication/sensitivity.py replication-sensitivity.h5 [--csv out.csv]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tracewarp_results as tr  # noqa: E402

SETTING = ["replication.walk_start", "replication.omega_variance", "replication.server_rate"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--csv")
    args = ap.parse_args()
    runs = tr.load(args.results).runs
    point = SETTING + ["replication.grain", "replication.hosts", "replication.method"]
    med = runs.groupby(point)["summary.completion_s"].median().unstack("replication.method")
    if args.csv:
        med.to_csv(args.csv)
    print("| x0 | omega variance | server events/s | WQR fastest at 10^10 up to | slowest at 10^11 (hosts: method) |")
    print("|---:|---:|---:|---|---|")
    for setting, block in med.groupby(level=SETTING, sort=False):
        fine = block.xs(1e10, level="replication.grain").droplevel(SETTING)
        coarse = block.xs(1e11, level="replication.grain").droplevel(SETTING)
        wqr_best = [h for h, row in fine.iterrows() if row.idxmin() == "wqr"]
        behind = [h for h, row in fine.iterrows() if row.idxmin() != "wqr"]
        crossover = (f"{max(wqr_best)} hosts" if wqr_best else "never") + (
            f" (behind from {min(behind)})" if behind else " (every size)")
        slowest = ", ".join(f"{h}: {row.idxmax()}" for h, row in coarse.iterrows())
        print(f"| {setting[0]:g} | {setting[1]:g} | {setting[2]:g} | {crossover} | {slowest} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
