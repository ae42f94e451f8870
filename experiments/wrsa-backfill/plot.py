#!/usr/bin/env python3
"""The WRSA-aware backfill study's figures and tables from a results file
(experiments/wrsa-backfill/study.toml):

  makespan.csv / makespan.png    makespan of each policy relative to EASY (mean over windows),
                                 per requested-time variant (original, WRA 100%, WRA 20%) and
                                 inter-arrival scaling
  makespan_by_window.csv         the same per window (the study's comparison is per window)
  user_metrics.csv               the study's per-user metrics on Original at the normal arrival
                                 rate (IAT x1): Waittime = wait / requested nodes, Slowdown =
                                 (wait + run) / run, Delay = max(0, T1 - T0), each averaged over
                                 the user's jobs, per policy, user and window
  user_metrics.png               those against the user's WRSA, per policy
  user_metrics_by_wrsa.csv       their means per policy over users grouped by WRSA tercile
  utilisation.csv                utilisation of each policy, same layout
  idle_while_waiting.csv         node-time idle while jobs wait, over nodes x makespan, same layout
  wait_by_class.png              mean wait by node class and by requested-walltime class, per
                                 policy (original walltimes, IAT x1/4)
  user_wrsa.png                  per-user mean WRSA at submission against mean wait, delay and
                                 bounded slowdown (users with >= 10 jobs; original walltimes,
                                 IAT x1/4, one point per user and window), per policy
  utilisation_over_time.png      used nodes over time, first window, original walltimes, IAT x1/4

    /usr/bin/python3 experiments/wrsa-backfill/plot.py wrsa-backfill.h5 [--out DIR]
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

POLICIES = ["easy", "lwjf", "wrsa-or", "wrsa-ar"]
WRA_NAMES = {0.0: "original", 1.0: "WRA 100%", 0.2: "WRA 20%"}
NODE_EDGES = [0, 1, 4, 16, 64, 256, 1024]
WALLTIME_EDGES_H = [0, 1, 4, 12, 24, np.inf]


def main() -> int:
    r, out = open_for_plotting(__doc__)
    runs = r.runs.set_index("run_id")
    runs["wra_name"] = runs["workload.wra"].map(lambda w: WRA_NAMES.get(round(w, 3), f"WRA {w}"))
    policies = [p for p in POLICIES if p in set(runs["batch.policy"])]
    key = ["wra_name", "workload.iat_scale", "workload.window_start"]

    easy = runs[runs["batch.policy"] == "easy"].set_index(key)
    rows = []
    for run_id, run in runs.iterrows():
        s = r.summary(run_id)
        base = easy.loc[tuple(run[k] for k in key)] if "easy" in policies else None
        rows.append({"policy": run["batch.policy"], "variant": run["wra_name"], "iat": run["workload.iat_scale"],
                     "window": run["workload.window_start"], "makespan_s": s["makespan_s"],
                     "utilisation": s["utilisation"], "mean_wait_s": s["mean_wait_s"],
                     "makespan_vs_easy": s["makespan_s"] / base["summary.makespan_s"] if base is not None else np.nan})
    table = pd.DataFrame(rows)
    table.to_csv(os.path.join(out, "runs.csv"), index=False)
    makespan = table.pivot_table(index=["variant", "iat"], columns="policy", values="makespan_vs_easy", aggfunc="mean")
    utilisation = table.pivot_table(index=["variant", "iat"], columns="policy", values="utilisation", aggfunc="mean")
    makespan = makespan[policies].sort_index(ascending=[True, False])
    utilisation = utilisation[policies].sort_index(ascending=[True, False])
    makespan.to_csv(os.path.join(out, "makespan.csv"))
    table.pivot_table(index=["variant", "iat", "window"], columns="policy", values="makespan_vs_easy")[policies].to_csv(
        os.path.join(out, "makespan_by_window.csv"))
    utilisation.to_csv(os.path.join(out, "utilisation.csv"))
    idle = idle_while_waiting_table(r, runs, policies)
    idle.to_csv(os.path.join(out, "idle_while_waiting.csv"))
    with pd.option_context("display.width", 160, "display.float_format", "{:.4f}".format):
        print("makespan relative to EASY (mean over windows)")
        print(makespan.to_string())
        print("\nutilisation (mean over windows)")
        print(utilisation.to_string())
        print("\nidle while jobs wait: node-time idle while the queue is not empty, over nodes x makespan "
              "(mean over windows)")
        print(idle.to_string())

    fig, axes = plt.subplots(1, len(makespan.index.levels[0]), figsize=(13, 4), sharey=True)
    for ax, (variant, df) in zip(np.atleast_1d(axes), makespan.groupby(level=0)):
        df.droplevel(0).plot.bar(ax=ax)
        ax.axhline(1.0, color="k", lw=0.6)
        ax.set_title(variant)
        ax.set_xlabel("inter-arrival scaling")
    np.atleast_1d(axes)[0].set_ylabel("makespan / EASY's")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "makespan.png"), dpi=120)

    # Detail figures: original walltimes at IAT x1/4 (a loaded machine), every window.
    detail = runs[(runs["wra_name"] == "original") & np.isclose(runs["workload.iat_scale"], 0.25)]
    if detail.empty:
        detail = runs
    jobs, users = [], []
    for run_id, run in detail.iterrows():
        j = r.table(run_id, "jobs")
        j = j[j["status"] != 2].assign(policy=run["batch.policy"])
        jobs.append(j)
        users.append(r.table(run_id, "users").assign(policy=run["batch.policy"]))
    jobs, users = pd.concat(jobs), pd.concat(users)
    jobs["node_class"] = pd.cut(jobs["nodes"], NODE_EDGES, include_lowest=True)
    jobs["walltime_class"] = pd.cut(jobs["requested_s"] / 3600, WALLTIME_EDGES_H, include_lowest=True)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for ax, cls, label in ((axes[0], "node_class", "nodes"), (axes[1], "walltime_class", "requested walltime (h)")):
        jobs.pivot_table(index=cls, columns="policy", values="wait_s", aggfunc="mean", observed=False)[policies].plot.bar(ax=ax)
        ax.set_xlabel(label)
        ax.set_ylabel("mean wait (s)")
        ax.tick_params(axis="x", rotation=30)
    fig.suptitle("Mean wait by class (original walltimes, IAT x1/4, all windows)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "wait_by_class.png"), dpi=120)

    scatter_by_wrsa(users, policies, "mean_wrsa_at_submit",
                    {"mean_wait_s": "mean wait (s)", "mean_delay_s": "mean delay (s)",
                     "mean_bounded_slowdown": "mean bounded slowdown"},
                    "Per-user WRSA against service (users with >= 10 jobs)", os.path.join(out, "user_wrsa.png"))
    corr = users.groupby("policy").apply(
        lambda u: pd.Series({c: u["mean_wrsa_at_submit"].corr(u[c], method="spearman")
                             for c in ["mean_wait_s", "mean_delay_s", "mean_bounded_slowdown"]}))
    corr.to_csv(os.path.join(out, "user_wrsa_correlation.csv"))
    print("\nSpearman correlation of users' WRSA with their service (original, IAT x1/4)")
    print(corr.to_string(float_format="{:.3f}".format))

    study_user_metrics(r, runs, policies, out)

    fig, ax = plt.subplots(figsize=(9, 4))
    first_window = detail["workload.window_start"].min()
    for run_id, run in detail[detail["workload.window_start"] == first_window].iterrows():
        s = r.table(run_id, "series")
        ax.plot(s["time_s"] / 86400, s["used_nodes"], lw=0.7, label=run["batch.policy"])
    ax.set_xlabel("day")
    ax.set_ylabel("used nodes (of 1024)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "utilisation_over_time.png"), dpi=120)
    print(f"wrote {out}/makespan.png, wait_by_class.png, user_wrsa.png, user_metrics.png, utilisation_over_time.png "
          "and CSVs")
    return 0


STUDY_METRICS = {"waittime": "Waittime (wait / requested nodes, s)", "slowdown": "Slowdown ((wait + run) / run)",
                 "delay": "Delay (max(0, T1 - T0), s)"}


def study_user_metrics(r, runs, policies, out):
    """The study's per-user figures: Original requests at the normal arrival rate."""
    normal = runs[(runs["wra_name"] == "original") & np.isclose(runs["workload.iat_scale"], 1.0)]
    if normal.empty:
        return
    rows = []
    for run_id, run in normal.iterrows():
        j = r.table(run_id, "jobs")
        j = j[(j["status"] != 2) & (j["run_s"] > 0)]
        per_job = pd.DataFrame({"user": j["user"], "wrsa": j["wrsa_at_submit"],
                                "waittime": j["wait_s"] / j["nodes"],
                                "slowdown": (j["wait_s"] + j["run_s"]) / j["run_s"], "delay": j["delay_s"]})
        per_user = per_job.groupby("user").agg(jobs=("wrsa", "size"), wrsa=("wrsa", "mean"), waittime=("waittime", "mean"),
                                               slowdown=("slowdown", "mean"), delay=("delay", "mean"))
        per_user = per_user[per_user["jobs"] >= 10].reset_index()
        rows.append(per_user.assign(policy=run["batch.policy"], window=run["workload.window_start"]))
    users = pd.concat(rows)
    if users.empty:  # small windows: no user has 10 jobs
        print("\nstudy metrics per user: no user has 10 jobs in these windows; no per-user figures")
        return
    users.to_csv(os.path.join(out, "user_metrics.csv"), index=False)
    # WRSA does not depend on the policy (run times are the trace's), so users group alike.
    users["wrsa_group"] = users.groupby(["window", "policy"])["wrsa"].transform(terciles)
    users["wrsa_group"] = pd.Categorical(users["wrsa_group"], categories=TERCILES, ordered=True)
    by_group = users.pivot_table(index="policy", columns="wrsa_group", values=list(STUDY_METRICS), aggfunc="mean",
                                 observed=False).reindex(policies)
    by_group.to_csv(os.path.join(out, "user_metrics_by_wrsa.csv"))
    with pd.option_context("display.width", 200, "display.float_format", "{:.1f}".format):
        print("\nstudy metrics per user (Original, IAT x1, users with >= 10 jobs), mean over users by WRSA tercile")
        print(by_group.to_string())
    scatter_by_wrsa(users, policies, "wrsa", STUDY_METRICS,
                    "The study's per-user metrics (Original, normal arrival rate, users with >= 10 jobs)",
                    os.path.join(out, "user_metrics.png"))


