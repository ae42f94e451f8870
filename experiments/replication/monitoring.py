#!/usr/bin/env python3
"""What monitoring.toml shows: the adaptive method's completion, server load and view age as its
monitoring interval shrinks (and with measurements free for the server), beside WQR and
proposed, and which method is slowest at each size (the study: adaptive slowest at 10^11 flop).

    /usr/bin/python3 experiments/replication/monitoring.py replication-monitoring.h5 [--csv out.csv]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tracewarp_results as tr  # noqa: E402

METHOD, GRAIN, HOSTS = "replication.method", "replication.grain", "replication.hosts"
INTERVAL, COST = "replication.monitor_interval_s", "replication.monitor_cost_events"
COMPLETION, BUSY, AGE = "summary.completion_s", "summary.server_busy_fraction", "summary.view_age_mean_s"


def label(method: str, interval: float, cost: float) -> str:
    """wqr, proposed, adaptive (on demand), adaptive/10s (measured every 10 s), adaptive/10s free."""
    if method != "adaptive":
        return method
    if interval == 0:
        return "adaptive"
    return f"adaptive/{interval:g}s" + (" free" if cost == 0 else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--csv")
    args = ap.parse_args()
    runs = tr.load(args.results).runs
    runs["setting"] = [label(*s) for s in zip(runs[METHOD], runs[INTERVAL], runs[COST])]
    monitored = runs[(runs[METHOD] == "adaptive") & (runs[INTERVAL] > 0)]
    settings = monitored[[COST, INTERVAL, "setting"]].drop_duplicates().sort_values([COST, INTERVAL],
                                                                                    ascending=[False, True])
    adaptive = ["adaptive"] + list(settings["setting"])
    order = ["wqr", "proposed"] + adaptive
    med = runs.groupby([GRAIN, HOSTS, "setting"])[[COMPLETION, BUSY, AGE]].median()
    if args.csv:
        med.to_csv(args.csv)
    for grain, block in med.groupby(level=GRAIN):
        block = block.droplevel(GRAIN)
        completion = block[COMPLETION].unstack("setting")[order]
        print(f"\n### {grain:g} flop: median completion (s)\n")
        print("| hosts | " + " | ".join(order) + " |")
        print("|---:|" + "---:|" * len(order))
        for hosts, row in completion.iterrows():
            print(f"| {hosts:,} | " + " | ".join(f"{row[s]:,.0f}" for s in order) + " |")
        print(f"\n{grain:g} flop: the slowest of wqr, proposed and each adaptive setting\n")
        print("| hosts | " + " | ".join(adaptive) + " |")
        print("|---:|" + "---|" * len(adaptive))
        for hosts, row in completion.iterrows():
            print(f"| {hosts:,} | " + " | ".join(row[["wqr", "proposed", s]].idxmax().split("/")[0] for s in adaptive)
                  + " |")
        print(f"\n{grain:g} flop, adaptive: server busy fraction / mean age of the view (s)\n")
        print("| hosts | " + " | ".join(adaptive) + " |")
        print("|---:|" + "---:|" * len(adaptive))
        for hosts, sub in block.groupby(level=HOSTS):
            sub = sub.droplevel(HOSTS)
            print(f"| {hosts:,} | " + " | ".join(f"{sub.loc[s, BUSY]:.2f} / {sub.loc[s, AGE]:,.0f}" for s in adaptive)
                  + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
