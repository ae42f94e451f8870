#!/usr/bin/env bash
# The sbatch scripts on a real Slurm: a private cluster of two nodes on this host (private_cluster.sh: munged,
# slurmctld, a slurmd per node from Debian's packages, installed by scripts/install-deps.sh --slurm) is
# started for this test alone, every script in slurm-scripts/ is submitted with small sizes,
# and each job must end COMPLETED with exit 0:0, its results and figures must exist, and its
# results must hold the same model data as the same `tracewarp run` outside Slurm. Only the
# daemons this test started are stopped, by PID.
#   tests/slurm/test_slurm.sh TRACEWARP PYTHON SRC
# Exit 77 (ctest: skipped) when the packages cannot be installed or the test is not root.
set -uo pipefail
tw=$(realpath "$1"); python="$2"; src=$(realpath "$3")
# shellcheck source=private_cluster.sh
source "$src/tests/slurm/private_cluster.sh"
start_cluster two-nodes

# Submits a script from the repository root (as users do) and waits for it; prints the job id.
submit_and_wait() {
  local name="$1"; shift
  local id state exit_code
  id=$(cd "$src" && sbatch --parsable --output="$work/$name-%j.out" "$@") || {
    fail "$name: sbatch refused the script"; return 1; }
  for _ in $(seq 600); do
    state=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    case "$state" in PENDING | RUNNING | CONFIGURING | COMPLETING | "") sleep 0.2 ;; *) break ;; esac
  done
  exit_code=$(scontrol show job "$id" | sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p')
  if [ "$state" != COMPLETED ] || [ "$exit_code" != 0:0 ]; then
    fail "$name: job $id ended $state with exit $exit_code"
    scontrol show job "$id" | grep -E "Reason|NodeList"
    cat "$work/$name-$id.out"
    return 1
  fi
  echo "ok   $name: job $id COMPLETED 0:0"
}

# Results written by a job must equal the same run outside Slurm; figures must exist.
check_results() {
  local name="$1" results="$2" figures="$3"; shift 3
  [ -s "$results" ] || { fail "$name: no results file $results"; return; }
  ls "$figures"/*.png >/dev/null 2>&1 || { fail "$name: no figures in $figures"; return; }
  "$tw" run "$@" -q -o "$work/$name-plain.h5" >/dev/null 2>&1 || {
    fail "$name: the plain run failed"; return; }
  if "$python" "$src/tests/python/compare_results.py" "$work/$name-plain.h5" "$results" \
    >"$work/$name.cmp" 2>&1; then
    echo "ok   $name: results identical to a plain run, $(ls "$figures"/*.png | wc -l) figure(s)"
  else
    fail "$name: results differ from a plain run"; head -5 "$work/$name.cmp"
  fi
}

export TRACEWARP="$tw" PYTHON="$python"
unset OMPI_ALLOW_RUN_AS_ROOT_CONFIRM 2>/dev/null  # exported again below: srun passes the env
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
small_tasks=$((cpus < 2 ? cpus : 2))

kmix="--set kmix.days=1 --set batch.window_from_s=0 --set batch.window_until_s=0 --set experiment.replications=1"
study="experiments/kcomputer-interval/quick.toml"
if OUT="$work/kcomputer.h5" STUDY="$study" EXTRA="$kmix" \
  submit_and_wait batch-study --ntasks="$small_tasks" slurm-scripts/batch-study.sbatch; then
  # shellcheck disable=SC2086
  check_results batch-study "$work/kcomputer.h5" "$work/kcomputer-plots" "$src/$study" $kmix
fi

# A sweep over two nodes, one run per rank on each: the runs land in one file, identical to a
# plain run's.
if OUT="$work/nodes.h5" STUDY="$study" EXTRA="$kmix --set experiment.replications=2" \
  submit_and_wait two-nodes --nodes=2 --ntasks=2 slurm-scripts/batch-study.sbatch; then
  if grep -q "on n\[1-2\]" "$work"/two-nodes-*.out; then echo "ok   two-nodes: the job ran on n[1-2]"
  else fail "two-nodes: the job did not span both nodes"; grep tracewarp-run "$work"/two-nodes-*.out; fi
  # shellcheck disable=SC2086
  check_results two-nodes "$work/nodes.h5" "$work/nodes-plots" "$src/$study" $kmix --set experiment.replications=2
fi

# One's own configuration, with no plot.py beside it: the job completes and keeps its results.
mkdir -p "$work/mine"
cp "$src/experiments/kcomputer-interval/quick.toml" "$work/mine/kcomputer.toml"
if OUT="$work/mine.h5" STUDY="$work/mine/kcomputer.toml" EXTRA="$kmix" \
  submit_and_wait own-study --ntasks="$small_tasks" slurm-scripts/batch-study.sbatch; then
  if [ -s "$work/mine.h5" ] && grep -q "no plot.py beside" "$work"/own-study-*.out; then
    echo "ok   own-study: results kept, no figures asked of a configuration without plot.py"
  else fail "own-study: no results file, or no word about the missing plot.py"; fi
fi

replication="--set replication.hosts=100 --set replication.tasks=500 --set experiment.replications=1"
study="experiments/replication/quick.toml"
if OUT="$work/replication.h5" STUDY="$study" EXTRA="$replication" \
  submit_and_wait replication-study --ntasks="$small_tasks" slurm-scripts/replication-study.sbatch; then
  # shellcheck disable=SC2086
  check_results replication-study "$work/replication.h5" "$work/replication-plots" "$src/$study" $replication
fi

mapreduce="--set mapreduce.workers=10 --set mapreduce.maps=300 --set mapreduce.reduces=40 --set experiment.replications=1"
if OUT_DIR="$work" STUDIES="robustness" EXTRA="$mapreduce" \
  submit_and_wait mapreduce-study --ntasks="$small_tasks" slurm-scripts/mapreduce-study.sbatch; then
  # shellcheck disable=SC2086
  check_results mapreduce-study "$work/mapreduce-robustness.h5" "$work/mapreduce-robustness-plots" \
    "$src/experiments/mapreduce-stragglers/robustness.toml" $mapreduce
fi

if LPS_PER_RANK=64 END=20 RANKS="1 $small_tasks" \
  submit_and_wait phold-scaling --ntasks="$small_tasks" slurm-scripts/phold-scaling.sbatch; then
  lines=$(grep -c '"committed' "$work"/phold-scaling-*.out)
  if [ "$lines" -eq 2 ]; then echo "ok   phold-scaling: 2 JSON lines"; else
    fail "phold-scaling: $lines JSON lines, expected 2"; cat "$work"/phold-scaling-*.out; fi
fi

echo "slurm: $failures failure(s)"
[ "$failures" -eq 0 ]
