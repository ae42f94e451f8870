#!/usr/bin/env python3
"""The MapReduce straggler study's figures and tables from a results file (robustness.toml,
benefit.toml, overhead.toml or scale.toml in this folder). Each figure is drawn when the file
varies what it needs:

  window.png       abnormal judgements (map, reduce) and job completion time against the window
                   (proposed detector), plain Hadoop as a line  (robustness.toml)
  probability.png  job completion time against the abnormal-task probability, per detector
                   (benefit.toml)
  speculative.png  speculative copies and re-executions per detector
  points.csv       per sweep point: runs, and the median and quartiles over seeds of completion,
                   judgements, false judgements, speculative copies, re-executions, wasted
                   container-seconds
  points.md        the same as a Markdown table, each metric as median (q1-q3)

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

POINT = ["mapreduce.detector", "mapreduce.window_s", "mapreduce.abnormal_probability", "mapreduce.state_change",
         "mapreduce.state_change_s", "mapreduce.record_bytes", "mapreduce.map_work_cv", "mapreduce.reduce_work_cv"]
METRICS = {"completion_s": "summary.job_completion_s", "judgements_map": "summary.judgements_map",
           "judgements_reduce": "summary.judgements_reduce", "false_judgements": "summary.false_judgements",
           "speculative_copies": "summary.speculative_copies", "re_executions": "summary.re_executions",
           "wasted_container_s": "summary.wasted_container_s"}


def points(runs):
    """Per sweep point: the number of runs, and the median, first and third quartile of each metric
    over its seeds (columns NAME, NAME_q1, NAME_q3)."""
    groups = runs.groupby([c for c in POINT if c in runs.columns])
    table = groups.size().rename("runs").to_frame()
    for name, column in METRICS.items():
        values = groups[column]
        table[name] = values.median()
        table[name + "_q1"] = values.quantile(0.25)
        table[name + "_q3"] = values.quantile(0.75)
    return table.reset_index()


def markdown(table):
    """The table as Markdown: each metric as its median and inter-quartile range."""
    keys = [c for c in POINT if c in table.columns and table[c].nunique() > 1]
    # Rows by the setting varied, then Hadoop, proposed (by window), conventional.
    detectors = {"hadoop": 0, "proposed": 1, "conventional": 2}
    order = [k for k in keys if k not in ("mapreduce.detector", "mapreduce.window_s")]
    table = table.assign(_rank=table["mapreduce.detector"].map(detectors).fillna(3))
    table = table.sort_values(order + ["_rank"] + (["mapreduce.window_s"] if "mapreduce.window_s" in keys else []))
    head = [k.split(".", 1)[1] for k in keys] + ["runs"] + list(METRICS)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, row in table.iterrows():
        cells = [str(row[k]) for k in keys] + [str(row["runs"])]
        for name in METRICS:
            cells.append(f"{row[name]:,.1f} ({row[name + '_q1']:,.1f}-{row[name + '_q3']:,.1f})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot_window(table, out):
    """Judgements and completion against the window, a line per change time; Hadoop dashed."""
    proposed = table[table["mapreduce.detector"] == "proposed"].sort_values("mapreduce.window_s")
    if proposed["mapreduce.window_s"].nunique() < 2:
        return
    by_change = "mapreduce.state_change_s" if "mapreduce.state_change_s" in table.columns else None
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for change, m in (proposed.groupby(by_change) if by_change else [(None, proposed)]):
        at = "" if change is None else f", change at {change:g} s"
        line = a.plot(m["mapreduce.window_s"], m["judgements_map"], marker="o", label="map" + at)[0]
        a.plot(m["mapreduce.window_s"], m["judgements_reduce"], marker="s", linestyle=":", color=line.get_color(),
               label="reduce" + at)
        b.plot(m["mapreduce.window_s"], m["completion_s"], marker="o", color=line.get_color(), label="proposed" + at)
        hadoop = table[table["mapreduce.detector"] == "hadoop"]
        if by_change:
            hadoop = hadoop[hadoop[by_change] == change]
        if len(hadoop):
            b.axhline(hadoop["completion_s"].median(), color=line.get_color(), linestyle="--", linewidth=0.8)
    a.set_xlabel("window (s)")
    a.set_ylabel("abnormal judgements (median over seeds)")
    a.legend(fontsize=7)
    b.set_xlabel("window (s)")
    b.set_ylabel("job completion (s); dashed: Hadoop")
    b.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "window.png"), dpi=120)
    plt.close(fig)


def plot_probability(table, out):
    if table["mapreduce.abnormal_probability"].nunique() < 2:
        return
    fig, ax = plt.subplots(figsize=(5, 4))
    for detector, m in table.groupby("mapreduce.detector"):
        m = m.sort_values("mapreduce.abnormal_probability")
        ax.plot(m["mapreduce.abnormal_probability"], m["completion_s"], marker="o", label=detector)
    ax.set_xlabel("abnormal-task probability p")
    ax.set_ylabel("job completion (s)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "probability.png"), dpi=120)
    plt.close(fig)


def plot_speculative(table, out):
    by = table.groupby("mapreduce.detector")[["speculative_copies", "re_executions"]].median()
    ax = by.plot.bar(figsize=(5, 4))
    ax.set_ylabel("attempts per run (median of the points' medians)")
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
    with open(os.path.join(out, "points.md"), "w") as f:
        f.write(markdown(table) + "\n")
    print(markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
