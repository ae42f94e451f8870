#!/usr/bin/env bash
# What survives what (docs/survival.md): two runs writing one output, a full disk, memory limits at
# set-up, bad input found before any file is made, overwrites and re-runs, inputs that are not
# what they claim, and the comparison tool. Each check reproduces a way a run used to lose or fake
# results.
#   tests/cli/test_survival.sh TRACEWARP MPIRUN PYTHON SRC
set -u
tw="$1"; mpirun="$2"; python="$3"; src="$4"
work=$(mktemp -d)
disk="$work/small-disk"
trap 'pkill -9 -f "$work/" 2>/dev/null; umount "$disk" 2>/dev/null; rm -rf "$work"' EXIT
failures=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
sweep="$src/experiments/phold/sweep.toml"
one=(--set experiment.replications=1 --set phold.remote=0.1)  # one PHOLD run
# What a refused run must not leave beside its output.
leftovers() { ls -d "$1.partial" "$1.journal" "$1.lock" 2>/dev/null; }
# refused NAME CODE MESSAGE ARGS...: `tracewarp run ARGS -o $work/NAME.h5` exits CODE, says MESSAGE
# and leaves no file at all.
refused() {
  local name="$1" code="$2" message="$3" out got
  shift 3
  out=$("$tw" run "$@" -q -o "$work/$name.h5" 2>&1); got=$?
  if [ "$got" -eq "$code" ] && grep -q -- "$message" <<<"$out" && [ -z "$(leftovers "$work/$name.h5")" ] &&
    [ ! -e "$work/$name.h5" ]; then pass "$name: exit $code before any file is made"
  else fail "$name: exit $got (want $code), files: $(leftovers "$work/$name.h5" | tr '\n' ' ')"; echo "$out" | tail -2; fi
}

# 1. Two runs on one output: the second is refused at once and changes nothing; the first
#    finishes a whole, readable file.
long=(--set phold.end=6000 --set experiment.replications=1)
"$tw" run "$sweep" -q -o "$work/two.h5" "${long[@]}" >"$work/first.log" 2>&1 &
first=$!
for _ in $(seq 500); do [ -s "$work/two.h5.partial" ] && break; sleep 0.01; done
before=$(stat -c %s "$work/two.h5.partial" 2>/dev/null || echo 0)
out=$("$tw" run "$sweep" -q -o "$work/two.h5" "${long[@]}" 2>&1); code=$?
after=$(stat -c %s "$work/two.h5.partial" 2>/dev/null || echo 0)
wait "$first"; first_code=$?
if [ "$code" -eq 2 ] && grep -q "is being written by another run" <<<"$out" && [ "$after" -ge "$before" ] &&
  [ "$before" -gt 0 ]; then pass "a second run on the same output is refused and leaves the first one's file alone"
else fail "second run on the same output (exit $code, partial $before -> $after bytes)"; echo "$out" | tail -2; fi
if [ "$first_code" -eq 0 ] && "$tw" report "$work/two.h5" >/dev/null 2>&1 && [ -z "$(leftovers "$work/two.h5")" ]; then
  pass "the first run finishes a whole, readable file, and its lock is gone"
else fail "the first run (exit $first_code)"; cat "$work/first.log" | tail -2; fi

