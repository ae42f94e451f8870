#!/usr/bin/env python3
"""The replication figures of docs/performance.md: each configuration run REPS times (default 3)
with `tracewarp run`, the median wall time reported with its spread, committed events, events/s,
rolled-back events, efficiency and peak memory (largest rank), read back from the results files.

    /usr/bin/python3 bench/replication.py [--build build] [--reps 3] [--scale]

Without --scale: one run per method at 1,600 hosts, 10,000 tasks, 10^10 flop (quick.toml).
With --scale: scale.toml (100,000 hosts, 10^6 tasks) sequentially and optimistically on 2 ranks.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_once(cmd, out):
    subprocess.run(cmd + ["-o", out, "-q"], check=True, env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                                                                  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    return read_run(out)


def read_run(out):
    """The first run's engine statistics (summed or largest over ranks) and completion time."""
    with h5py.File(out, "r") as f:
        e = f["runs/run-0000/engine"]
        rows = e[()]
        return {"wall_s": float(e.attrs["wall_s"]), "committed": int(e.attrs["committed"]),
                "efficiency": float(e.attrs["efficiency"]),
                "rolled_back": int(rows["rolled_back"].sum()),
                "peak_mib": max(int(r) for r in rows["peak_rss_bytes"]) / 2**20,
                "rounds": int(rows["gvt_rounds"].max()),
                "completion_s": float(f["runs/run-0000/summary"].attrs["completion_s"])}


def row(label, cmd, reps):
    with tempfile.TemporaryDirectory() as tmp:
        runs = [run_once(cmd, os.path.join(tmp, f"r{i}.h5")) for i in range(reps)]
    walls = sorted(r["wall_s"] for r in runs)
    med = runs[[r["wall_s"] for r in runs].index(statistics.median_low(walls))]
    print(f"| {label} | {med['wall_s']:.3f} ({walls[0]:.3f}-{walls[-1]:.3f}) | {med['committed']:,} | "
          f"{med['committed'] / med['wall_s']:.3g} | {med['rolled_back']:,} | {med['efficiency']:.4f} | "
          f"{med['peak_mib']:.0f} MiB | {med['completion_s']:.1f} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scale", action="store_true")
    ap.add_argument("--ranks", type=int, nargs="*", default=[2])
    args = ap.parse_args()
    tw = os.path.join(args.build, "tracewarp")
    exp = os.path.join(ROOT, "experiments", "replication")
    print(f"| run | model wall s, median of {args.reps} (min-max) | committed | events/s | rolled back | "
          "efficiency | peak RSS | completion (simulated s) |")
    print("|---|---|---|---|---|---|---|---|")
    if not args.scale:
        for method in ["wqr", "adaptive", "proposed", "proposed-no-cond3"]:
            row(f"1,600 hosts, {method}, sequential", [tw, "run", os.path.join(exp, "quick.toml"),
                                                       "--set", f"replication.method={method}"], args.reps)
        return 0
    scale = os.path.join(exp, "scale.toml")
    row("100,000 hosts, proposed, sequential", [tw, "run", scale], args.reps)
    for n in args.ranks:
        row(f"100,000 hosts, proposed, optimistic, {n} ranks",
            ["mpirun", "-np", str(n), "--oversubscribe", "--bind-to", "none", tw, "run", scale, "--set",
             "engine.sync=optimistic"], args.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
