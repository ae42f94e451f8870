#!/usr/bin/env python3
"""Writes a tracewarp partition file (format: partitions/README.md) with contiguous ranges of
roughly equal total weight per rank."""
import argparse
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lps", type=int, required=True, help="total LPs of the model")
    ap.add_argument("--ranks", type=int, required=True, help="ranks of the run")
    ap.add_argument("--weights", help="file with one weight per LP (default: all 1)")
    args = ap.parse_args()
    if args.lps < 1 or args.ranks < 1:
        ap.error("--lps and --ranks must be positive")
    weights = [1.0] * args.lps
    if args.weights:
        with open(args.weights) as f:
            weights = [float(line) for line in f if line.strip()]
        if len(weights) != args.lps or min(weights) < 0:
            ap.error(f"{args.weights}: need {args.lps} non-negative weights, one per line")
    total = sum(weights) or 1.0
    out = sys.stdout
    out.write(f"# tracewarp partition v1 (make_partition.py)\nlps {args.lps}\nranks {args.ranks}\n")
    first, acc, rank = 0, 0.0, 0
    for lp, w in enumerate(weights):
        acc += w
        lps_left = args.lps - lp - 1
        ranks_left = args.ranks - rank - 1
        # close this rank's range at its share of the weight, but leave an LP for every later rank
        if rank < args.ranks - 1 and (acc >= total * (rank + 1) / args.ranks or lps_left == ranks_left):
            out.write(f"{first} {lp} {rank}\n")
            first, rank = lp + 1, rank + 1
    if first < args.lps:
        out.write(f"{first} {args.lps - 1} {rank}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