# 2. A full disk: one line, exit 1, no temporary file left; --resume after making room finishes
#    with the data of a run that had room. A checkpoint that does not fit leaves no temporary file.
mkdir -p "$disk"
if mount -t tmpfs -o size=128k tracewarp-test "$disk" 2>/dev/null; then
  big=(--set phold.end=200 --set output.series_interval_s=0.01)  # tables larger than the disk
  "$tw" run "$sweep" -q -o "$work/roomy.h5" "${big[@]}" || fail "full disk: the run with room"
  out=$("$tw" run "$sweep" -q -o "$disk/full.h5" "${big[@]}" 2>&1); code=$?
  temporaries=$(find "$disk" -name '*.tmp.*' | wc -l)
  if [ "$code" -eq 1 ] && [ "$(grep -c . <<<"$out")" -eq 1 ] && grep -qi "no space left on device" <<<"$out" &&
    grep -q -- "--resume" <<<"$out" && [ "$temporaries" -eq 0 ]; then
    pass "a full disk: one line naming it, exit 1, no temporary file left"
  else fail "full disk (exit $code, $temporaries temporary files)"; echo "$out" | tail -3; fi
  out=$("$tw" report "$disk/full.h5" 2>&1)
  grep -qi "failed: .*no space left on device" <<<"$out" && pass "report says why the run failed" ||
    { fail "report after a full disk"; echo "$out" | tail -2; }
  mount -o remount,size=16m "$disk"
  if "$tw" run "$sweep" -q -o "$disk/full.h5" "${big[@]}" --resume 2>"$work/resume.log" &&
    "$python" "$src/tests/python/compare_results.py" "$work/roomy.h5" "$disk/full.h5" >/dev/null; then
    pass "--resume after making room finishes with the same model data"
  else fail "--resume after a full disk"; tail -2 "$work/resume.log"; fi
  rm -rf "${disk:?}"/*
  mount -o remount,size=1m "$disk"
  out=$("$tw" run "$sweep" -q -o "$disk/checkpointed.h5" "${one[@]}" --set phold.lps=8192 --set phold.end=2000 \
    --set engine.checkpoint_every_s=0.05 2>&1); code=$?
  temporaries=$(find "$disk" -name '*.tmp.*' | wc -l)
  if [ "$code" -eq 1 ] && grep -q "checkpoint" <<<"$out" && [ "$temporaries" -eq 0 ]; then
    pass "a checkpoint that does not fit: exit 1, its temporary file removed"
  else fail "checkpoint on a full disk (exit $code, $temporaries temporary files)"; echo "$out" | tail -2; fi
  umount "$disk"
else
  echo "skip full disk: this machine does not let the test mount a small tmpfs"
fi

# 3. Memory limits apply from the start: a run far too large is refused at once with the budget
#    message (it used to grow until the kernel killed it); an allocation failure is that message too.
out=$(timeout 60 "$tw" run "$sweep" -q -o "$work/huge.h5" "${one[@]}" --set phold.lps=4294967297 2>&1); code=$?
[ "$code" -eq 1 ] && grep -q "memory budget" <<<"$out" && pass "2^32 + 1 LPs: refused at once, exit 1" ||
  { fail "2^32 + 1 LPs (exit $code)"; echo "$out" | tail -2; }
out=$(timeout 60 "$tw" run "$sweep" -q -o "$work/budget.h5" "${one[@]}" --set phold.lps=100000000 \
  --set engine.memory_budget_mib=1024 2>&1); code=$?
[ "$code" -eq 1 ] && grep -q "more than its memory budget of 1024 MiB" <<<"$out" &&
  pass "10^8 LPs within 1 GiB: refused at once with the budget message" ||
  { fail "10^8 LPs with a budget (exit $code)"; echo "$out" | tail -2; }
out=$("$tw" report "$work/budget.h5" 2>&1)
grep -q "failed: the run's 100000000 LPs need" <<<"$out" && pass "report says the run failed, and why" ||
  { fail "report of a failed run"; echo "$out" | tail -2; }
# Peak memory and address-space limits mean nothing under AddressSanitizer (its shadow memory).
sanitized=$([ -n "${ASAN_OPTIONS:-}" ] && echo yes || echo no)
if [ -x /usr/bin/time ] && [ "$sanitized" = no ]; then
  out=$(/usr/bin/time -f "peak %M KiB" "$tw" bench phold --lps 1048576 --memory-budget-mib 256 2>&1); code=$?
  peak=$(sed -n 's/^peak \([0-9]*\) KiB$/\1/p' <<<"$out")
  if [ "$code" -eq 1 ] && grep -q "memory budget" <<<"$out" && [ "${peak:-9999999}" -lt 1048576 ]; then
    pass "bench with a 256 MiB budget stops under 1 GiB (peak $((peak / 1024)) MiB)"
  else fail "bench with a budget (exit $code, peak ${peak:-?} KiB)"; echo "$out" | tail -2; fi
fi
if [ "$sanitized" = no ]; then
  out=$(ulimit -v 600000; "$tw" run "$sweep" -q -o "$work/nomem.h5" "${one[@]}" --set phold.lps=4000000 2>&1); code=$?
  [ "$code" -eq 1 ] && [ "$(grep -c . <<<"$out")" -eq 1 ] && grep -qE "out of memory|memory budget" <<<"$out" &&
    pass "an allocation failure: one line, exit 1" || { fail "allocation failure (exit $code)"; echo "$out" | tail -2; }
fi

# 4. Errors before files: every run's parameters and inputs are checked before the journal or the
#    .partial file is made.
printf '; MaxNodes: 4\n; MaxProcs: 16\n' >"$work/header-only.swf"
printf '; MaxNodes: 4\n1 0 0 0 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 0 -1 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n' \
  >"$work/all-dropped.swf"
printf '; MaxNodes: 4\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 0 10 abc -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n' \
  >"$work/bad-field.swf"
printf '; MaxNodes: 99999999999999\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n' >"$work/huge-header.swf"
printf '; MaxNodes: 4\n; MaxProcs: 16\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 0 10 32 -1 -1 32 20 -1 1 1 1 -1 -1 -1 -1 -1\n' \
  >"$work/one-too-large.swf"
batch() { printf '[experiment]\nmodel = "batch"\n[workload]\ntrace = "%s"\n' "$1" >"$work/$2.toml"; echo "$work/$2.toml"; }
refused missing-trace 2 "cannot open '$work/nowhere.swf'" "$(batch "$work/nowhere.swf" missing)"
refused header-only 2 "no jobs to run: 0 job record(s) read" "$(batch "$work/header-only.swf" header)"
refused all-dropped 2 "no jobs to run: 2 job record(s) read, dropped: 2 run time <= 0" \
  "$(batch "$work/all-dropped.swf" dropped)"
refused bad-field 2 "bad-field.swf:3: field '5 (allocated processors)'" "$(batch "$work/bad-field.swf" bad)"
refused huge-header 2 "99999999999999 nodes, more than the batch model takes" "$(batch "$work/huge-header.swf" huge)"
refused none-left 2 "left none of its 1 jobs" "$(batch "$work/one-too-large.swf" none)" --set workload.min_run_s=1000
refused phold-mean 2 "phold.mean must be >= phold.lookahead" "$sweep" --set phold.lookahead=2 --set phold.mean=1
refused replication-hosts 2 "replication.hosts must be >= 2" "$src/experiments/replication/quick.toml" \
  --set replication.hosts=1
refused sweep-point 2 "run-0000 (phold.remote=0.1): phold.mean" "$sweep" --set experiment.replications=1 \
  --set phold.mean=0.5 --set phold.lookahead=0.6
out=$(timeout 20 "$tw" run "$sweep" -q -o "$work" 2>&1); code=$?
[ "$code" -eq 2 ] && grep -q "is a folder" <<<"$out" && [ -z "$(leftovers "$work")" ] &&
  pass "an output that is a folder: refused before the run" || { fail "output folder (exit $code)"; echo "$out"; }
out=$("$tw" run "$work" -q -o "$work/dir-config.h5" 2>&1); code=$?
[ "$code" -eq 2 ] && grep -q "is a directory" <<<"$out" && [ ! -e "$work/dir-config.h5" ] &&
  pass "a folder as the configuration: refused" || { fail "configuration folder (exit $code)"; echo "$out"; }

# 5. Overwrites and re-runs: a complete file is replaced only with --force; --resume on it does
#    nothing.
"$tw" run "$sweep" -q -o "$work/done.h5" --set phold.end=20 || fail "a short sweep"
sum=$(md5sum <"$work/done.h5")
out=$("$tw" run "$sweep" -q -o "$work/done.h5" --set phold.end=20 2>&1); code=$?
[ "$code" -eq 2 ] && grep -q "add --force" <<<"$out" && [ "$(md5sum <"$work/done.h5")" = "$sum" ] &&
  pass "a complete file is not replaced without --force" || { fail "overwrite without --force (exit $code)"; echo "$out"; }
out=$("$tw" run "$sweep" -q -o "$work/done.h5" --set phold.end=20 --resume 2>&1); code=$?
[ "$code" -eq 0 ] && grep -q "is complete (4 runs): nothing to resume" <<<"$out" &&
  [ "$(md5sum <"$work/done.h5")" = "$sum" ] && pass "--resume on a complete file says so and changes nothing" ||
  { fail "--resume on a complete file (exit $code)"; echo "$out"; }
"$tw" run "$sweep" -q -o "$work/done.h5" --set phold.end=30 --force && [ "$(md5sum <"$work/done.h5")" != "$sum" ] &&
  [ -z "$(leftovers "$work/done.h5")" ] && pass "--force replaces it" || fail "--force"

# 6. Inputs that are not what they claim.
"$tw" run "$(batch "$work/one-too-large.swf" large)" -q -o "$work/large.h5" || fail "a trace with a job too large"
rejected=$("$tw" report "$work/large.h5" --json | "$python" -c \
  'import json, sys; s = json.load(sys.stdin)["runs"][0]["summary"]; print(s["rejected"], s["rejected_at_read"])')
[ "$rejected" = "1 1" ] && pass "a job larger than the machine is counted in the summary's rejected" ||
  fail "rejected in the summary (got '$rejected')"
printf '[experiment]\nmodel = "batch"\n[workload]\ntrace = "%s"\niat_scale = nan\n' "$work/one-too-large.swf" \
  >"$work/nan.toml"
refused nan 2 "workload.iat_scale must be in \[1e-09, 1000000\], got nan" "$work/nan.toml"
"$tw" run "$sweep" -q -o "$work/twice.h5" "${one[@]}" --set phold.end=5 --set phold.lps=3 --set phold.lps=4 &&
  [ "$("$python" -c 'import h5py, sys; print(h5py.File(sys.argv[1])["runs/run-0000"].attrs["phold.lps"])' \
    "$work/twice.h5")" = 4 ] && pass "a key given twice with --set takes its last value" || fail "--set twice"

# 7. The comparison tool reports a table that only one of the two files has.
cp "$work/done.h5" "$work/extra.h5"
"$python" -c 'import h5py, sys; h5py.File(sys.argv[1], "a")["runs/run-0000"].create_dataset("stray", data=[1])' \
  "$work/extra.h5"
out=$("$python" "$src/tests/python/compare_results.py" "$work/done.h5" "$work/extra.h5" 2>&1); code=$?
[ "$code" -eq 1 ] && grep -q "run-0000/stray: only in" <<<"$out" && pass "compare_results.py: a table in one file only" ||
  { fail "compare_results.py and a table in one file only (exit $code)"; echo "$out" | tail -2; }

echo "survival: $failures failure(s)"
[ "$failures" -eq 0 ]
