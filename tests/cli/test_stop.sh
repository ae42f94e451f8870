#!/usr/bin/env bash
# A stop asked for with SIGUSR1 (what Slurm sends before a time limit, engine/stop_request.hpp):
# every run in progress saves at a checkpoint, tracewarp exits with code 3, `report` says what is
# kept, and `run --resume` ends with the model data of an uninterrupted run — one sequential
# run, one optimistic run on 2 ranks, and a sweep of sequential runs on 2 ranks (one run each).
#   tests/cli/test_stop.sh TRACEWARP MPIRUN PYTHON
set -u
tw="$1"; mpirun="$2"; python="$3"
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null; rm -rf "$work"' EXIT
# shellcheck source=checks.sh
source "$(dirname "$0")/checks.sh"
printf '[experiment]\nmodel = "phold"\n[phold]\nlps = 4096\nend = 1000.0\n' >"$work/one.toml"
printf '[experiment]\nmodel = "phold"\n[engine]\nsync = "optimistic"\n[phold]\nlps = 4096\nend = 1000.0\n' >"$work/optimistic.toml"
printf '[experiment]\nmodel = "phold"\nreplications = 4\n[phold]\nlps = 4096\nend = 400.0\n' >"$work/sweep.toml"

# stopped_and_resumed NAME CONFIG LAUNCH...: the uninterrupted run; the same stopped by SIGUSR1
# once its journal exists, then resumed.
stopped_and_resumed() {
  local name="$1" config="$2"
  shift 2
  "$@" "$tw" run "$config" -q -o "$work/$name-whole.h5" || { fail "$name: uninterrupted run"; return; }
  "$@" "$tw" run "$config" -q -o "$work/$name.h5" >"$work/$name.log" 2>&1 &
  local pid=$!
  for _ in $(seq 400); do [ -d "$work/$name.h5.journal" ] && break; sleep 0.01; done
  sleep 0.3
  kill -USR1 "$pid"
  local code=0
  wait "$pid" || code=$?
  if [ "$code" -eq 3 ] && grep -q "stopped on request" "$work/$name.log" && [ ! -e "$work/$name.h5" ] &&
    ls -d "$work/$name.h5.journal"/run-*.checkpoint >/dev/null 2>&1; then
    pass "$name: SIGUSR1 stops at a checkpoint, exit 3"
  else
    fail "$name: SIGUSR1 (exit $code)"; tail -3 "$work/$name.log"; return
  fi
  expect "$name: report on the stopped file says what continues" 1 "continue from their checkpoints" -- \
    "$tw" report "$work/$name.h5.partial"
  "$@" "$tw" run "$config" -q -o "$work/$name.h5" --resume || { fail "$name: resumed run"; return; }
  if "$python" "$src/tests/python/compare_results.py" "$work/$name-whole.h5" "$work/$name.h5" >/dev/null; then
    pass "$name: resumed, the model data of the uninterrupted run"
  else fail "$name: resumed results differ"; fi
}

# Slurm may send its warning as a job starts (up to a minute early, sbatch(1)): the job script's
# tracewarp_run (slurm-scripts/tracewarp-run.sh) must pass it on without killing a rank that is
# still starting. Here the warning reaches the script's shell as the launcher starts 2 ranks.
warned_as_it_starts() {
  printf '[experiment]\nmodel = "phold"\n[phold]\nlps = 4096\nend = 4000.0\n' >"$work/early.toml"
  (
    cd "$src" && export TRACEWARP="$tw" LAUNCH="$mpirun -np 2 --oversubscribe" && unset SLURM_JOB_ID &&
      source slurm-scripts/tracewarp-run.sh && tracewarp_run "$work/early.toml" "$work/early.h5" -q
  ) >"$work/early.log" 2>&1 &
  local pid=$!
  sleep 0.2
  kill -USR1 "$pid"
  local code=0
  wait "$pid" || code=$?
  if [ "$code" -eq 3 ] && grep -q "stopped on request" "$work/early.log" &&
    ls -d "$work/early.h5.journal"/run-*.checkpoint >/dev/null 2>&1; then
    pass "tracewarp-run.sh: a warning as the ranks start stops them at a checkpoint, exit 3"
  else
    fail "tracewarp-run.sh: a warning as the ranks start (exit $code)"; tail -5 "$work/early.log"
  fi
}

warned_as_it_starts
stopped_and_resumed sequential "$work/one.toml" env
stopped_and_resumed optimistic "$work/optimistic.toml" "$mpirun" -np 2 --oversubscribe
stopped_and_resumed sweep "$work/sweep.toml" "$mpirun" -np 2 --oversubscribe
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
