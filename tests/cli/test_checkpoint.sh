#!/usr/bin/env bash
# Checkpoint and restart of one run (engine.checkpoint_every_s): runs killed with kill -9 after a
# checkpoint and resumed with --resume end with the model data of an uninterrupted run —
# the RICC log under EASY (sequential, optimistic on 2 ranks), the Alibaba-sized LAS run
# (sequential; optimistic on 2 ranks with 200,000 tasks) and replication in conservative mode on 2 ranks; what a kill
# during a checkpoint leaves (a half-written newer file) does not stop the resume; a damaged newest
# checkpoint is passed over for the one before; damaged checkpoints with none whole before them,
# another rank count and another configuration are refused with exit 2; report on the
# interrupted file says a run continues from its checkpoint.
#   tests/cli/test_checkpoint.sh TRACEWARP MPIRUN PYTHON SRC
set -u
tw="$1"; mpirun="$2"; python="$3"; src="$4"
export TRACEWARP_DATA="${TRACEWARP_DATA:-$src/../shared/data}"
work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null; rm -rf "$work"' EXIT
failures=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
every=(--set engine.checkpoint_every_s=0.2)

# launch NAME RANKS ARGS...: the command line of a run writing $work/NAME.h5.
launch() {
  local name="$1" ranks="$2"
  shift 2
  if [ "$ranks" -eq 1 ]; then echo "$tw" run "$@" -o "$work/$name.h5"
  else echo "$mpirun" -np "$ranks" --oversubscribe "$tw" run "$@" -o "$work/$name.h5"; fi
}

# killed_and_resumed NAME RANKS CONFIG ARGS...: an uninterrupted run; the same with checkpoints,
# killed (every rank, kill -9) once its second checkpoint is in, then resumed; same model data.
killed_and_resumed() {
  local name="$1" ranks="$2"
  shift 2
  $(launch "$name-whole" "$ranks" "$@" -q) || { fail "$name: uninterrupted run"; return; }
  local dir="$work/$name.h5.journal/run-000000.checkpoint"
  $(launch "$name" "$ranks" "$@" "${every[@]}" -q) >"$work/$name.log" 2>&1 &
  for _ in $(seq 1200); do
    grep -qE "generation ([2-9]|[1-9][0-9])" "$dir/latest" 2>/dev/null && break
    sleep 0.025
  done
  pkill -9 -f "$work/$name.h5"
  wait 2>/dev/null
  if [ ! -e "$dir/latest" ] || [ -e "$work/$name.h5" ]; then
    fail "$name: no checkpoint before the kill, or the run had already finished"
    return
  fi
  local at
  at=$(cat "$dir/latest")
  "$tw" report "$work/$name.h5" 2>&1 | grep -q "1 run(s) in progress continue from their checkpoints" ||
    fail "$name: report on the interrupted file does not mention the checkpoint"
  # What a kill while the next checkpoint was being written leaves: a newer, half-written rank
  # file and a temporary file; `latest` still names the whole older generation.
  local generation
  generation=$(awk '{print $2}' "$dir/latest")
  head -c 1000 "$dir"/gen-*.rank-0000 >"$dir/gen-$(printf %06d $((generation + 1))).rank-0000"
  head -c 100 "$dir"/gen-*.rank-0000 >"$dir/latest.tmp.99999"
  local out
  out=$($(launch "$name" "$ranks" "$@" "${every[@]}" --resume) 2>&1) || {
    fail "$name: resume (exit $?)"
    echo "$out" | tail -3
    return
  }
  if grep -q "1 continued from their checkpoints" <<<"$out" &&
    "$python" "$src/tests/python/compare_results.py" "$work/$name-whole.h5" "$work/$name.h5" >"$work/cmp" 2>&1; then
    pass "$name on $ranks rank(s): killed after a checkpoint ($at), resumed, same model data"
  else
    fail "$name: resumed run differs from the uninterrupted one"
    cat "$work/cmp"
    echo "$out" | tail -3
  fi
}

# resumes_as DESCRIPTION SAYS WHOLE NAME RANKS ARGS...: NAME resumed with ARGS ends with exit 0,
# says SAYS (a warning), and holds the model data of the uninterrupted run WHOLE.
resumes_as() {
  local description="$1" says="$2" whole="$3" name="$4" ranks="$5"
  shift 5
  local out code
  out=$($(launch "$name" "$ranks" "$@" --resume -q) 2>&1); code=$?
  if [ "$code" -eq 0 ] && grep -q "$says" <<<"$out" &&
    "$python" "$src/tests/python/compare_results.py" "$work/$whole.h5" "$work/$name.h5" >/dev/null; then
    pass "$description"
  else fail "$description (exit $code)"; echo "$out" | tail -3; fi
}

ricc="$src/experiments/wrsa-backfill/ricc-easy.toml"
if [ -d "$TRACEWARP_DATA/traces" ]; then
  killed_and_resumed ricc-sequential 1 "$ricc"
  killed_and_resumed ricc-optimistic 2 "$ricc" --set engine.sync=optimistic
else
  echo "skip RICC runs: no traces in TRACEWARP_DATA=$TRACEWARP_DATA"
