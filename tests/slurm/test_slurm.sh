#!/usr/bin/env bash
# The sbatch scripts on a real Slurm: a private single-node cluster (munged, slurmctld, slurmd
# from Debian's packages, installed by scripts/install-deps.sh --slurm) is started for this test
# alone, every script in slurm-scripts/ is submitted with small sizes, and each job must end
# COMPLETED with exit 0:0, its results and figures must exist, and its results must hold the
# same model data as the same `tracewarp run` outside Slurm. Only the daemons this test started
# are stopped, by PID.
#   tests/slurm/test_slurm.sh TRACEWARP PYTHON SRC
# Exit 77 (ctest: skipped) when the packages cannot be installed or the test is not root (the
# daemons run as SlurmUser=root so that no account has to be created).
set -uo pipefail
tw=$(realpath "$1"); python="$2"; src=$(realpath "$3")
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
failures=0

[ "$(id -u)" -eq 0 ] || skip "needs root to run private Slurm daemons as SlurmUser=root"
bash "$src/scripts/install-deps.sh" --slurm >/dev/null 2>&1 ||
  skip "Debian's slurmctld, slurmd, slurm-client and munge could not be installed"
for tool in munged slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$tool" >/dev/null || skip "$tool not found after installing the packages"
done

work=$(mktemp -d /tmp/tracewarp-slurm.XXXXXX)
chmod 755 "$work"
pids=()
stop_daemons() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  if [ "$failures" -eq 0 ]; then rm -rf "$work"; else echo "kept $work for inspection"; fi
}
trap stop_daemons EXIT

# A free port pair, so that a site's own Slurm on the default ports is never touched.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=$((20000 + $$ % 20000))
while ! port_free "$port" || ! port_free $((port + 1)); do port=$((port + 2)); done

host=$(hostname -s)
cpus=$(nproc)
memory_mib=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10))
mkdir -p "$work/state" "$work/spool/$host" "$work/munge"

# munged with its own key and socket: a munged already running on this host is left alone.
dd if=/dev/urandom of="$work/munge/key" bs=128 count=1 status=none
chmod 600 "$work/munge/key"
munged --foreground --force --key-file="$work/munge/key" --socket="$work/munge/socket" \
  --pid-file="$work/munge/pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed" \
  >"$work/munged.out" 2>&1 &
pids+=($!)

export SLURM_CONF="$work/slurm.conf"
# cgroup plugins fail in containers ("cgroup namespace 'freezer' not mounted") while srun still
# exits 0, so the cluster uses linuxproc and task/none, and this test checks outputs, not codes.
cat >"$SLURM_CONF" <<EOF
ClusterName=tracewarp-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
NodeName=$host CPUs=$cpus RealMemory=$memory_mib State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

started=$(date +%s%N)
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
ready=no
for _ in $(seq 100); do
  if scontrol ping 2>/dev/null | grep -q UP &&
    [ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ]; then ready=yes; break; fi
  sleep 0.2
done
if [ "$ready" != yes ]; then
  fail "the private cluster did not come up"
  tail -5 "$work"/*.out "$work/munge/log" 2>/dev/null
  exit 1
fi
echo "cluster up in $((($(date +%s%N) - started) / 1000000)) ms on ports $port/$((port + 1))"

# Submits a script from the repository root (as users do) and waits for it; prints the job id.
submit_and_wait() {
  local name="$1"; shift
  local id state exit_code
  id=$(cd "$src" && sbatch --parsable --output="$work/$name-%j.out" "$@") || {
    fail "$name: sbatch refused the script"; return 1; }
  for _ in $(seq 1500); do
    state=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    case "$state" in PENDING | RUNNING | CONFIGURING | COMPLETING | "") sleep 0.2 ;; *) break ;; esac
  done
  exit_code=$(scontrol show job "$id" | sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p')
  if [ "$state" != COMPLETED ] || [ "$exit_code" != 0:0 ]; then
    fail "$name: job $id ended $state with exit $exit_code"
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
