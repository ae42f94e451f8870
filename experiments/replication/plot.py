#!/usr/bin/env python3
"""The replication study's figures and tables from a results file (study.toml, quick.toml,
success.toml or scale.toml in this folder):

  completion.png     application completion time against hosts, one panel per grain, one line
                     per method (median over runs, band = min..max)
  success.png        replication success probability (replicas that beat their original) of
                     the proposed method with and without condition 3, against grain
  queue_delay.png    mean and maximum queueing delay at the central server against hosts
  points.csv         per (grain, hosts, method): runs, completion median/min/max, server
                     events and busy fraction, queueing delay, replicas started/won, success
                     probability
  server_busy.csv    the server's busy fraction (events / 50 per s over the run), median over
                     runs, hosts x method, one block per grain

    /usr/bin/python3 experiments/replication/plot.py replication-study.h5 [--out DIR]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tracewarp_results  # noqa: E402,F401  (first: on a bare python3 it reruns the script with one that has the packages)
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tracewarp_results import open_for_plotting  # noqa: E402

POINT = ["replication.grain", "replication.hosts", "replication.method"]
METHOD_ORDER = ["wqr", "adaptive", "proposed", "proposed-no-cond3"]


def points(runs):
    g = runs.groupby(POINT)
    table = g.agg(runs=("run_id", "count"),
                  completion_median_s=("summary.completion_s", "median"),
                  completion_min_s=("summary.completion_s", "min"),
                  completion_max_s=("summary.completion_s", "max"),
                  server_events=("summary.server_events", "median"),
                  server_busy=("summary.server_busy_fraction", "median"),
                  queue_delay_mean_s=("summary.queue_delay_mean_s", "median"),
                  queue_delay_max_s=("summary.queue_delay_max_s", "max"),
                  replicas_started=("summary.replicas_started", "sum"),
                  replicas_won=("summary.replicas_won", "sum"))
    table["success_probability"] = (table["replicas_won"] / table["replicas_started"]).where(
        table["replicas_started"] > 0, 0.0)
    return table.reset_index()


def methods_in(table):
    present = set(table["replication.method"])
    return [m for m in METHOD_ORDER if m in present]


def plot_completion(table, out):
    grains = sorted(table["replication.grain"].unique())
    fig, axes = plt.subplots(1, len(grains), figsize=(5 * len(grains), 4), squeeze=False)
    for ax, grain in zip(axes[0], grains):
        at = table[table["replication.grain"] == grain]
        for method in methods_in(at):
            m = at[at["replication.method"] == method].sort_values("replication.hosts")
            ax.plot(m["replication.hosts"], m["completion_median_s"], marker="o", ms=3, label=method)
            ax.fill_between(m["replication.hosts"], m["completion_min_s"], m["completion_max_s"], alpha=0.2)
        ax.set_title(f"grain {grain:.0e} flop")
        ax.set_xlabel("hosts")
        ax.set_ylabel("completion time (s)")
        ax.set_yscale("log")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "completion.png"), dpi=120)
    plt.close(fig)


def plot_success(table, out):
    prop = table[table["replication.method"].isin(["proposed", "proposed-no-cond3"])]
    fig, ax = plt.subplots(figsize=(5, 4))
    for method in methods_in(prop):
        m = prop[prop["replication.method"] == method]
        by_grain = m.groupby("replication.grain")[["replicas_won", "replicas_started"]].sum()
        rate = (by_grain["replicas_won"] / by_grain["replicas_started"]).fillna(0)
        ax.plot(by_grain.index, rate, marker="o", label="with condition 3" if method == "proposed" else
                "without condition 3")
    ax.set_xscale("log")
    ax.set_xlabel("grain (flop)")
    ax.set_ylabel("replication success probability")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "success.png"), dpi=120)
    plt.close(fig)


def plot_queue_delay(table, out):
    fig, ax = plt.subplots(figsize=(5, 4))
    for (grain, method), m in table.groupby(["replication.grain", "replication.method"]):
        m = m.sort_values("replication.hosts")
        ax.plot(m["replication.hosts"], m["queue_delay_mean_s"], marker=".", label=f"{method}, {grain:.0e}")
    ax.set_xlabel("hosts")
    ax.set_ylabel("mean queueing delay at the server (s)")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "queue_delay.png"), dpi=120)
    plt.close(fig)


def main() -> int:
    r, out = open_for_plotting(__doc__)
    table = points(r.runs)
    table.to_csv(os.path.join(out, "points.csv"), index=False)
    busy = table.pivot_table(index=["replication.grain", "replication.hosts"], columns="replication.method",
                             values="server_busy")
    busy = busy[[m for m in METHOD_ORDER if m in busy.columns]]
    busy.to_csv(os.path.join(out, "server_busy.csv"))
    plot_completion(table, out)
    plot_success(table, out)
    plot_queue_delay(table, out)
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