fi
las=("$src/experiments/las-multiresource/alibaba.toml" --set las.scheduler=proposed)
killed_and_resumed las-sequential 1 "${las[@]}"
killed_and_resumed las-optimistic 2 "${las[@]}" --set engine.sync=optimistic --set lasmix.tasks=200000
killed_and_resumed replication-conservative 2 "$src/experiments/replication/quick.toml" \
  --set engine.sync=conservative --set replication.method=proposed --set replication.tasks=300000 \
  --set replication.hosts=4000

# A damaged newest checkpoint (a disk fault, a copy cut short): the run goes on from the one before
# it, says so, and ends with the model data of an uninterrupted run.
dir="$work/damaged.h5.journal/run-000000.checkpoint"
$(launch damaged 1 "${las[@]}" "${every[@]}" -q) >/dev/null 2>&1 &
for _ in $(seq 1200); do grep -qE "generation ([3-9]|[1-9][0-9])" "$dir/latest" 2>/dev/null && break; sleep 0.025; done
pkill -9 -f "$work/damaged.h5"
wait 2>/dev/null
newest=$(printf "$dir/gen-%06d.rank-0000" "$(awk '{print $2}' "$dir/latest" 2>/dev/null || echo 0)")
if [ -e "$newest" ] && [ ! -e "$work/damaged.h5" ]; then
  printf 'XXXX' | dd of="$newest" bs=1 seek=200 conv=notrunc 2>/dev/null
  resumes_as "a damaged newest checkpoint: the run goes on from the one before, same model data" \
    "goes on from the checkpoint of generation" las-sequential-whole damaged 1 "${las[@]}" "${every[@]}"
else fail "damaged newest checkpoint: no third checkpoint before the kill, or the run had already finished"; fi

# Refusals: a checkpoint of a 1-rank run resumed on 2 ranks; another configuration; a damaged one.
opt=("${las[@]}" --set engine.sync=optimistic "${every[@]}")
$(launch refuse 1 "${opt[@]}" -q) >/dev/null 2>&1 &
for _ in $(seq 1200); do [ -e "$work/refuse.h5.journal/run-000000.checkpoint/latest" ] && break; sleep 0.025; done
pkill -9 -f "$work/refuse.h5"
wait 2>/dev/null
out=$($(launch refuse 2 "${opt[@]}" --resume) 2>&1); code=$?
if [ "$code" -eq 2 ] && grep -q "resume it on 1 ranks" <<<"$out"; then pass "another rank count is refused, exit 2"
else fail "another rank count (exit $code)"; echo "$out" | tail -3; fi
out=$($(launch refuse 1 "${opt[@]}" --set las.nodes=128 --resume) 2>&1); code=$?
if [ "$code" -eq 2 ] && grep -q "las.nodes" <<<"$out"; then pass "another configuration is refused, naming the key, exit 2"
else fail "another configuration (exit $code)"; echo "$out" | tail -3; fi
for f in "$work"/refuse.h5.journal/run-000000.checkpoint/gen-*.rank-0000; do
  printf 'XXXX' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
done
out=$($(launch refuse 1 "${opt[@]}" --resume -q) 2>&1); code=$?
if [ "$code" -eq 0 ] && grep -q "damaged" <<<"$out" && grep -q "the run starts again from its beginning" <<<"$out" &&
  "$python" "$src/tests/python/compare_results.py" "$work/las-sequential-whole.h5" "$work/refuse.h5" >/dev/null; then
  pass "checkpoints all damaged: the run starts again from its beginning, with a warning, same model data"
else fail "damaged checkpoints (exit $code)"; echo "$out" | tail -3; fi

# A checkpoint assembled from two generations (rank 1's newest file replaced by its file of the
# generation before) is not trusted in conservative mode either: the run goes on from the
# generation before, whose files are whole, and ends with the uninterrupted run's model data.
rep=("$src/experiments/replication/quick.toml" --set engine.sync=conservative --set replication.method=proposed
  --set replication.tasks=300000 --set replication.hosts=4000)
dir="$work/mixed.h5.journal/run-000000.checkpoint"
$(launch mixed 2 "${rep[@]}" "${every[@]}" -q) >/dev/null 2>&1 &
for _ in $(seq 1200); do grep -qE "generation ([3-9]|[1-9][0-9])" "$dir/latest" 2>/dev/null && break; sleep 0.025; done
pkill -9 -f "$work/mixed.h5"
wait 2>/dev/null
generation=$(awk '{print $2}' "$dir/latest" 2>/dev/null || echo 0)
older=$(printf "$dir/gen-%06d.rank-0001" $((generation - 1)))
if [ -e "$older" ] && [ ! -e "$work/mixed.h5" ]; then
  cp "$older" "$(printf "$dir/gen-%06d.rank-0001" "$generation")"
  resumes_as "a checkpoint of two generations (conservative, 2 ranks): refused for the one before, same model data" \
    "holds generation $((generation - 1))" replication-conservative-whole mixed 2 "${rep[@]}" "${every[@]}"
else fail "two generations: no third checkpoint before the kill, or the run had already finished"; fi

echo "checkpoint: $failures failure(s)"
[ "$failures" -eq 0 ]
