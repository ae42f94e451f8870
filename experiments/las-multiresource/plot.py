#!/usr/bin/env python3
"""The LAS study's figures and tables from a results file (google.toml, alibaba.toml or
sensitivity.toml in this folder):

  slowdown_cdf.png   slowdown CDF of every run over the range 1.0-2.0 (as the study plots it)
  utilisation.png    mean CPU and memory utilisation per run (while tasks arrive)
  preemptions.png    preemptions per run
  summary.csv        every run's varied parameters and summary (slowdown percentiles
                     50/90/95/99/99.9, preemptions, utilisation)

    /usr/bin/python3 experiments/las-multiresource/plot.py las-google.h5 [--out DIR]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tracewarp_results  # noqa: E402,F401  (first: on a bare python3 it reruns the script with one that has the packages)
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from tracewarp_results import open_for_plotting  # noqa: E402

METRICS = ["summary.slowdown_p50", "summary.slowdown_p90", "summary.slowdown_p95", "summary.slowdown_p99",
           "summary.slowdown_p999", "summary.preemptions", "summary.mean_cpu_utilisation",
           "summary.mean_memory_utilisation"]


def main() -> int:
    r, out = open_for_plotting(__doc__)
    runs = r.runs.set_index("run_id")
    label = {run_id: runs.loc[run_id, "varied"] or run_id for run_id in r.run_ids}
    table = runs[["varied"] + METRICS].rename(columns=lambda c: c.replace("summary.", ""))
    table.to_csv(os.path.join(out, "summary.csv"))
    print(table.to_string(float_format="{:.4g}".format))

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for run_id in r.run_ids:
        s = np.sort(r.table(run_id, "tasks")["slowdown"].to_numpy())
        ax.plot(s, np.arange(1, len(s) + 1) / len(s), label=label[run_id], lw=1)
    ax.set_xlim(1.0, 2.0)
    ax.set_xlabel("slowdown rate (1 + wait / run)")
    ax.set_ylabel("fraction of tasks")
    ax.legend(fontsize=7)
    ax.set_title("Slowdown CDF")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "slowdown_cdf.png"), dpi=120)

    x = np.arange(len(r.run_ids))
    fig, ax = plt.subplots(figsize=(max(6, len(x) * 0.6), 4))
    ax.bar(x - 0.2, table["mean_cpu_utilisation"], 0.4, label="CPU")
    ax.bar(x + 0.2, table["mean_memory_utilisation"], 0.4, label="memory")
    ax.set_xticks(x, [label[k] for k in r.run_ids], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("mean utilisation")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "utilisation.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(max(6, len(x) * 0.6), 4))
    ax.bar(x, table["preemptions"])
    ax.set_xticks(x, [label[k] for k in r.run_ids], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("preemptions")
    ax.set_yscale("log")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "preemptions.png"), dpi=120)
    print(f"wrote {out}/slowdown_cdf.png, utilisation.png, preemptions.png, summary.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
