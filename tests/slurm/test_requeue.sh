#!/usr/bin/env bash
# A Slurm job that reaches its time limit goes on in the next allocation by itself, on a real
# Slurm (private_cluster.sh): batch-study.sbatch submitted with a 2-minute limit and the warning
# 30 s before it (`--signal=B:USR1@30`) runs a PHOLD run sized to need about 160 s on this
# machine. Slurm sends the warning up to a minute early (sbatch(1)), so 30-90 s into each
# allocation: the first cannot finish the run, and each makes progress. The warning makes the run
# save a checkpoint and stop (exit 3); the job requeues itself and resumes, until the run ends. The job must end COMPLETED after at least one restart, and its
# results must hold the same model data as the same run uninterrupted.
#   tests/slurm/test_requeue.sh TRACEWARP PYTHON SRC
# Exit 77 (ctest: skipped) when the packages cannot be installed or the test is not root.
set -uo pipefail
tw=$(realpath "$1"); python="$2"; src=$(realpath "$3")
# shellcheck source=private_cluster.sh
source "$src/tests/slurm/private_cluster.sh"
start_cluster

# The run's length: PHOLD's time grows with its end time; measured here on two short runs (end
# 100 and 400). The run must outlast the latest warning (90 s into the allocation) however busy
# the machine was while it was measured: a run sized to 110 s from one probe ended in 69 s, and
# one sized to 150 s from the two probes' difference (slowed by a neighbouring test) in 83 s. So
# the time per unit is the smaller of the two probes' estimates (the short one's includes the
# fixed cost of a run, the difference cancels it), and the run is sized to about 160 s at it.
probe_ms() {
  printf '[experiment]\nmodel = "phold"\n[phold]\nlps = 4096\nend = %s\n' "$1" >"$work/probe.toml"
  local start; start=$(date +%s%N)
  "$tw" run "$work/probe.toml" -q --force -o "$work/probe.h5" || { fail "the probe run"; exit 1; }
  echo $((($(date +%s%N) - start) / 1000000))
}
short_ms=$(probe_ms 100.0); long_ms=$(probe_ms 400.0)
per_300=$((long_ms > short_ms ? long_ms - short_ms : 1))
[ $((3 * short_ms)) -lt "$per_300" ] && per_300=$((3 * short_ms))
end=$((300 * 160000 / per_300))
printf '[experiment]\nmodel = "phold"\n[phold]\nlps = 4096\nend = %s.0\n' "$end" >"$work/long.toml"
echo "probe: end 100 in $short_ms ms, 400 in $long_ms ms; the job's run: end $end (about 160 s)"

# The reference, uninterrupted, beside the job (results do not depend on timing).
"$tw" run "$work/long.toml" -q -o "$work/plain.h5" &
plain=$!

export TRACEWARP="$tw" PYTHON="$python" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
id=$(cd "$src" && STUDY="$work/long.toml" OUT="$work/long.h5" FIGURES=0 \
  sbatch --parsable --ntasks=1 --time=2 --signal=B:USR1@30 --output="$work/job-%j.out" \
  slurm-scripts/batch-study.sbatch) || { fail "sbatch refused the script"; exit 1; }
# Slurm holds a requeued batch job for about two minutes (its BeginTime) before it may start
# again; the test lets it start 5 s after the requeue, as a site's queue would after its delay.
# (At once is too soon: the previous allocation's credential is still being revoked, and Slurm
# kills the new start as "non-startable".)
state="" released=""
for _ in $(seq 2400); do  # up to 8 minutes
  state=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  case "$state" in
    COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) break ;;
    PENDING)  # once per requeue: each update would move the start 5 s on again
      held=$(scontrol show job "$id")
      restarts=$(sed -n 's/.*Restarts=\([0-9]*\).*/\1/p' <<<"$held")
      if [ "$restarts" != "$released" ] && grep -q "Reason=BeginTime" <<<"$held"; then
        scontrol update JobId="$id" StartTime=now+5 && released=$restarts
      fi
      ;;
  esac
  sleep 0.2
done
restarts=$(scontrol show job "$id" | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
exit_code=$(scontrol show job "$id" | sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p')
if [ "$state" = COMPLETED ] && [ "$exit_code" = 0:0 ] && [ "${restarts:-0}" -ge 1 ]; then
  echo "ok   requeue: job $id COMPLETED after $restarts restart(s) at its time limit"
else
  fail "requeue: job $id ended '$state' (exit $exit_code) after ${restarts:-0} restart(s)"
  cat "$work"/job-*.out
fi
grep -q "requeueing job $id" "$work"/job-*.out || fail "requeue: the job's output does not say it requeued"
grep "tracewarp-run:" "$work"/job-*.out
wait "$plain" || fail "the uninterrupted run"
if [ ! -f "$work/long.h5" ]; then
  fail "requeue: the job wrote no results file"
elif "$python" "$src/tests/python/compare_results.py" "$work/plain.h5" "$work/long.h5" >"$work/cmp" 2>&1; then
  echo "ok   requeue: results identical to the uninterrupted run"
else
  fail "requeue: results differ from the uninterrupted run"; head -5 "$work/cmp"
fi
echo "slurm.requeue: $failures failure(s)"
[ "$failures" -eq 0 ]
