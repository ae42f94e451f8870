#!/usr/bin/env bash
# A sweep killed with kill -9 (every rank, mid-sweep) and resumed: the finished runs are kept,
# only the rest run (on another rank count too), and the file equals an uninterrupted sweep's;
# report lists what an interrupted file holds; a changed configuration cannot resume.
#   tests/cli/test_resume.sh TRACEWARP MPIRUN PYTHON SRC
set -u
tw="$1"; mpirun="$2"; python="$3"; src="$4"
work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null; rm -rf "$work"' EXIT
failures=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
sweep="$src/experiments/phold/sweep.toml"
args=(--set phold.end=500 --set experiment.replications=5)  # 10 runs of about 0.3 s each

"$mpirun" -np 2 --oversubscribe "$tw" run "$sweep" "${args[@]}" -q -o "$work/whole.h5" || fail "uninterrupted sweep"

# Two groups of one rank, so that runs also reach rank 0 over MPI; killed once 3 are recorded.
"$mpirun" -np 2 --oversubscribe "$tw" run "$sweep" "${args[@]}" --ranks-per-run 1 -q -o "$work/cut.h5" \
  >"$work/cut.log" 2>&1 &
for _ in $(seq 600); do
  [ "$(ls "$work/cut.h5.journal" 2>/dev/null | grep -cE '^run-[0-9]+[.]out$')" -ge 3 ] && break
  sleep 0.05
done
pkill -9 -f "$work/cut.h5"
wait 2>/dev/null
kept=$(ls "$work/cut.h5.journal" 2>/dev/null | grep -cE '^run-[0-9]+[.]out$')
if [ "$kept" -ge 3 ] && [ "$kept" -lt 10 ] && [ ! -e "$work/cut.h5" ]; then pass "killed after $kept of 10 runs"
else fail "kill mid-sweep (kept $kept, final file present: $([ -e "$work/cut.h5" ] && echo yes || echo no))"; fi

out=$("$tw" report "$work/cut.h5" 2>&1); code=$?
if [ "$code" -ne 0 ] && grep -q -- "--resume" <<<"$out" && grep -q "finished runs are kept" <<<"$out"; then
  pass "report on the interrupted file lists what is finished and how to go on"
else fail "report on the interrupted file (exit $code)"; echo "$out" | tail -3; fi

out=$("$tw" run "$sweep" "${args[@]}" -q -o "$work/cut.h5" 2>&1); code=$?
if [ "$code" -eq 2 ] && grep -q "add --resume" <<<"$out"; then pass "without --resume the journal is kept, exit 2"
else fail "without --resume (exit $code)"; echo "$out" | tail -3; fi

out=$("$tw" run "$sweep" "${args[@]}" --set phold.lps=128 --resume -q -o "$work/cut.h5" 2>&1); code=$?
if [ "$code" -eq 2 ] && grep -q "phold.lps: was 256, now 128" <<<"$out"; then pass "a changed configuration is refused, naming the change"
else fail "changed configuration (exit $code)"; echo "$out" | tail -3; fi

out=$("$mpirun" -np 3 --oversubscribe "$tw" run "$sweep" "${args[@]}" --ranks-per-run 1 --resume -o "$work/cut.h5" 2>&1)
code=$?
if [ "$code" -eq 0 ] && grep -q "resuming: $kept of 10 runs kept" <<<"$out"; then pass "resumed on 3 ranks, keeping $kept runs"
else fail "resume (exit $code)"; echo "$out" | tail -5; fi
if "$python" "$src/tests/python/compare_results.py" "$work/whole.h5" "$work/cut.h5" >"$work/cmp" 2>&1; then
  pass "resumed file holds the same model data as the uninterrupted sweep"
else fail "resumed file differs"; cat "$work/cmp"; fi
[ ! -e "$work/cut.h5.journal" ] && [ ! -e "$work/cut.h5.partial" ] && pass "journal and partial file removed when complete" ||
  fail "journal or partial left behind"

# On a terminal (script(1) gives one), a sweep shows runs done and its ETA; with -q, nothing.
if command -v script >/dev/null; then
  shown=$(script -qec "'$tw' run '$sweep' -o '$work/tty.h5' --set phold.end=100" /dev/null | tr '\r' '\n')
  quiet=$(script -qec "'$tw' run '$sweep' -q -o '$work/tty.h5' --force --set phold.end=100" /dev/null)
  if grep -aq "4/4 runs done" <<<"$shown" && grep -aq "runs done, sweep ETA" <<<"$shown" && [ -z "$quiet" ]; then
    pass "sweep progress on a terminal: runs done and ETA; nothing with -q"
  else fail "sweep progress"; echo "$shown" | tail -3; fi
fi

echo "resume: $failures failure(s)"
[ "$failures" -eq 0 ]
