#!/usr/bin/env python3
"""Strong scaling of the engine (docs/performance.md#scaling-on-16-cores): PHOLD and the replication model at
several rank counts, sequential as the reference, each configuration REPS times; prints Markdown
tables with the median, the spread, the speed-up over sequential, the parallel efficiency
(speed-up / ranks), the rollback ratio, GVT rounds or windows, and peak memory. Every run of a
configuration must give the same checksum (PHOLD) or the same committed-event count
(replication) as the sequential one; the script stops if one does not.

    /usr/bin/python3 bench/scaling.py --ranks 1 2 4 8 16 --reps 3
    /usr/bin/python3 bench/scaling.py --what replication --ranks 1 2 4 --reps 3
    /usr/bin/python3 bench/scaling.py --what replication --ranks 1 8 16 --set engine.window_s=10
    /usr/bin/python3 bench/scaling.py --what phold --remotes 0.1 --modes optimistic

Under Slurm, --launcher 'srun -n {n}'. Where tracewarp runs inside a container or chroot, give
the command that enters it in --launcher and --launcher-seq, the binary's path inside it in
--tw, and where the results files written under --out-dir appear to this script in --read-root.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODES = ["optimistic", "conservative"]


def run(cmd):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = subprocess.run(cmd, check=True, env=env, stdout=subprocess.PIPE, text=True).stdout
    return out


def launch(args, n, tail):
    prefix = args.launcher.format(n=n) if n > 1 else args.launcher_seq
    return shlex.split(prefix) + [args.tw] + tail


def phold_once(args, n, mode, remote):
    tail = ["bench", "phold", "--events-per-lp", "16", "--remote", remote, "--mean", "1.0", "--lookahead", "0.1",
            "--end", str(args.phold_end), "--json"]
    tail += ["--lps", str(args.phold_lps)] if n == 1 else ["--lps-per-rank", str(args.phold_lps // n), "--sync", mode]
    r = json.loads(run(launch(args, n, tail)).strip().splitlines()[-1])
    return {"wall_s": r["wall_s"], "committed": r["committed"], "rolled_back": r["rolled_back"],
            "rounds": r["gvt_rounds"], "peak_mib": r["peak_rss_bytes"] / 2**20, "identity": r["checksum"]}


def replication_once(args, n, mode):
    sys.path.insert(0, HERE)
    from replication import read_run  # needs h5py: only this part does

    name = f"scaling-replication-{n}-{mode}.h5"
    tail = ["run", "-q", args.replication_config, "-o", os.path.join(args.out_dir, name)]
    if n > 1:
        tail += ["--set", f"engine.sync={mode}"]
    for assignment in args.set:
        tail += ["--set", assignment]
    run(launch(args, n, tail))
    path = os.path.join(args.read_root + args.out_dir if args.read_root else args.out_dir, name)
    result = read_run(path)
    os.remove(path)
    result["identity"] = result["committed"]
    return result


def table(title, once, ranks, reps, modes):
    print(f"\n{title}\n")
    print(f"| ranks | mode | wall s, median of {reps} (min-max) | committed events/s | speed-up | parallel efficiency | "
          "rolled back / committed | GVT rounds or windows (max rank) | peak RSS (max rank) |")
    print("|---|---|---|---|---|---|---|---|---|")
    reference = None
    configs = [(n, mode) for n in ranks for mode in (["sequential"] if n == 1 else modes)]
    for n, mode in configs:
        runs = [once(n, mode) for _ in range(reps)]
        if reference is None:
            reference = runs[0]["identity"]
        if any(r["identity"] != reference for r in runs):
            sys.exit(f"scaling.py: {n} ranks, {mode}: results differ from the first configuration's")
        walls = sorted(r["wall_s"] for r in runs)
        med = statistics.median(walls)
        if n == 1:
            base = med
        r = runs[0]
        speedup = base / med
        print(f"| {n} | {mode} | {med:.3f} ({walls[0]:.3f}-{walls[-1]:.3f}) | {r['committed'] / med / 1e6:.2f} M | {speedup:.2f}x | {speedup / n:.2f} | "
              f"{statistics.median(x['rolled_back'] for x in runs) / r['committed']:.4f} | {r['rounds']:,} | "
              f"{max(x['peak_mib'] for x in runs):.0f} MiB |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--what", choices=["phold", "replication", "both"], default="both")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tw", default=os.path.join(ROOT, "build", "tracewarp"))
    ap.add_argument("--launcher", default="mpirun -np {n} --bind-to core", help="command before TW for n > 1 ranks")
    ap.add_argument("--launcher-seq", default="", help="command before TW for sequential runs")
    ap.add_argument("--modes", nargs="+", choices=MODES, default=MODES, help="parallel modes to run beside sequential")
    ap.add_argument("--remotes", nargs="+", default=["0.1", "1.0"], help="PHOLD remote probabilities, one table each")
    ap.add_argument("--phold-lps", type=int, default=16384)
    ap.add_argument("--phold-end", type=float, default=100)
    ap.add_argument("--replication-config", default=os.path.join(ROOT, "experiments", "replication", "scale.toml"))
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a configuration override for the replication runs (repeatable)")
    ap.add_argument("--out-dir", default="/tmp", help="where tracewarp writes the replication results files")
    ap.add_argument("--read-root", default="", help="prefix under which this script sees --out-dir")
    args = ap.parse_args()
    args.ranks = sorted(set(args.ranks) | {1})  # sequential is the reference
    if args.what in ("phold", "both"):
        for remote in args.remotes:
            table(f"PHOLD, {args.phold_lps:,} LPs, 16 events/LP, end {args.phold_end:g}, remote {remote}",
                  lambda n, mode: phold_once(args, n, mode, remote), args.ranks, args.reps, args.modes)
    if args.what in ("replication", "both"):
        table(f"Replication, {os.path.basename(args.replication_config)}" + "".join(f", {a}" for a in args.set),
              lambda n, mode: replication_once(args, n, mode), args.ranks, args.reps, args.modes)


if __name__ == "__main__":
    main()
