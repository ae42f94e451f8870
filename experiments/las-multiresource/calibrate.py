#!/usr/bin/env python3
"""Calibration helper of the LAS study: chooses the node capacity at which Kairos keeps the
cluster about 90% busy (mean of CPU and memory utilisation over the period in which tasks
are released), by bisection over real runs of `tracewarp` under the closed loop that keeps the
cluster load at sqrt 2 (las.closed_loop_load, the model's default), and writes the chosen value
to a TOML fragment; a run made with it records it among its parameters.

Our reading of docs/studies.md#las's calibration: task demands are expressed in nodes, so a node's capacity
is set through the mean request (lasmix.mean_demand = mean request / capacity: a larger node
is a smaller mean request). Under the closed loop the arrival rate follows from the load, so
capacity is the only thing to calibrate.

    /usr/bin/python3 experiments/las-multiresource/calibrate.py experiments/las-multiresource/google.toml \
        [--tracewarp build/tracewarp] [--target 0.9] [--tasks 20000]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tracewarp_results  # noqa: E402,F401  (first: on a bare python3 it reruns the script with one that has the packages)
from tracewarp_results import load  # noqa: E402


def kairos_busy(tw: str, config: str, mean_demand: float, tasks: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cal.h5")
        subprocess.run([tw, "run", config, "-q", "-o", out, "--set", f"lasmix.mean_demand={mean_demand}",
                        "--set", f"lasmix.tasks={tasks}", "--set", "las.scheduler=kairos",
                        # the closed loop at sqrt 2 only (the configurations sweep both submission modes)
                        "--set", "las.closed_loop_load=1.4142135623730951"], check=True)
        r = load(out)
        runs = r.runs
        row = runs[runs["las.scheduler"] == "kairos"].iloc[0]
        return (row["summary.mean_cpu_utilisation"] + row["summary.mean_memory_utilisation"]) / 2


def read_kairos_cap(config: str) -> int:
    import tomllib  # Python 3.11
    with open(config, "rb") as f:
        return int(tomllib.load(f).get("las", {}).get("kairos_cap", 32))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("config")
    ap.add_argument("--tracewarp", default="build/tracewarp")
    ap.add_argument("--target", type=float, default=0.9)
    ap.add_argument("--tasks", type=int, default=20000)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--out", default="calibration.toml")
    args = ap.parse_args()
    # Busy rises with the mean request while nodes are too large to fill, then falls as packing
    # gets coarse: scan a log grid for the peak, then bisect on the falling side (the smallest
    # node that still reaches the target).
    grid = [0.002 * (0.5 / 0.002) ** (k / 11) for k in range(12)]
    busy = [kairos_busy(args.tracewarp, args.config, d, args.tasks) for d in grid]
    for d, b in zip(grid, busy):
        print(f"lasmix.mean_demand = {d:.5f}: Kairos {b:.4f} busy")
    peak = max(range(len(grid)), key=lambda k: busy[k])
    if busy[peak] < args.target and 0 < peak < len(grid) - 1:  # the grid may straddle the peak: refine it
        lo, hi = math.log(grid[peak - 1]), math.log(grid[peak + 1])
        for _ in range(args.steps // 2):  # golden-section search on log(mean request)
            a, b = hi - 0.618 * (hi - lo), lo + 0.618 * (hi - lo)
            ba, bb = (kairos_busy(args.tracewarp, args.config, math.exp(x), args.tasks) for x in (a, b))
            print(f"lasmix.mean_demand = {math.exp(a):.5f}: Kairos {ba:.4f} busy")
            print(f"lasmix.mean_demand = {math.exp(b):.5f}: Kairos {bb:.4f} busy")
            grid += [math.exp(a), math.exp(b)]
            busy += [ba, bb]
            lo, hi = (lo, b) if ba >= bb else (a, hi)
        order = sorted(range(len(grid)), key=lambda k: grid[k])
        grid, busy = [grid[k] for k in order], [busy[k] for k in order]
        peak = max(range(len(grid)), key=lambda k: busy[k])
    if busy[peak] < args.target:
        cap = read_kairos_cap(args.config)
        print(f"target {args.target} not reachable: Kairos peaks at {busy[peak]:.3f} busy (mean request "
              f"{grid[peak]:.4f} of a node). Smaller requests: its cap of Q = {cap} unfinished tasks per node "
              f"holds only about Q x mean request = {cap * grid[0]:.2f} to {cap * grid[peak]:.2f} of a node, so "
              f"the cap, not the node, limits it; larger requests: placement by task count, blind to sizes, "
              f"packs coarser tasks worse (busy {busy[-1]:.3f} at {grid[-1]:.2f}). The loop holds the cluster "
              f"load at sqrt 2 throughout, so arrivals are not what is missing.", file=sys.stderr)
        return 1
    below = next((k for k in range(peak + 1, len(grid)) if busy[k] < args.target), None)
    if below is None:
        chosen = grid[-1]
    else:
        lo, hi = grid[below - 1], grid[below]  # busy(lo) >= target > busy(hi)
        for _ in range(args.steps):
            mid = math.sqrt(lo * hi)
            b = kairos_busy(args.tracewarp, args.config, mid, args.tasks)
            print(f"lasmix.mean_demand = {mid:.5f}: Kairos {b:.4f} busy")
            lo, hi = (mid, hi) if b >= args.target else (lo, mid)
        chosen = math.sqrt(lo * hi)
    with open(args.out, "w") as f:
        f.write(f"# calibrate.py {args.config}: Kairos {args.target:.0%} busy on {args.tasks} tasks, cluster load sqrt 2\n")
        f.write(f"[lasmix]\nmean_demand = {chosen:.5f}  # a node holds about {1 / chosen:.0f} average requests\n")
    print(f"chosen lasmix.mean_demand = {chosen:.5f} (nodes of about {1 / chosen:.0f} average requests); written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
