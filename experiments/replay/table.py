#!/usr/bin/env python3
"""The README table of experiments/replay/: for each replayed log and policy, the simulated waits
against the logged ones (the batch summary's logged_* and compared_* figures, docs/studies.md
"Replaying a log"), the closest policy of each log in bold.

    /usr/bin/python3 experiments/replay/table.py replay-*.h5 [--csv table.csv]

Closest: the largest share of jobs within 10 minutes or 10% of their logged wait
(wait_close_share), ties broken by the smaller median absolute difference, and only where it
beats the null model (every job starts at submission) on both that share and the rank
correlation (the null model's is 0: a constant ranks nothing). Beside each run, what the null
model scores on the same jobs, and how well the requested times alone rank the logged waits."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tracewarp_results as tr  # noqa: E402

COLUMNS = [  # (heading, summary key, format)
    ("jobs", "logged_jobs", "{:,.0f}"),
    ("logged mean wait (s)", "logged_mean_wait_s", "{:,.0f}"),
    ("simulated mean (s)", "compared_mean_wait_s", "{:,.0f}"),
    ("logged median (s)", "logged_median_wait_s", "{:,.0f}"),
    ("simulated median (s)", "compared_median_wait_s", "{:,.0f}"),
    ("median abs. difference (s)", "wait_median_abs_difference_s", "{:,.0f}"),
    ("rank correlation", "wait_rank_correlation", "{:.2f}"),
    ("within 10 min or 10%", "wait_close_share", "{:.1%}"),
    ("null model within", "null_close_share", "{:.1%}"),
    ("requested-time rank correlation", "requested_wait_rank_correlation", "{:.2f}"),
]
CLOSE = [key for _, key, _ in COLUMNS].index("wait_close_share")


def beats_null(row):
    return row["wait_close_share"] > row["null_close_share"] and row["wait_rank_correlation"] > 0


def rows_of(path):
    results = tr.load(path)
    for _, run in results.runs.iterrows():
        name = str(run.get("experiment.name", os.path.basename(path))).removeprefix("replay-").removeprefix("as-ran-")
        mode = run.get("machine.resources", "")
        cut = "cut" if run.get("batch.kill_at_walltime", 0) else "as logged"
        priority = run.get("batch.priority", "arrival")
        policy = run["batch.policy"] + ("" if priority == "arrival" else f" ({priority})")
        if str(run.get("experiment.name", "")).startswith("as-ran-"):  # experiments/replay/as-ran/
            policy = "as ran: " + policy
        swept = [part for part in str(run.get("varied", "")).split(", ")  # a sweep's other keys tell its rows apart
                 if part and not part.startswith(("batch.policy=", "batch.resources=", "batch.kill_at_walltime="))]
        if swept:
            policy += " [" + ", ".join(swept) + "]"
        yield {"log": name, "policy": policy, "resources": mode, "past walltime": cut,
               **{key: run.get("summary." + key, float("nan")) for _, key, _ in COLUMNS}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--csv", help="also write the rows as CSV")
    args = parser.parse_args()
    rows = [row for path in args.files for row in rows_of(path)]
    if not rows:
        sys.exit("no runs in the files given")
    best = {}
    for row in rows:
        if not row["logged_jobs"] > 0 or not beats_null(row):  # no waits logged, or no better than none
            continue
        key = row["log"]
        rank = (row["wait_close_share"], -row["wait_median_abs_difference_s"])
        if key not in best or rank > best[key][0]:
            best[key] = (rank, id(row))
    print("| log | policy | resources | past walltime | " + " | ".join(h for h, _, _ in COLUMNS) + " |")
    print("|---|---|---|---|" + "---:|" * len(COLUMNS))
    for row in rows:
        if not row["logged_jobs"] > 0:
            print(f"| {row['log']} | {row['policy']} | {row['resources']} | {row['past walltime']} "
                  "| the log records no waits |"
                  + " |" * (len(COLUMNS) - 1))
            continue
        cells = [fmt.format(row[key]) for _, key, fmt in COLUMNS]
        policy = row["policy"]
        if row["log"] in best and best[row["log"]][1] == id(row):
            policy, cells[CLOSE] = f"**{policy}**", f"**{cells[CLOSE]}**"
        print(f"| {row['log']} | {policy} | {row['resources']} | {row['past walltime']} | " + " | ".join(cells) + " |")
    if args.csv:
        import pandas as pd
        pd.DataFrame(rows).to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
