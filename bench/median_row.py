#!/usr/bin/env python3
"""Reads JSON lines of `tracewarp bench phold --json` runs from stdin and prints one Markdown
table row for the run with the median committed-event rate (with the min and max rates)."""
import json
import sys

runs = sorted((json.loads(line) for line in sys.stdin if line.startswith("{")), key=lambda r: r["events_per_s"])
if not runs:
    sys.exit("median_row.py: no runs")
m = runs[len(runs) // 2]
rates = [r["events_per_s"] / 1e6 for r in runs]
print(f"| {sys.argv[1]} | {m['committed']:,} | {m['events_per_s'] / 1e6:.2f} M/s "
      f"(min {min(rates):.2f}, max {max(rates):.2f}) | {m['rolled_back']:,} | {m['efficiency']:.4f} "
      f"| {m['peak_rss_bytes'] / 2**20:.1f} MiB | {m['checksum']} |")
