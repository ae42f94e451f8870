"""Load a tracewarp results file (HDF5, written by `tracewarp run`) into pandas DataFrames.

    import sys; sys.path.insert(0, "experiments/common")
    from tracewarp_results import load
    r = load("results.h5")
    r.runs                     # one row per run: parameters, varied, summary metrics
    r.table("run-0000", "series")
    r.concat("series")         # a table over all runs, with run_id and the varied parameters

A file whose run did not finish (no `complete` = 1 attribute) is refused unless
allow_incomplete=True, so half-written results are never analysed by accident.
"""
from __future__ import annotations

import h5py
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
        text = self.runs.set_index("run_id").loc[run_id, "varied"]
        out = {}
        for item in filter(None, (s.strip() for s in text.split(","))):
            key, value = item.split("=", 1)
            try:
                out[key] = float(value) if any(c in value for c in ".eE") else int(value)
            except ValueError:
                out[key] = value.strip('"')
        return out

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
