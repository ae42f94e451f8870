#!/usr/bin/env python3
"""Committed events over simulated time for every run of a PHOLD results file: a PNG figure and
the CSV behind it.   /usr/bin/python3 experiments/phold/plot.py phold.h5 [--out DIR]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tracewarp_results  # noqa: E402,F401  (first: on a bare python3 it reruns the script with one that has the packages)
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tracewarp_results import open_for_plotting  # noqa: E402


def main() -> int:
    r, out = open_for_plotting(__doc__)
    series = r.concat("series")
    series.to_csv(os.path.join(out, "phold_series.csv"), index=False)
    fig, ax = plt.subplots(figsize=(7, 4))
    for run_id, df in series.groupby("run_id"):
        ax.plot(df["time_s"], df["committed"], label=f"{run_id} {r.runs.set_index('run_id').loc[run_id, 'varied']}")
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("committed events per interval")
    ax.set_title(f"PHOLD: {r.attrs.get('config_file', '')}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "phold_series.png"), dpi=120)
    totals = series.groupby("run_id")["committed"].sum()
    for run_id, total in totals.items():
        expected = r.summary(run_id)["committed"]
        if total != expected:
            sys.exit(f"{run_id}: series sums to {total}, summary says {expected}")
    print(f"wrote {out}/phold_series.png and phold_series.csv ({len(r.run_ids)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