def idle_while_waiting(jobs, nodes):
    """Node-time left idle while at least one job waits, over nodes x makespan: exact, from the
    jobs table (a sweep over submits, starts and ends). A scheduler that is never starved of work
    leaves this near 0; the study's heavy-load makespans (WRSA-OR 1.56-2.22x EASY at the same
    total work) would need most of the machine idle while jobs wait."""
    ran = jobs[jobs["status"] != 2]
    if ran.empty:
        return np.nan
    times = np.concatenate([ran["submit_s"], ran["start_s"], ran["start_s"], ran["end_s"]])
    queued = np.concatenate([np.ones(len(ran)), -np.ones(len(ran)), np.zeros(len(ran)), np.zeros(len(ran))])
    size = ran["nodes"].to_numpy(dtype=np.float64)  # (unsigned in the file: negate as float)
    used = np.concatenate([np.zeros(len(ran)), np.zeros(len(ran)), size, -size])
    order = np.argsort(times, kind="stable")
    times, queued, used = times[order], np.cumsum(queued[order]), np.cumsum(used[order])
    span = np.diff(times)  # after each event, until the next
    idle = np.where(queued[:-1] > 0, (nodes - used[:-1]) * span, 0.0).sum()
    makespan = ran["end_s"].max() - ran["submit_s"].min()
    return idle / (nodes * makespan) if makespan > 0 else np.nan


