# shellcheck shell=bash
# The one way the sbatch scripts here start `tracewarp run` (sourced; paths from the submit
# directory). Ranks start with LAUNCH (default "srun --mpi=pmix"). The job keeps going across
# allocations by itself:
#   - Slurm's warning before the time limit (the scripts' `#SBATCH --signal=B:USR1@300`) reaches
#     this shell, which passes SIGUSR1 to the launcher and so to every rank: each run in progress
#     saves a checkpoint and tracewarp exits with code 3, finished runs kept in OUT.journal/;
#   - the job then requeues itself (`#SBATCH --requeue`), and in the next allocation
#     (SLURM_RESTART_COUNT > 0) the same command runs with --resume, so its results file ends
#     identical to an uninterrupted run's.
#   tracewarp_run CONFIG OUT [more `tracewarp run` arguments]
# Slurm may send its warning up to a minute before the time asked for (sbatch(1), --signal), so
# early in a short allocation, even as it starts: a warning that comes before tracewarp_run is
# kept, and one that comes as the ranks start waits until they take it (pass_warning).
warned=0
launcher=""
launched_at=0
passer=""
trap 'warned=1' USR1

# The ranks take SIGUSR1 from their first instants, but the launcher passes a signal on at once,
# and one that reaches a rank still starting (not yet running tracewarp) kills it. So a warning
# reaches the launcher no sooner than 10 s after its start.
pass_warning() {
  [ -n "$launcher" ] || return 0
  local delay=$((launched_at + 10 - SECONDS))
  if [ "$delay" -gt 0 ]; then
    (sleep "$delay" && kill -USR1 "$launcher" 2>/dev/null) &
    passer=$!
  else
    kill -USR1 "$launcher" 2>/dev/null
  fi
}

tracewarp_run() {
  local config="$1" out="$2"
  shift 2
  local resume=()
  if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then resume=(--resume); fi
  local rc=0
  echo "tracewarp-run: $(date +%T) allocation $((${SLURM_RESTART_COUNT:-0} + 1)) of job ${SLURM_JOB_ID:-(none)}" \
    "on ${SLURM_JOB_NODELIST:-this machine}${resume[*]:+, resuming}"
  # The trap first: a warning that comes before the launcher runs is passed on once it does.
  launcher=""
  trap 'echo "tracewarp-run: $(date +%T) SIGUSR1 (time limit near): saving and stopping"; warned=1
        pass_warning' USR1
  # shellcheck disable=SC2086  # LAUNCH holds a command and its options
  ${LAUNCH:-srun --mpi=pmix} "${TRACEWARP:-build/tracewarp}" run "$config" -o "$out" "${resume[@]}" "$@" &
  launcher=$! launched_at=$SECONDS
  if [ "$warned" -eq 1 ]; then pass_warning; fi
  # A trap interrupts `wait` while the launcher runs on; its status is read once it has ended.
  while kill -0 "$launcher" 2>/dev/null; do wait "$launcher" || true; done
  wait "$launcher" || rc=$?
  trap - USR1
  if [ -n "$passer" ]; then kill "$passer" 2>/dev/null; fi  # a launcher ended within its 10 s
  if [ "$rc" -eq 3 ] && [ -n "${SLURM_JOB_ID:-}" ]; then
    echo "tracewarp-run: $(date +%T) stopped at a checkpoint; requeueing job $SLURM_JOB_ID to go on with --resume"
    scontrol requeue "$SLURM_JOB_ID"
    exit 0
  fi
  return "$rc"
}

# Whether the figures are drawn in this job (FIGURES=0: later, on a login node, with
# slurm-scripts/batch-plots.sh or the study's plot.py).
figures_wanted() { [ "${FIGURES:-1}" != 0 ]; }
