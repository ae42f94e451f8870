#!/usr/bin/env python3
"""A Gantt chart of a batch run: each job a box over the time it ran and the resources it held
(the allocations table, range by range), coloured by user or queue, and the machine's
utilisation under it (the series table).

    /usr/bin/python3 experiments/common/gantt.py RESULTS.h5 -o gantt.png [--run run-0000]
        [--from 0 --until 86400] [--colour user|queue|partition]

Times are seconds since the trace's start; resources are the machine's units (nodes, or
processors: the run attribute machine.unit) along its line."""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("-o", "--output", required=True, help="image to write (PNG, SVG or PDF by its suffix)")
    parser.add_argument("--run", help="run id (default: the first batch run)")
    parser.add_argument("--from", dest="start", type=float, default=None, help="window start, seconds")
    parser.add_argument("--until", type=float, default=None, help="window end, seconds")
    parser.add_argument("--colour", choices=["user", "queue", "partition"], default="user")
    args = parser.parse_args()
    with h5py.File(args.results, "r") as f:
        runs = [r for r in sorted(f["runs"]) if "allocations" in f["runs"][r]]
        if not runs:
            sys.exit(f"{args.results}: no batch run with an allocations table (run it again with this tracewarp)")
        run_id = args.run or runs[0]
        if run_id not in runs:
            sys.exit(f"{args.results}: no batch run {run_id} with allocations (runs: {', '.join(runs)})")
        run = f["runs"][run_id]
        jobs, ranges, series = run["jobs"][()], run["allocations"][()], run["series"][()]
        units = int(run.attrs.get("machine.units", run.attrs.get("machine.nodes", 0)))
        unit = str(run.attrs.get("machine.unit", "node"))
    ran = jobs[jobs["start_s"] >= 0]
    start = args.start if args.start is not None else float(ran["start_s"].min()) if len(ran) else 0.0
    until = args.until if args.until is not None else float(ran["end_s"].max()) if len(ran) else 1.0
    by_index = {int(j["index"]): j for j in ran}
    keys = sorted({int(j[args.colour]) for j in ran})
    palette = plt.get_cmap("tab20")
    colour_of = {k: palette(i % 20) for i, k in enumerate(keys)}
    boxes, colours = [], []
    for r in ranges:
        j = by_index.get(int(r["index"]))
        if j is None or j["end_s"] <= start or j["start_s"] >= until:
            continue
        boxes.append(Rectangle((j["start_s"], r["first"]), j["end_s"] - j["start_s"], r["count"]))
        colours.append(colour_of[int(j[args.colour])])
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(12, 7), gridspec_kw={"height_ratios": [4, 1]})
    top.add_collection(PatchCollection(boxes, facecolor=colours, edgecolor="black", linewidth=0.2))
    top.set_xlim(start, until)
    top.set_ylim(0, max(units, 1))
    top.set_ylabel(f"{unit}s")
    top.set_title(f"{args.results} {run_id}: {len(boxes)} allocation ranges, coloured by {args.colour}")
    whole = series[series["group"] == 0]
    shown = whole[(whole["time_s"] >= start) & (whole["time_s"] <= until)]
    bottom.step(shown["time_s"], shown["used_nodes"] / max(units, 1), where="post")
    bottom.set_ylim(0, 1.05)
    bottom.set_ylabel("utilisation")
    bottom.set_xlabel("time since the trace's start (s)")
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}: {len(boxes)} ranges of {len(np.unique([b.get_x() for b in boxes]))} starts")


if __name__ == "__main__":
    main()
