#!/usr/bin/env bash
# The LAS model on the real Alibaba 2017 sample: every task completes once with slowdown >= 1,
# and the optimistic run on 2 ranks holds the sequential run's data. Skipped without the data.
set -euo pipefail
tw="$1"; mpirun="$2"; python="$3"; src="$4"
data="${TRACEWARP_DATA:-$src/../shared/data}"
if [ ! -e "$data/traces/alibaba-2017/batch_task.csv.gz" ]; then echo "SKIPPED: no Alibaba 2017 sample under $data"; exit 0; fi
export TRACEWARP_DATA="$data"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
config="$src/experiments/las-multiresource/alibaba2017.toml"
"$tw" run "$config" -q -o "$work/seq.h5"
"$mpirun" -np 2 --oversubscribe "$tw" run "$config" -q -o "$work/opt.h5" --set engine.sync=optimistic --set engine.window_s=1
"$python" "$src/tests/python/compare_results.py" "$work/seq.h5" "$work/opt.h5"
"$python" - "$work/seq.h5" <<'PY'
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1]) as f:
    for run in f["runs"]:
        t = f["runs"][run]["tasks"][()]
        assert len(t) == 66815, len(t)
        assert len(np.unique(t["index"])) == len(t)
        assert (t["slowdown"] >= 1).all() and (t["first_start_s"] >= t["submit_s"]).all()
        assert (t["end_s"] >= t["first_start_s"] + t["run_s"] - 1e-9).all()
        s = f["runs"][run]["series"][()]
        assert (s["cpu_utilisation"] <= 1 + 1e-9).all() and (s["memory_utilisation"] <= 1 + 1e-9).all()
        print(run, "ok:", len(t), "tasks")
PY
