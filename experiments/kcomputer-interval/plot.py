#!/usr/bin/env python3
"""The K computer interval-scheduling study's figures and tables from a results file
(experiments/kcomputer-interval/study.toml, study-768.toml, load-sweep.toml or quick.toml):

  utilisation.png      machine utilisation over time, one mix per pattern
  wait_by_class.png    mean wait by node class and by walltime class, per pattern
  started_by_class.png jobs started inside the window by node class, per pattern
  patterns.csv         per pattern (per load and pattern for load-sweep.toml), over mixes: utilisation (mean, std), large-group utilisation,
                       the offered load (node-seconds of the jobs submitted over machine nodes x
                       the submission period, on the machine the jobs ran on), jobs started of each
                       node class, mean wait, scheduling pass cost (mean and p99 wall-clock us) and
                       the node x interval cells a plan table would read per pass (the study's cost
                       measure)
  wait_by_node_class.csv  mean wait per pattern and node-count class (the study's wait finding)

Classes are the study's: nodes 1-384 (small group), 385-1,080, -4,320, -10,800, -36,864;
requested walltime up to 1 h, 4 h, 12 h, 24 h.

    /usr/bin/python3 experiments/kcomputer-interval/plot.py kcomputer-interval.h5 [--out DIR]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tracewarp_results  # noqa: E402,F401  (first: on a bare python3 it reruns the script with one that has the packages)
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from tracewarp_results import open_for_plotting  # noqa: E402

NODE_EDGES = [0, 384, 1080, 4320, 10800, 36864]
NODE_LABELS = ["1-384", "385-1080", "1081-4320", "4321-10800", "10801-36864"]
WALLTIME_EDGES_H = [0, 1, 4, 12, 24, np.inf]
WALLTIME_LABELS = ["<=1h", "<=4h", "<=12h", "<=24h", ">24h"]


def classify(jobs: pd.DataFrame, scale: float) -> pd.DataFrame:
    """Adds node and walltime classes; `scale` maps node counts back to the full machine's."""
    jobs = jobs[jobs["status"] != 2].copy()
    jobs["node_class"] = pd.cut(jobs["nodes"] * scale, NODE_EDGES, labels=NODE_LABELS, include_lowest=True)
    jobs["walltime_class"] = pd.cut(jobs["requested_s"] / 3600, WALLTIME_EDGES_H, labels=WALLTIME_LABELS)
    return jobs