def idle_while_waiting_table(r, runs, policies):
    rows = []
    for run_id, run in runs.iterrows():
        nodes = run.get("machine.nodes", run.get("batch.nodes", 0)) or 1024
        rows.append({"policy": run["batch.policy"], "variant": run["wra_name"], "iat": run["workload.iat_scale"],
                     "idle": idle_while_waiting(r.table(run_id, "jobs"), nodes)})
    table = pd.DataFrame(rows).pivot_table(index=["variant", "iat"], columns="policy", values="idle", aggfunc="mean")
    return table[policies].sort_index(ascending=[True, False])


TERCILES = ["low", "mid", "high"]


def terciles(values):
    """Each value's tercile by rank (ties in order of appearance). Not pd.qcut: with fewer than
    three users in a group (small windows) its bin edges repeat and it fails; here one user is
    "low" and two are "low" and "mid"."""
    ranks = values.rank(method="first").to_numpy()
    index = np.minimum(2, ((ranks - 1) * 3 // len(values)).astype(int))
    return pd.Series(np.array(TERCILES)[index], index=values.index)


def scatter_by_wrsa(users, policies, wrsa_column, metrics, title, path):
    """One panel per metric: each user's value against the user's mean WRSA, a colour per policy."""
    fig, axes = plt.subplots(1, len(metrics), figsize=(14, 4))
    for ax, (col, label) in zip(axes, metrics.items()):
        for policy in policies:
            u = users[users["policy"] == policy]
            ax.scatter(u[wrsa_column], u[col], s=8, alpha=0.6, label=policy)
        ax.set_xlabel("user's mean WRSA at submission")
        ax.set_ylabel(label)
        ax.set_yscale("symlog")
    axes[0].legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
