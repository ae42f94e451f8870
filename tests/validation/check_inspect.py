#!/usr/bin/env python3
"""Validation: `tracewarp inspect` on real traces from shared data reports the job counts of
the traces README. The data is found through TRACEWARP_DATA (default: ../shared/data next to the
repository); without it the test is skipped (exit 77) with a message saying so."""
import json
import os
import subprocess
import sys

tracewarp = sys.argv[1]
repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
data = os.environ.get("TRACEWARP_DATA", os.path.join(repo, "..", "shared", "data"))
traces = os.path.join(data, "traces")

# file: (records in the file, as the traces README states them)
expected = {
    "RICC-2010-2.swf.gz": 447794,
    "KTH-SP2-1996-2.1-cln.swf.gz": 27992,
    "CEA-Curie-2011-2.1-cln.swf.gz": 312826,
}
missing = [f for f in expected if not os.path.exists(os.path.join(traces, f))]
if missing:
    print(f"SKIPPED: traces not found under {traces} ({', '.join(missing)}); set TRACEWARP_DATA")
    sys.exit(77)

failures = 0
for name, records in expected.items():
    out = subprocess.run([tracewarp, "inspect", "--json", os.path.join(traces, name)], capture_output=True, text=True)
    if out.returncode != 0:
        print(f"FAIL {name}: exit {out.returncode}: {out.stderr.strip()}")
        failures += 1
        continue
    s = json.loads(out.stdout)
    ok = (s["records"] == records and s["jobs"] + s["dropped_total"] == s["records"] and s["span_s"] > 0
          and s["max_nodes"] > 0)
    print(f"{'ok  ' if ok else 'FAIL'} {name}: records {s['records']} (README {records}), jobs {s['jobs']}, "
          f"dropped {s['dropped']}, span {s['span_s'] / 86400:.1f} days, read in {s['read_s']:.2f} s")
    failures += 0 if ok else 1
# RICC: the WRSA study's machine, derived from the header
ricc = json.loads(subprocess.run([tracewarp, "inspect", "--json", os.path.join(traces, "RICC-2010-2.swf.gz")],
                                 capture_output=True, text=True).stdout)
if not (ricc["cores_per_node"] == 8 and ricc["max_nodes"] == 1024 and ricc["largest_job_nodes"] <= 1024):
    print(f"FAIL RICC machine: cores/node {ricc['cores_per_node']}, nodes {ricc['max_nodes']}")
    failures += 1
print(f"{len(expected) + 1 - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