def main() -> int:
    r, out = open_for_plotting(__doc__)
    runs = r.runs.set_index("run_id")
    pattern_of = runs["batch.interval_pattern"].to_dict()
    patterns = sorted(set(pattern_of.values()))

    rows, per_class_wait, per_class_started, walltime_wait = [], [], [], []
    for run_id in r.run_ids:
        s = r.summary(run_id)
        nodes = runs.loc[run_id, "machine.nodes"]
        scale = 82944 / nodes if nodes < 82944 else 1.0
        jobs = classify(r.table(run_id, "jobs"), scale)
        inside = jobs[(jobs["start_s"] >= s["window_from_s"]) & (jobs["start_s"] < s["window_until_s"])]
        started = inside.groupby("node_class", observed=False).size()
        passes = r.table(run_id, "passes")
        all_jobs = r.table(run_id, "jobs")
        all_jobs = all_jobs[all_jobs["status"] != 2]
        period = all_jobs["submit_s"].max() - all_jobs["submit_s"].min()
        row = {
            "pattern": pattern_of[run_id],
            "load": runs.loc[run_id, "kmix.load_large"] if "kmix.load_large" in runs.columns else np.nan,
            "run_id": run_id,
            "utilisation": s["utilisation"],
            "utilisation_large": s.get("utilisation_large", np.nan),
            "offered_load": (all_jobs["nodes"] * all_jobs["run_s"]).sum() / (nodes * period) if period > 0 else np.nan,
            "plan_cells_per_pass": passes["plan_cells"].mean() if "plan_cells" in passes else np.nan,
            "mean_wait_s": inside["wait_s"].mean(),
            "pass_mean_us": passes["wall_us"].mean(),
            "pass_p99_us": passes["wall_us"].quantile(0.99),
            "passes": len(passes),
        }
        for label in NODE_LABELS:
            row[f"started_{label}"] = int(started.get(label, 0))
        rows.append(row)
        per_class_wait.append(inside.groupby("node_class", observed=False)["wait_s"].mean().rename(run_id))
        walltime_wait.append(inside.groupby("walltime_class", observed=False)["wait_s"].mean().rename(run_id))
        per_class_started.append(started.rename(run_id))
    table = pd.DataFrame(rows)
    table.to_csv(os.path.join(out, "runs.csv"), index=False)
    # A load sweep (load-sweep.toml) gets a row per load and pattern; otherwise one per pattern.
    keys = ["load", "pattern"] if table["load"].nunique() > 1 else ["pattern"]
    numeric = table.drop(columns=["run_id"] + (["load"] if keys == ["pattern"] else []))
    summary = numeric.groupby(keys).agg(["mean", "std"])
    summary.columns = [f"{a}_{b}" for a, b in summary.columns]
    summary.insert(0, "mixes", table.groupby(keys).size())
    summary.to_csv(os.path.join(out, "patterns.csv"))
    with pd.option_context("display.width", 200, "display.max_columns", 40, "display.float_format", "{:.4g}".format):
        print(summary[["mixes", "utilisation_mean", "utilisation_std", "utilisation_large_mean", "offered_load_mean",
                       "mean_wait_s_mean", f"started_{NODE_LABELS[-1]}_mean", f"started_{NODE_LABELS[-2]}_mean",
                       "pass_mean_us_mean", "pass_p99_us_mean", "plan_cells_per_pass_mean"]].to_string())

    # Utilisation over time: the first mix of each pattern, whole machine (group 0).
    fig, ax = plt.subplots(figsize=(8, 4))
    for pattern in patterns:
        run_id = next(k for k in r.run_ids if pattern_of[k] == pattern)
        series = r.table(run_id, "series")
        series = series[series["group"] == 0]
        ax.plot(series["time_s"] / 86400, series["used_nodes"] / runs.loc[run_id, "machine.nodes"], label=pattern, lw=0.8)
    ax.set_xlabel("day")
    ax.set_ylabel("used nodes / machine")
    ax.set_ylim(0, 1.02)
    ax.legend(title="pattern")
    ax.set_title("Utilisation over time (first mix of each pattern)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "utilisation.png"), dpi=120)

    def by_pattern(frames):
        df = pd.concat(frames, axis=1).T
        df["pattern"] = [pattern_of[k] for k in df.index]
        return df.groupby("pattern").mean()

    node_wait = by_pattern(per_class_wait)
    node_wait.to_csv(os.path.join(out, "wait_by_node_class.csv"))
    with pd.option_context("display.width", 200, "display.float_format", "{:.0f}".format):
        print("\nmean wait (s) by node-count class (full-machine scale), mean over mixes")
        print(node_wait.to_string())
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    node_wait.T.plot.bar(ax=axes[0])
    axes[0].set_ylabel("mean wait (s)")
    axes[0].set_xlabel("nodes (full-machine scale)")
    by_pattern(walltime_wait).T.plot.bar(ax=axes[1])
    axes[1].set_xlabel("requested walltime")
    for ax in axes:
        ax.tick_params(axis="x", rotation=0)
        ax.legend(title="pattern")
    fig.suptitle("Mean wait by class (mean over mixes)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "wait_by_class.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(8, 4))
    by_pattern(per_class_started).T.plot.bar(ax=ax, logy=True)
    ax.set_ylabel("jobs started in the window (mean over mixes)")
    ax.set_xlabel("nodes (full-machine scale)")
    ax.tick_params(axis="x", rotation=0)
    ax.legend(title="pattern")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "started_by_class.png"), dpi=120)
    print(f"wrote {out}/utilisation.png, wait_by_class.png, started_by_class.png, patterns.csv, runs.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
