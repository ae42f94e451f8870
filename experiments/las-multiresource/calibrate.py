#!/usr/bin/env python3
"""Calibration helper of the LAS study: chooses the node capacity at which Kairos keeps the
cluster about 90% busy (mean of CPU and memory utilisation over the period in which tasks
arrive), by bisection over real runs of `tracewarp`, with arrivals paced for a cluster load of
sqrt 2 (lasmix.load = 1 per resource), and writes the chosen values to a TOML fragment; a run
made with it records them among its parameters.

Our reading of las.md's calibration: task demands are expressed in nodes, so a node's capacity
is set through the mean request (lasmix.mean_demand = mean request / capacity: a larger node
is a smaller mean request); the generator paces arrivals to the offered load for whatever
capacity it is given.

    python3 experiments/las-multiresource/calibrate.py experiments/las-multiresource/google.toml \
        [--tracewarp build/tracewarp] [--target 0.9] [--tasks 20000]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tracewarp_results import load  # noqa: E402


def kairos_busy(tw: str, config: str, mean_demand: float, tasks: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cal.h5")
        subprocess.run([tw, "run", config, "-q", "-o", out, "--set", f"lasmix.mean_demand={mean_demand}", "--set", "lasmix.load=1.0",
                        "--set", f"lasmix.tasks={tasks}"], check=True)
        r = load(out)
        runs = r.runs
        row = runs[runs["las.scheduler"] == "kairos"].iloc[0]
        return (row["summary.mean_cpu_utilisation"] + row["summary.mean_memory_utilisation"]) / 2


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("config")
    ap.add_argument("--tracewarp", default="build/tracewarp")
    ap.add_argument("--target", type=float, default=0.9)
    ap.add_argument("--tasks", type=int, default=20000)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--out", default="calibration.toml")
    args = ap.parse_args()
    lo, hi = 0.002, 0.5  # mean request in nodes: busy falls as requests grow
    busy_lo, busy_hi = (kairos_busy(args.tracewarp, args.config, d, args.tasks) for d in (lo, hi))
    if not busy_hi <= args.target <= busy_lo:
        print(f"target {args.target} outside [{busy_hi:.3f}, {busy_lo:.3f}] for mean requests [{hi}, {lo}]",
              file=sys.stderr)
        return 1
    for _ in range(args.steps):
        mid = math.sqrt(lo * hi)  # bisection in log space
        busy = kairos_busy(args.tracewarp, args.config, mid, args.tasks)
        print(f"lasmix.mean_demand = {mid:.5f}: Kairos {busy:.4f} busy")
        lo, hi = (mid, hi) if busy > args.target else (lo, mid)
    chosen = math.sqrt(lo * hi)
    with open(args.out, "w") as f:
        f.write(f"# calibrate.py {args.config}: Kairos {args.target:.0%} busy on {args.tasks} tasks, cluster load sqrt 2\n")
        f.write(f"[lasmix]\nload = 1.0\nmean_demand = {chosen:.5f}  # a node holds about {1 / chosen:.0f} average requests\n")
    print(f"chosen lasmix.mean_demand = {chosen:.5f} (nodes of about {1 / chosen:.0f} average requests); written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
