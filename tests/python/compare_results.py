#!/usr/bin/env python3
"""Exit 0 when two results files hold the same model data: the same runs with the same
parameters, summaries and tables (a table in only one of the files is a difference) (every dataset but `engine`, whose statistics depend on the rank
count and timing by nature, and every column named wall_*, which holds wall-clock measurements)."""
import sys

import h5py
import numpy as np



def model_columns(rows):
    """The deterministic columns of a table: all but wall-clock measurements."""
    keep = [n for n in rows.dtype.names if not n.startswith("wall_")]
    return rows[keep] if len(keep) < len(rows.dtype.names) else rows


def differences(a_path, b_path, allow_new=False):
    """The differences in model data between two results files, as lines (empty: identical)."""
    problems = []
    with h5py.File(a_path, "r") as a, h5py.File(b_path, "r") as b:
        for f, p in ((a, a_path), (b, b_path)):
            if f.attrs.get("complete") != 1:
                problems.append(f"{p} is not complete")
        if sorted(a["runs"]) != sorted(b["runs"]):
            problems.append(f"different runs: {sorted(a['runs'])} vs {sorted(b['runs'])}")
        for run in sorted(set(a["runs"]) & set(b["runs"])):
            problems += run_differences(run, a["runs"][run], b["runs"][run], a_path, b_path, allow_new)
    return problems


def run_differences(run, ga, gb, a_path, b_path, allow_new):
    problems = []
    # (engine.* and output.file say how and where a run was written, not what it computed)
    def params(g):
        return {k: v for k, v in g.attrs.items() if not k.startswith("engine.") and k != "output.file"}

    params_a, params_b = params(ga), params(gb)
    # (with --allow-new-parameters, keys in one file only are fine either way: files written
    # before runs recorded only their own model's keys held every model's)
    keys_differ = False if allow_new else params_a.keys() != params_b.keys()
    if keys_differ or any(params_a[k] != params_b[k] for k in params_a.keys() & params_b.keys()):
        problems.append(f"{run}: parameters differ")
    sum_a, sum_b = dict(ga["summary"].attrs), dict(gb["summary"].attrs)
    if allow_new:
        sum_b = {k: v for k, v in sum_b.items() if k in sum_a}
    if sum_a != sum_b:
        problems.append(f"{run}: summary {dict(ga['summary'].attrs)} vs {dict(gb['summary'].attrs)}")

    def model_tables(g):
        return {k for k, v in g.items() if isinstance(v, h5py.Dataset) and k != "engine"}

    tables = sorted(model_tables(ga) | model_tables(gb))
    for t in tables:
        if allow_new and t not in ga:  # a table added since the first file was written
            continue
        if t not in ga or t not in gb:
            problems.append(f"{run}/{t}: only in {a_path if t in ga else b_path}")
        elif allow_new and set(ga[t].dtype.names) <= set(gb[t].dtype.names):
            old = list(ga[t].dtype.names)
            rows_a, rows_b = ga[t][()], gb[t][()]
            if len(rows_a) != len(rows_b) or any(
                    not np.array_equal(rows_a[c], rows_b[c]) for c in old if not c.startswith("wall_")):
                problems.append(f"{run}/{t}: contents differ")
        elif ga[t].dtype != gb[t].dtype:
            problems.append(f"{run}/{t}: columns differ: {ga[t].dtype.names} vs {gb[t].dtype.names}")
        elif not np.array_equal(*(model_columns(g[t][()]) for g in (ga, gb))):
            problems.append(f"{run}/{t}: contents differ")
    if not tables:
        problems.append(f"{run}: no model tables to compare")
    return problems


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    # --allow-new-parameters: parameters, summary metrics, table columns and tables present in
    # only the second file are fine (added since the first was written); common ones must still
    # agree, and a table of the first file missing from the second is still a difference.
    allow_new = "--allow-new-parameters" in sys.argv[1:]
    a_path, b_path = args[0], args[1]
    problems = differences(a_path, b_path, allow_new)
    for p in problems:
        print("DIFFERENT:", p)
    print(f"{a_path} vs {b_path}: {'identical model data' if not problems else f'{len(problems)} difference(s)'}")
    sys.exit(1 if problems else 0)
