#!/usr/bin/env python3
"""The README's sensitivity tables from the files sensitivity.sh writes (NAME-robustness.h5 and
NAME-benefit.h5 per setting): per setting, medians over 10 seeds of the robustness runs with the
change at 90 s (false judgements and completion of the proposed 30-s and the conventional
detector, Hadoop's completion) and of the benefit runs (completion at p = 0.1 and 0.5); then the
study's own comparison, the 30-s window against the 240-s one (map judgements, completion), and
what a false judgement costs: (completion - Hadoop's) / false judgements, at 30 and 240 s (the
study's Table 1 and Fig. 6: about 0.35 s).

    /usr/bin/python3 experiments/mapreduce-stragglers/sensitivity.py mapreduce-sensitivity
"""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tracewarp_results import load_runs  # noqa: E402


def median(runs, column, **where):
    for key, value in where.items():
        runs = runs[runs["mapreduce." + key] == value]
    return runs["summary." + column].median()


def main() -> int:
    folder = sys.argv[1] if len(sys.argv) > 1 else "mapreduce-sensitivity"
    names = {os.path.basename(p)[: -len("-robustness.h5")] for p in glob.glob(os.path.join(folder, "*-robustness.h5"))}

    def order(name):  # by key, then by value as a number where it is one
        key, _, value = name.rpartition("-")
        try:
            return (key, 0, float(value), "")
        except ValueError:
            return (key, 1, 0.0, value)

    names = sorted(names, key=order)
    print("| setting | robustness (change at 90 s): false judgements, proposed 30 s / conventional "
          "| completion: Hadoop / proposed 30 s / conventional (s) | benefit: Hadoop p 0.1 / 0.5 (s) "
          "| proposed p 0.1 / 0.5 (s) | growth 0.1 -> 0.5: Hadoop / proposed |")
    print("|---|---|---|---|---|---|")
    for name in names:
        r = load_runs([os.path.join(folder, name + "-robustness.h5")])
        b = load_runs([os.path.join(folder, name + "-benefit.h5")])
        r = r[r["mapreduce.state_change_s"] == 90.0]
        prop = dict(detector="proposed", window_s=30.0)
        h1, h5 = (median(b, "job_completion_s", detector="hadoop", abnormal_probability=p) for p in (0.1, 0.5))
        p1, p5 = (median(b, "job_completion_s", detector="proposed", abnormal_probability=p) for p in (0.1, 0.5))
        print(f"| {name} | {median(r, 'false_judgements', **prop):,.0f} / "
              f"{median(r, 'false_judgements', detector='conventional'):,.0f} "
              f"| {median(r, 'job_completion_s', detector='hadoop'):,.1f} / {median(r, 'job_completion_s', **prop):,.1f} / "
              f"{median(r, 'job_completion_s', detector='conventional'):,.1f} "
              f"| {h1:,.1f} / {h5:,.1f} | {p1:,.1f} / {p5:,.1f} | {h5 / h1:.2f}x / {p5 / p1:.2f}x |")
    print()
    print("| setting | map judgements, proposed 30 s / 240 s (cut) | completion 30 s / 240 s (cut) "
          "| cost of a false judgement at 30 s / 240 s (s) | Hadoop, change at 90 s (s) |")
    print("|---|---|---|---|---|")
    for name in names:
        r = load_runs([os.path.join(folder, name + "-robustness.h5")])
        r = r[r["mapreduce.state_change_s"] == 90.0]
        hadoop = median(r, "job_completion_s", detector="hadoop")
        row = {}
        for window in (30.0, 240.0):
            at = dict(detector="proposed", window_s=window)
            completion = median(r, "job_completion_s", **at)
            false = median(r, "false_judgements", **at)
            row[window] = (median(r, "judgements_map", **at), completion,
                           (completion - hadoop) / false if false > 0 else float("nan"))
        (m30, c30, k30), (m240, c240, k240) = row[30.0], row[240.0]
        map_cut = f"{100 * (1 - m30 / m240):.1f}%" if m240 > 0 else "-"
        print(f"| {name} | {m30:,.0f} / {m240:,.0f} ({map_cut}) | {c30:,.1f} / {c240:,.1f} "
              f"({100 * (1 - c30 / c240):.1f}%) | {k30:.3f} / {k240:.3f} | {hadoop:,.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
