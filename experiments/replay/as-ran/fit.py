#!/usr/bin/env python3
"""Fits the settings of an as-ran configuration that its sources leave open, on the first half of
the log's jobs (by submit time), and prints the figures on the second half for the one chosen.

    /usr/bin/python3 experiments/replay/as-ran/fit.py experiments/replay/as-ran/hpc2n.toml [--tracewarp PATH]

The candidates are the configuration's own settings with each combination of the open ones
(OPEN below, per log) applied by --set. Each candidate replays the first half of the jobs alone
(workload.window_jobs); the score is the share of jobs within 10 minutes or 10% of their logged
wait plus the rank correlation of simulated with logged waits (both in [0, 1]), less
log2(simulated / logged mean wait) beyond a factor of 2 either way (a limit that holds a heavy
user's jobs for months can rank waits well and still be wrong by orders of magnitude). The chosen
settings are then run on the whole log, judged on the jobs submitted in its second half
(batch.compare_from_s), beside the null model. Write the chosen values into the configuration
by hand, saying that they were fitted."""
import argparse
import itertools
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

MULTIFACTOR = {"batch.priority": ["multifactor"]}
FAIR_SHARE = {**MULTIFACTOR, "batch.priority_weight_age": [100, 1000], "batch.priority_weight_fairshare": [1000, 10000]}
# The settings each log's sources leave open (see the header of each configuration).
OPEN = {
    "kth-sp2": {"batch.user_max_running_jobs": [0, 4, 16]},
    "hpc2n": {**FAIR_SHARE, "batch.user_max_running_jobs": [0, 8, 32], "batch.resources": ["shared-nodes", "exclusive-nodes"]},
    "sdsc-blue": {"batch.priority_weight_fairshare": [0, 1000, 10000], "batch.user_max_running_jobs": [0, 8, 32]},
    # (no user limit: with thousands of held jobs each pass walks them all, a minute per half-log run)
    "ricc": {**FAIR_SHARE, "batch.fairshare_by": ["user", "group"]},
    "cea-curie": {**FAIR_SHARE, "batch.user_max_running_jobs": [0, 32]},
    "metacentrum": {**FAIR_SHARE, "batch.user_max_running_jobs": [0, 16, 64]},
    "alcf-mira": {**MULTIFACTOR, "batch.priority_weight_age": [0, 1000], "batch.priority_weight_expansion": [0, 1000],
                  "batch.priority_weight_job_size": [0, 1000]},
    "alcf-theta": {**MULTIFACTOR, "batch.priority_weight_age": [0, 1000], "batch.priority_weight_expansion": [0, 1000],
                   "batch.priority_weight_job_size": [0, 1000]},
    "alcf-thetagpu": {**MULTIFACTOR, "batch.priority_weight_age": [1000], "batch.priority_weight_fairshare": [0, 10000],
                      "batch.user_max_running_jobs": [0, 2, 8]},
}


def run(tracewarp, config, sets, out):
    cmd = [tracewarp, "run", config, "-q", "--force", "-o", out]
    for key, value in sets.items():
        cmd += ["--set", f"{key}={value}"]
    subprocess.run(cmd, check=True)
    with h5py.File(out, "r") as f:
        run_group = f["runs"][sorted(f["runs"])[0]]
        return dict(run_group["summary"].attrs), run_group["jobs"]["submit_s"][()]


def score(summary):
    if "compared_mean_wait_s" not in summary:
        sys.exit("fit.py: the replay compared no jobs with the log (no logged waits, or none after compare_from_s)")
    ratio = summary["compared_mean_wait_s"] / max(summary["logged_mean_wait_s"], 1e-9)
    off_by = abs(np.log2(max(ratio, 1e-9)))
    return summary["wait_close_share"] + summary["wait_rank_correlation"] - max(0.0, off_by - 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--tracewarp", default="build/tracewarp")
    args = parser.parse_args()
    log = os.path.basename(args.config).removesuffix(".toml")
    open_keys = OPEN[log]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "fit.h5")
        _, submits = run(args.tracewarp, args.config, {}, out)
        half = len(submits) // 2
        split = float(np.sort(submits)[half])
        print(f"{log}: {len(submits)} jobs; the first {half} (submitted before {split:.0f} s) fit, the rest judge")
        results = []
        for values in itertools.product(*open_keys.values()):
            sets = dict(zip(open_keys.keys(), values))
            # (judged on every job of the half: the configuration's compare_from_s is the split)
            summary, _ = run(args.tracewarp, args.config,
                             {**sets, "workload.window_jobs": half, "batch.compare_from_s": 0}, out)
            results.append((score(summary), sets, summary))
            print(f"  first half {score(summary):.3f} (close {summary['wait_close_share']:.3f}, "
                  f"rank {summary['wait_rank_correlation']:.3f}, mean ratio "
                  f"{summary['compared_mean_wait_s'] / summary['logged_mean_wait_s']:.2f}) {sets}", flush=True)
        best = max(results, key=lambda r: r[0])
        print(f"chosen: {best[1]}")
        summary, _ = run(args.tracewarp, args.config, {**best[1], "batch.compare_from_s": split}, out)
        print(f"second half: close {summary['wait_close_share']:.3f} (null {summary['null_close_share']:.3f}), "
              f"rank {summary['wait_rank_correlation']:.3f}, mean {summary['compared_mean_wait_s']:.0f} s "
              f"(logged {summary['logged_mean_wait_s']:.0f} s, ratio "
              f"{summary['compared_mean_wait_s'] / summary['logged_mean_wait_s']:.2f})")


if __name__ == "__main__":
    sys.exit(main())
