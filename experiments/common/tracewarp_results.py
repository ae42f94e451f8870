"""Load a tracewarp results file (HDF5, written by `tracewarp run`) into pandas DataFrames.

    import sys; sys.path.insert(0, "experiments/common")
    from tracewarp_results import load
    r = load("results.h5")
    r.runs                     # one row per run: parameters, varied, summary metrics
    r.table("run-0000", "series")
    r.concat("series")         # a table over all runs, with run_id and the varied parameters

    from tracewarp_results import load_runs, load_table
    load_runs(["a.h5", "b.h5"])          # the runs of several files: file, run_id, one column per
                                         # parameter that varies among them, summary.* metrics
    load_table(["a.h5", "b.h5"], "jobs")  # a table over all of them, with those columns

A file whose run did not finish (no `complete` = 1 attribute) is refused unless
allow_incomplete=True, so half-written results are never analysed by accident.
"""
from __future__ import annotations

import os
import sys

try:
    import h5py
except ImportError:  # another python3 first on PATH (a bare pyenv one): Debian's has the packages
    debian = "/usr/bin/python3"
    script = sys.argv[0] if sys.argv else ""
    if script.endswith(".py") and os.path.exists(script) and os.path.realpath(sys.executable) != os.path.realpath(debian) \
            and os.path.exists(debian):
        print(f"{script}: {sys.executable} has no h5py; running it with {debian}", file=sys.stderr)
        os.execv(debian, [debian] + sys.argv)
    raise
import numpy as np
import pandas as pd


class IncompleteResults(RuntimeError):
    pass


def _value(v):
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, np.generic):
        return v.item()
    return v


class Results:
    def __init__(self, path: str, allow_incomplete: bool = False):
        self.path = path
        with h5py.File(path, "r") as f:
            self.attrs = {k: _value(v) for k, v in f.attrs.items()}
            self.complete = self.attrs.get("complete") == 1
            if not self.complete and not allow_incomplete:
                raise IncompleteResults(f"{path}: incomplete results (the run that wrote them did not finish)")
            self.run_ids = sorted(f["runs"].keys())
            rows = []
            for run_id in self.run_ids:
                g = f["runs"][run_id]
                row = {"run_id": run_id}
                row.update({k: _value(v) for k, v in g.attrs.items()})
                if "summary" in g:
                    row.update({f"summary.{k}": _value(v) for k, v in g["summary"].attrs.items()})
                rows.append(row)
        self.runs = pd.DataFrame(rows)
        self.config = self.attrs.get("config", "")

    def tables(self, run_id: str) -> list[str]:
        with h5py.File(self.path, "r") as f:
            return sorted(k for k, v in f["runs"][run_id].items() if isinstance(v, h5py.Dataset))

    def table(self, run_id: str, name: str) -> pd.DataFrame:
        with h5py.File(self.path, "r") as f:
            data = f["runs"][run_id][name][()]
        return pd.DataFrame.from_records(data) if len(data) else pd.DataFrame(columns=data.dtype.names)

    def summary(self, run_id: str) -> dict:
        with h5py.File(self.path, "r") as f:
            return {k: _value(v) for k, v in f["runs"][run_id]["summary"].attrs.items()}

    def varied(self, run_id: str) -> dict:
        """The sweep point and seed of a run, as {key: value} with numbers parsed."""
        return parse_varied(self.runs.set_index("run_id").loc[run_id, "varied"])

    def concat(self, name: str) -> pd.DataFrame:
        parts = []
        for run_id in self.run_ids:
            df = self.table(run_id, name)
            df.insert(0, "run_id", run_id)
            for key, value in self.varied(run_id).items():
                df[key] = value
            parts.append(df)
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def load(path: str, allow_incomplete: bool = False) -> Results:
    return Results(path, allow_incomplete)


def _number(text: str):
    try:
        return float(text) if any(c in text for c in ".eEn") else int(text)
    except ValueError:
        return None


def parse_varied(text: str) -> dict:
    """A run's `varied` attribute (`key=value, key="text", ...`) as {key: value}: numbers parsed,
    text unquoted; a comma inside quotes belongs to its value ("10m:1h,30m:12h")."""
    out, i, n = {}, 0, len(text)
    while i < n:
        while i < n and text[i] in ", ":
            i += 1
        if i >= n:
            break
        eq = text.index("=", i)
        key, i = text[i:eq].strip(), eq + 1
        if i < n and text[i] == '"':  # quoted text: up to the closing quote ("" is a quote)
            j, value = i + 1, []
            while j < n:
                if text[j] == '"' and j + 1 < n and text[j + 1] == '"':
                    value.append('"')
                    j += 2
                elif text[j] == '"':
                    break
                else:
                    value.append(text[j])
                    j += 1
            out[key], i = "".join(value), j + 1
        else:
            j = text.find(",", i)
            j = n if j < 0 else j
            raw = text[i:j].strip()
            number = _number(raw)
            out[key], i = (raw if number is None else number), j
    return out


def load_runs(paths, allow_incomplete: bool = False) -> pd.DataFrame:
    """The runs of several results files in one DataFrame: `file`, `run_id`, one column per
    parameter whose value differs between any two of the runs (the sweep points, across files
    too: a trace, a machine size), and every summary metric as `summary.<name>`."""
    frames = []
    for path in paths:
        runs = load(path, allow_incomplete).runs.copy()
        runs.insert(0, "file", path)
        frames.append(runs)
    if not frames:
        return pd.DataFrame()
    runs = pd.concat(frames, ignore_index=True)
    fixed = {"file", "run_id", "run_index", "varied"}
    keep = ["file", "run_id"]
    for column in runs.columns:
        if column in fixed or column.startswith("summary."):
            continue
        if runs[column].astype(str).nunique(dropna=False) > 1:
            keep.append(column)
    return runs[keep + [c for c in runs.columns if c.startswith("summary.")]]


def load_table(paths, name: str, allow_incomplete: bool = False) -> pd.DataFrame:
    """Table `name` of every run of several results files, one DataFrame: the rows of each run
    with `file`, `run_id` and the columns of the parameters that vary (as load_runs finds them)."""
    runs = load_runs(paths, allow_incomplete)
    parameters = [c for c in runs.columns if not c.startswith("summary.")]
    parts = []
    for path in paths:
        results = load(path, allow_incomplete)
        for run_id in results.run_ids:
            df = results.table(run_id, name)
            point = runs[(runs["file"] == path) & (runs["run_id"] == run_id)][parameters].iloc[0]
            for column in reversed(parameters):
                df.insert(0, column, point[column])
            parts.append(df)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def open_for_plotting(doc: str, argv=None):
    """What every study's plot.py starts with: its command line (RESULTS.h5 [--out DIR]) parsed,
    the results loaded and the output folder made. Returns (results, out_dir)."""
    import argparse
    import os

    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--out", default=".")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    return load(args.results), args.out
