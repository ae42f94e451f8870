#!/usr/bin/env python3
"""A seeded campaign of damaged journals: a sweep is killed (kill -9) with finished runs in its
journal and a run checkpointed mid-way; then, case after case, one of the journal's files (a run
record, the identity, a checkpoint's rank file, `latest`) gets random bits flipped or is cut short,
and `tracewarp run --resume` goes on from it. No case may end with exit 0 and results that differ
from the uninterrupted sweep's, crash, hang, or say "internal error"; a damaged record must be
dropped (its run runs again) or the resume refused with a clear message (exit 1 or 2).

  damage_campaign.py --tw TRACEWARP --src SRC [--cases N] [--seed S]
"""
import argparse
import collections
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--tw", required=True)
ap.add_argument("--src", required=True)
ap.add_argument("--cases", type=int, default=100)
ap.add_argument("--seed", type=int, default=1)
opts = ap.parse_args()

# On a memory file system where there is one: each case writes checkpoints every 5 ms, each made
# durable with fsync, which on a busy disk costs more than the runs.
work = tempfile.mkdtemp(prefix="tracewarp-damage-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
sweep = os.path.join(opts.src, "experiments/phold/sweep.toml")
# 10 runs of about 0.15 s, each checkpointed every 5 ms (the identity includes these keys, so the
# uninterrupted sweep uses them too).
args = ["--set", "phold.end=200", "--set", "experiment.replications=5", "--set", "engine.checkpoint_every_s=0.005"]
sys.path.insert(0, os.path.join(opts.src, "tests/python"))
from compare_results import differences  # noqa: E402


def run(output, *extra, timeout=120):
    return subprocess.run([opts.tw, "run", sweep, *args, "-q", "-o", output, *extra], capture_output=True, text=True,
                          timeout=timeout)


def killed_template():
    """A journal with at least 7 finished runs and a checkpointed run in progress."""
    out = os.path.join(work, "cut.h5")
    journal = out + ".journal"
    for _ in range(5):
        shutil.rmtree(journal, ignore_errors=True)
        p = subprocess.Popen([opts.tw, "run", sweep, *args, "-q", "-o", out], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline and p.poll() is None:
            names = os.listdir(journal) if os.path.isdir(journal) else []
            done = sum(n.endswith(".out") for n in names)
            checkpointed = any(os.path.exists(os.path.join(journal, n, "latest")) for n in names
                               if n.endswith(".checkpoint"))
            if done >= 7 and checkpointed:
                p.send_signal(signal.SIGKILL)
                p.wait()
                return journal
            time.sleep(0.005)
        p.kill()
        p.wait()
    sys.exit("could not stop the sweep with a checkpoint in progress")


whole = os.path.join(work, "whole.h5")
r = run(whole)
if r.returncode != 0:
    sys.exit("uninterrupted sweep failed: " + r.stderr)
template = killed_template()
files = sorted(os.path.relpath(os.path.join(d, f), template) for d, _, fs in os.walk(template) for f in fs)
rng = random.Random(opts.seed)
outcomes = collections.Counter()
bad = []
refusals = collections.Counter()
for case in range(opts.cases):
    case_dir = os.path.join(work, "case")
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(case_dir)
    out = os.path.join(case_dir, "cut.h5")
    shutil.copytree(template, out + ".journal")
    target = rng.choice(files)
    path = os.path.join(out + ".journal", target)
    data = bytearray(open(path, "rb").read())
    kind = rng.choice(["bit", "bit", "bits", "byte", "truncate"])
    if kind == "truncate" or not data:
        cut = rng.randrange(len(data)) if data else 0
        data = data[:cut]
        what = f"{target} cut to {cut} of {len(data)} bytes"
    else:
        flips = 1 if kind == "bit" else rng.randint(2, 16)
        for _ in range(flips):
            at = rng.randrange(len(data))
            data[at] ^= (1 << rng.randrange(8)) if kind != "byte" else rng.randrange(1, 256)
        what = f"{target}: {flips} {'bit' if kind != 'byte' else 'byte'}(s) changed"
    open(path, "wb").write(bytes(data))
    try:
        r = run(out, "--resume")
    except subprocess.TimeoutExpired:
        outcomes["hang"] += 1
        bad.append(f"case {case}: {what}: no end in 120 s")
        continue
    message = (r.stderr.strip().splitlines() or [""])[-1]
    if r.returncode == 0:
        same = not differences(whole, out)
        outcomes["resumed, identical" if same else "SILENTLY WRONG"] += 1
        if not same:
            bad.append(f"case {case}: {what}: exit 0 with results that differ")
    elif r.returncode < 0 or r.returncode > 2:
        outcomes["crash"] += 1
        bad.append(f"case {case}: {what}: exit {r.returncode}: {message}")
    elif "internal error" in r.stderr:
        outcomes["internal error"] += 1
        bad.append(f"case {case}: {what}: {message}")
    else:
        outcomes[f"refused (exit {r.returncode})"] += 1
        refusals[message[:150]] += 1
print(f"damage campaign, seed {opts.seed}: {opts.cases} cases over {len(files)} files of the killed sweep's journal")
for name, n in sorted(outcomes.items()):
    print(f"  {name:24s} {n}")
for message, n in refusals.most_common(8):
    print(f"    {n} x {message}")
for line in bad[:20]:
    print("FAIL", line)
shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if bad else 0)
