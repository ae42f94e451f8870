#!/usr/bin/env python3
"""The MapReduce straggler study's figures and tables from a results file (robustness.toml,
benefit.toml, overhead.toml or scale.toml in this folder). Each figure is drawn when the file
varies what it needs:

  window.png       abnormal judgements (map, reduce) and job completion time against the window
                   (proposed detector), plain Hadoop as a line  (robustness.toml)
  probability.png  job completion time against the abnormal-task probability, per detector
                   (benefit.toml)
  speculative.png  speculative copies and re-executions per detector
  points.csv       per sweep point (seeds pooled): runs, completion mean/min/max, judgements,
                   false judgements, speculative copies, re-executions, wasted container-seconds

    /usr/bin/python3 experiments/mapreduce-stragglers/plot.py mapreduce-robustness.h5 [--out DIR]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tracewarp_results  # noqa: E402,F401  (first: on a bare python3 it reruns the script with one that has the packages)
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tracewarp_results import open_for_plotting  # noqa: E402

POINT = ["mapreduce.detector", "mapreduce.window_s", "mapreduce.abnormal_probability", "mapreduce.state_change"]


def points(runs):
    table = runs.groupby(POINT).agg(
        runs=("run_id", "count"),
        completion_mean_s=("summary.job_completion_s", "mean"),
        completion_min_s=("summary.job_completion_s", "min"),
        completion_max_s=("summary.job_completion_s", "max"),
        judgements_map=("summary.judgements_map", "mean"),
        judgements_reduce=("summary.judgements_reduce", "mean"),
        false_judgements=("summary.false_judgements", "mean"),
        speculative_copies=("summary.speculative_copies", "mean"),
        re_executions=("summary.re_executions", "mean"),
        wasted_container_s=("summary.wasted_container_s", "mean"))
    return table.reset_index()


def plot_window(table, out):
    proposed = table[table["mapreduce.detector"] == "proposed"].sort_values("mapreduce.window_s")
    if proposed["mapreduce.window_s"].nunique() < 2:
        return
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    a.plot(proposed["mapreduce.window_s"], proposed["judgements_map"], marker="o", label="map")
    a.plot(proposed["mapreduce.window_s"], proposed["judgements_reduce"], marker="s", label="reduce")
    a.set_xlabel("window (s)")
    a.set_ylabel("abnormal judgements (mean over runs)")
    a.legend()
    b.plot(proposed["mapreduce.window_s"], proposed["completion_mean_s"], marker="o", label="proposed")
    hadoop = table[table["mapreduce.detector"] == "hadoop"]
    if len(hadoop):
        b.axhline(hadoop["completion_mean_s"].iloc[0], color="grey", linestyle="--", label="Hadoop")
    b.set_xlabel("window (s)")
    b.set_ylabel("job completion (s)")
    b.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "window.png"), dpi=120)
    plt.close(fig)


def plot_probability(table, out):
    if table["mapreduce.abnormal_probability"].nunique() < 2:
        return
    fig, ax = plt.subplots(figsize=(5, 4))
    for detector, m in table.groupby("mapreduce.detector"):
        m = m.sort_values("mapreduce.abnormal_probability")
        ax.plot(m["mapreduce.abnormal_probability"], m["completion_mean_s"], marker="o", label=detector)
    ax.set_xlabel("abnormal-task probability p")
    ax.set_ylabel("job completion (s)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "probability.png"), dpi=120)
    plt.close(fig)


def plot_speculative(table, out):
    by = table.groupby("mapreduce.detector")[["speculative_copies", "re_executions"]].mean()
    ax = by.plot.bar(figsize=(5, 4))
    ax.set_ylabel("attempts per run (mean)")
    ax.figure.tight_layout()
    ax.figure.savefig(os.path.join(out, "speculative.png"), dpi=120)
    plt.close(ax.figure)


def main() -> int:
    r, out = open_for_plotting(__doc__)
    table = points(r.runs)
    table.to_csv(os.path.join(out, "points.csv"), index=False)
    plot_window(table, out)
    plot_probability(table, out)
    plot_speculative(table, out)
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
