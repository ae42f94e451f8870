#!/usr/bin/env bash
# Nothing silently wrong (issue 51): a damaged journal record runs again, a resume that would mix
# inputs or configurations is refused, a checkpoint made of two generations is not trusted, keys
# that nothing would read and times beyond the clock are refused, inputs that would never end are
# refused, and files beside the output are never followed through links.
#   tests/cli/test_trust.sh TRACEWARP MPIRUN PYTHON SRC
set -u
tw="$1"; mpirun="$2"; python="$3"; src="$4"
work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null; rm -rf "$work"' EXIT
. "$src/tests/cli/checks.sh"
cd "$work" || exit 1
compare() { "$python" "$src/tests/python/compare_results.py" "$1" "$2" >"$work/cmp" 2>&1; }
sweep="$src/experiments/phold/sweep.toml"
phold=(--set phold.end=500 --set experiment.replications=5)  # 10 runs of about 0.3 s each

# killed NAME ARGS...: the PHOLD sweep writing NAME.h5, killed (kill -9) once 3 runs are recorded.
killed() {
  local name="$1"; shift
  "$tw" run "$sweep" "${phold[@]}" "$@" -q -o "$work/$name.h5" >/dev/null 2>&1 &
  for _ in $(seq 600); do
    [ "$(ls "$work/$name.h5.journal" 2>/dev/null | grep -cE '^run-[0-9]+[.]out$')" -ge 3 ] && break
    sleep 0.05
  done
  pkill -9 -f "$work/$name.h5"
  wait 2>/dev/null
}

# A small SWF log of 300 jobs in data folder $1 (seed $2), on a machine of $3 processors.
make_log() {
  mkdir -p "$1/traces"
  "$python" - "$1/traces/log.swf" "$2" "$3" <<'PY'
import random, sys
path, seed, procs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(seed)
with open(path, "w") as f:
    f.write(f"; MaxProcs: {procs}\n; MaxNodes: {procs}\n")
    t = 0
    for i in range(1, 301):
        t += r.randint(1, 300)
        run = r.randint(10, 3000)
        p = r.choice([1, 2, 4, 8, 16, 32])
        f.write(f"{i} {t} {r.randint(0, 100)} {run} {p} -1 -1 {p} {run * 2} -1 1 {r.randint(1, 5)} 1 1 1 1 -1 -1\n")
PY
}

# --- 1. A damaged journal record is dropped with a warning, and its run runs again ---------------
"$tw" run "$sweep" "${phold[@]}" -q -o whole.h5 || fail "uninterrupted PHOLD sweep"
killed flip
if [ -f flip.h5.journal/run-000000.out ]; then
  # One bit flipped near the end of run 0's record: inside its table rows.
  "$python" -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[-9]^=4; open(p,'wb').write(b)" \
    flip.h5.journal/run-000000.out
  out=$("$tw" run "$sweep" "${phold[@]}" -o flip.h5 --resume 2>&1); code=$?
  if [ "$code" -eq 0 ] && grep -q "run-000000.out: damaged (checksum mismatch); that run runs again" <<<"$out" &&
    compare whole.h5 flip.h5; then
    pass "one flipped bit in a record's rows: dropped with a warning, its run runs again, same results"
  else fail "flipped bit in a journal record (exit $code)"; echo "$out" | tail -3; cat cmp; fi
else fail "the PHOLD sweep was not stopped with a run recorded"; fi

# --- 2, 3. Resume checks what it resumes: the inputs' content, and a complete file's making ------
make_log A 1 64; make_log B 2 64
cat >replay.toml <<'T'
[experiment]
model = "batch"
[workload]
trace = "${TRACEWARP_DATA}/traces/log.swf"
[sweep]
"batch.policy" = ["fcfs", "easy"]
T
TRACEWARP_DATA=A "$tw" run replay.toml -q -o replay.h5 || fail "replay of log A"
expect "--resume on a complete file made from another data folder is refused, naming the input" 2 \
  'complete but was made by another sweep \(input \$\{TRACEWARP_DATA\}/traces/log.swf: was' -- \
  env TRACEWARP_DATA=B "$tw" run replay.toml -o replay.h5 --resume
expect "--resume on a complete file with a changed --set is refused, not called complete" 2 \
  'complete but was made by another sweep \(batch.tick_s: was' -- \
  env TRACEWARP_DATA=A "$tw" run replay.toml -o replay.h5 --resume --set batch.tick_s=60
expect "--resume on a complete file of this very sweep: nothing to do" 0 'is complete \(2 runs\): nothing to resume' -- \
  env TRACEWARP_DATA=A "$tw" run replay.toml -o replay.h5 --resume
# An interrupted sweep (its second run needs more than its memory budget: the machine of log C is
# 4,000,000 processors) resumed with the data folder pointing elsewhere, or its trace replaced.
make_log C 1 4000000; make_log D 2 4000000
printf '"engine.memory_budget_mib" = [1000, 1]\n' >>replay.toml
TRACEWARP_DATA=C "$tw" run replay.toml -q -o mixed.h5 >/dev/null 2>&1
if [ -f mixed.h5.journal/run-000000.out ]; then
  expect "a sweep interrupted on one data folder is not resumed on another" 2 \
    'interrupted sweep was another one \(input \$\{TRACEWARP_DATA\}/traces/log.swf: was [0-9]+ bytes, crc32' -- \
    env TRACEWARP_DATA=D "$tw" run replay.toml -o mixed.h5 --resume
  cp D/traces/log.swf C/traces/log.swf
  expect "nor with its trace replaced in place" 2 'interrupted sweep was another one \(input' -- \
    env TRACEWARP_DATA=C "$tw" run replay.toml -o mixed.h5 --resume
else fail "the failing replay sweep left no journal"; fi

# --- 5. Keys read once for the whole sweep cannot be swept ---------------------------------------
for key in experiment.model experiment.replications output.file engine.ranks_per_run; do
  printf '[experiment]\nmodel = "phold"\n[sweep]\n"%s" = [1, 2]\n' "$key" >swept.toml
  expect "sweeping $key is refused, naming it" 2 "sweep key '$key' is read once for the whole sweep" -- \
    "$tw" run swept.toml -o swept.h5
done
[ ! -e swept.h5 ] && [ ! -e swept.h5.journal ] || fail "a refused sweep made files"

# --- 6. Times beyond what the clock can add up are refused, naming the key ------------------------
for kv in batch.tick_s=5e9 batch.window_from_s=1e10 batch.window_until_s=1e10 batch.walltime_grace_s=1e12 \
  output.series_interval_s=1e300; do
  expect "$kv is refused" 2 "${kv%%=*} must be in \[0|${kv%%=*} must be in \[1e-09|${kv%%=*} must be <= 1000000000" -- \
    env TRACEWARP_DATA=A "$tw" run replay.toml -o times.h5 --set "$kv" --set batch.policy=easy
done
expect "a seed whose replications would wrap is refused" 2 "experiment.seed \+ 1 \(the replications' seeds\) exceeds" -- \
  "$tw" run "$sweep" -o seed.h5 --set experiment.seed=9223372036854775807

# Requested times inside the reader's limits (decades) stack beyond the clock in a plan: such a
# job is planned for no time the clock holds, and the run goes on.
mkdir -p O/traces
"$python" - O/traces/log.swf <<'PY'
import random, sys
r = random.Random(3)
with open(sys.argv[1], "w") as f:
    f.write("; MaxProcs: 64\n; MaxNodes: 64\n")
    t = 0
    for i in range(1, 201):
        t += r.randint(1, 300)
        run = r.randint(10, 3000)
        p = r.choice([1, 2, 4, 8, 16, 32, 64])
        f.write(f"{i} {t} 0 {run} {p} -1 -1 {p} {r.choice([run * 2, 3.0e9, 2.5e9]):.0f} -1 1 1 1 1 1 1 -1 -1\n")
PY
for policy in conservative wrsa-ar; do
  expect "$policy plans jobs whose requested times add up beyond the clock" 0 "results:" -- \
    env TRACEWARP_DATA=O "$tw" run replay.toml -o "huge-$policy.h5" --set batch.policy=$policy \
    --set engine.memory_budget_mib=1000
done

# --- 7. MapReduce inputs that would never end are refused ---------------------------------------
mr="$src/experiments/mapreduce-stragglers/benefit.toml"
expect "a map container larger than a worker's memory is refused" 2 "mapreduce.map_memory_gb = 100(.0)?: a map container fits no worker" -- \
  timeout 60 "$tw" run "$mr" -o mr.h5 --set mapreduce.map_memory_gb=100
expect "a reduce container larger than a worker's memory is refused" 2 "mapreduce.reduce_memory_gb = 13(.0)?: a reduce container fits no worker" -- \
  timeout 60 "$tw" run "$mr" -o mr.h5 --set mapreduce.reduce_memory_gb=13
expect "a job with no task is refused" 2 "mapreduce.maps and mapreduce.reduces are both 0" -- \
  timeout 60 "$tw" run "$mr" -o mr.h5 --set mapreduce.maps=0 --set mapreduce.reduces=0

# A replication run whose result rows cannot fit in memory is refused before any file.
expect "a replication run too large for memory is refused before it starts" 2 \
  "replication.tasks = 1000000000000: its result rows alone need .* GB on rank 0" -- \
  timeout 60 "$tw" run "$src/experiments/replication/quick.toml" -o boinc.h5 --set replication.tasks=1000000000000
if [ -e boinc.h5 ] || [ -e boinc.h5.partial ] || [ -e boinc.h5.journal ]; then
  fail "the refused replication run left a file"
else pass "the refused replication run left no file"; fi

# --- 8. A FIFO as the trace is refused (it would be read once, then waited on forever) -----------
mkfifo fifo.swf
expect "a FIFO as the trace is refused, naming it" 2 "fifo.swf' as a trace: it is not a regular file" -- \
  timeout 60 "$tw" run replay.toml -o fifo.h5 --set workload.trace="$work/fifo.swf" --set batch.policy=easy \
  --set engine.memory_budget_mib=1000
ln -s loop1 loop2; ln -s loop2 loop1
expect "a loop of symbolic links is said as such, not as a missing file" 2 "loop1': Too many levels of symbolic links" -- \
  "$tw" run replay.toml -o loop.h5 --set workload.trace="$work/loop1" --set batch.policy=easy \
  --set engine.memory_budget_mib=1000

# ... and a stopped rank: the others back off while they wait (no spinning at 100% CPU), then stop
# the run naming it after engine.silence_timeout_s.
"$mpirun" -np 2 --oversubscribe "$tw" run "$sweep" -q -o "$work/stopped.h5" --set experiment.replications=1 \
  --set phold.remote=1.0 --set phold.end=1e6 --set engine.silence_timeout_s=4 >"$work/stopped.log" 2>&1 &
launcher=$!
stopped=""
for _ in $(seq 200); do
  for pid in $(pgrep -f "$work/stopped.h5"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then stopped=$pid; fi
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=0"; then waiting=$pid; fi
  done
  [ -n "$stopped" ] && [ -n "${waiting:-}" ] && break
  sleep 0.05
done
if [ -n "$stopped" ]; then
  sleep 0.5
  kill -STOP "$stopped"
  sleep 1
  ticks_before=$(awk '{print $14 + $15}' "/proc/$waiting/stat")
  sleep 2
  ticks_after=$(awk '{print $14 + $15}' "/proc/$waiting/stat" 2>/dev/null || echo "$ticks_before")
  used=$(( (ticks_after - ticks_before) * 100 / $(getconf CLK_TCK) / 2 ))
  [ "$used" -lt 50 ] && pass "a rank waiting on a stopped peer backs off (${used}% of a core)" ||
    fail "a rank waiting on a stopped peer spins (${used}% of a core)"
  for _ in $(seq 300); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.1; done
  kill -CONT "$stopped" 2>/dev/null
  wait "$launcher"; code=$?
  if [ "$code" -ne 0 ] && grep -q "no word for [0-9]* s from rank 1" stopped.log &&
    grep -q "engine.silence_timeout_s = 4" stopped.log; then
    pass "a stopped rank: the run stops after engine.silence_timeout_s, naming it (exit $code)"
  else fail "a stopped rank (exit $code)"; tail -3 stopped.log; fi
else fail "no rank 1 process found to stop"; kill "$launcher" 2>/dev/null; fi

# --- 12. Engine settings that cannot work are refused before any file -----------------------------
expect "engine.sync = conservative on the batch model is refused before any file, naming the run" 2 \
  'run-0000 \(.*\): engine.sync = "conservative" needs a lookahead, and the batch model declares none' -- \
  env TRACEWARP_DATA=A "$tw" run replay.toml -o cons.h5 --set engine.sync=conservative
[ ! -e cons.h5.journal ] && [ ! -e cons.h5.partial ] || fail "the conservative refusal made files"
printf 'lps 20000\nranks 3\n0 19999 0\n' >three.part
expect "a partition file for another rank count is refused before any file, naming the key" 2 \
  "engine.placement: .*three.part:2: field 'ranks': file is for 3 ranks, the run has 1" -- \
  "$tw" run "$sweep" -o part.h5 --set engine.placement="$work/three.part"
[ ! -e part.h5.journal ] && [ ! -e part.h5.partial ] || fail "the partition refusal made files"
expect "engine.sync = bogus names the key" 2 "--set: engine.sync: unknown synchronisation mode 'bogus'" -- \
  "$tw" run "$sweep" -o bogus.h5 --set engine.sync=bogus

expect "sequential runs on 2 ranks per run are refused before any file, with a hint that works" 2 \
  'engine.sync = "sequential" runs on one rank, and each run of this sweep has 2: --set engine.sync=optimistic' -- \
  env TRACEWARP_DATA=A "$mpirun" -np 2 --oversubscribe "$tw" run replay.toml -o seq.h5 --set batch.policy=easy \
  --ranks-per-run 2
[ ! -e seq.h5.journal ] || fail "the sequential refusal made files"

expect "--set on a swept key says that it fixes it" 0 "note: --set phold.remote fixes a swept key: its 2 values in .*sweep.toml give way to one" -- \
  "$tw" run "$sweep" -o fixed.h5 --set phold.remote=0.5 --set phold.end=10

# --- 9. Files beside the output are never followed through links --------------------------------
echo "precious" >precious.txt
ln -s precious.txt linked.h5.partial
expect "a symbolic link at OUTPUT.partial is refused, and its target is untouched" 2 \
  "linked.h5.partial' is a symbolic link" -- "$tw" run "$sweep" -o linked.h5 --set phold.end=10
grep -q precious precious.txt && [ -L linked.h5.partial ] || fail "the link's target was overwritten"
ln -s "$work/nowhere/made.txt" dangling.h5.lock
expect "a dangling link at OUTPUT.lock is refused and creates nothing" 2 "lock file '.*dangling.h5.lock' is a symbolic link" -- \
  "$tw" run "$sweep" -o dangling.h5 --set phold.end=10
[ ! -e "$work/nowhere" ] || fail "the dangling lock link's target was created"

# --- 10, 11. Names taken from a results file: never a path out of export's folder, never a command
"$python" - whole.h5 <<'PY'
import shutil, sys, h5py
shutil.copy(sys.argv[1], "dotdot.h5")
with h5py.File("dotdot.h5", "r+") as f:
    f["runs"].move("run-0000", "..")
shutil.copy(sys.argv[1], "quoted.h5")
with h5py.File("quoted.h5", "r+") as f:
    f.attrs["config_file"] = "x'; touch pwned; '"
    f.attrs["complete"] = 0
PY
mkdir -p exported/inner
expect "export refuses a run named '..' in a crafted file, before writing anything" 2 "a run is named '..', which is not a plain file name" -- \
  "$tw" export dotdot.h5 --csv exported/inner
[ -z "$(ls exported/inner)" ] && [ ! -e exported/runs.csv ] || fail "export wrote files for a crafted file"
out=$("$tw" report quoted.h5 2>&1)
hint=$(grep -o '`tracewarp run[^`]*`' <<<"$out" | tr -d '`')
if grep -qF "tracewarp run 'x'\''; touch pwned; '\''' -o quoted.h5" <<<"$hint"; then
  bash -c "echo ${hint#tracewarp}" >/dev/null
  [ ! -e pwned ] && pass "the resume hint quotes what the file says: pasting it runs no other command" ||
    fail "the resume hint ran a command"
else fail "the resume hint is not quoted"; echo "$out" | tail -2; fi

# --- 14. A reader holding the .partial open, and report on a run in progress ----------------------
"$tw" run "$sweep" "${phold[@]}" -q -o "$work/held.h5" >/dev/null 2>&1 &
for _ in $(seq 200); do [ -e held.h5.partial ] && break; sleep 0.02; done
sleep 0.2
expect "report on a run in progress says so, not 'killed'" 1 "is being written by a run in progress \(process [0-9]+ holds its lock\)" -- \
  "$tw" report held.h5
pkill -9 -f "$work/held.h5"; wait 2>/dev/null
if [ -e held.h5.partial ]; then
  "$python" -c "import h5py, time; f = h5py.File('held.h5.partial', 'r'); time.sleep(30)" 2>/dev/null &
  reader=$!
  sleep 1
  out=$("$tw" run "$sweep" "${phold[@]}" -o held.h5 --resume 2>&1); code=$?
  kill "$reader" 2>/dev/null; wait "$reader" 2>/dev/null
  [ "$code" -eq 0 ] && compare whole.h5 held.h5 && pass "--resume while a reader holds the .partial open" ||
    { fail "--resume with a reader on the .partial (exit $code)"; echo "$out" | tail -2; }
else fail "no .partial left by the killed run"; fi

# A disk that fills at any size: one line, exit 1 (HDF5's own error stack never reaches the user).
mkdir -p "$work/small"
if mount -t tmpfs -o size=4k tracewarp-test "$work/small" 2>/dev/null; then
  umount "$work/small"
  for size in 4k 8k 12k 16k 32k 64k; do
    mount -t tmpfs -o size=$size tracewarp-test "$work/small"
    out=$("$tw" run "$sweep" -q -o "$work/small/full.h5" --set phold.end=50 2>&1); code=$?
    umount "$work/small"
    if [ "$code" -ne 1 ] || [ "$(grep -c . <<<"$out")" -ne 1 ] || ! grep -qi "no space left on device" <<<"$out"; then
      fail "a disk of $size fills: exit $code, $(grep -c . <<<"$out") line(s)"; echo "$out" | head -3; break
    fi
  done
  [ "$size" = 64k ] && [ "$code" -eq 1 ] && pass "a disk that fills at 4-64 KiB: one line, exit 1"
else echo "skip full disks: cannot mount a tmpfs here"; fi

# --- 13. A sweep too large to expand in the memory this process may use is refused before it is
# expanded (here 10,000 runs under a 400-MB data limit); the limit is read from ulimit and cgroups.
"$python" -c "
vals = ', '.join(str(i / 1000) for i in range(100))
open('huge.toml', 'w').write(f'[experiment]\nmodel = \"phold\"\nreplications = 100\n[sweep]\n\"phold.remote\" = [{vals}]\n')"
if [ -z "${ASAN_OPTIONS:-}" ]; then  # (AddressSanitizer cannot map its shadow memory under ulimit -d)
  expect "a sweep whose expansion exceeds the memory under ulimit -d is refused before any file" 2 \
    "the sweep makes 10000 runs, each a full copy of its parameters: about 0\.[1-3] GB, more than half the 0\.4 GB" -- \
    bash -c "ulimit -d 400000; exec '$tw' run huge.toml -o huge.h5"
  [ ! -e huge.h5.journal ] || fail "the refused sweep made files"
fi

# A series interval far below the run's span would build billions of rows (1.6 GB and bad_alloc
# once, after the files existed): refused before any file, naming the key.
expect "output.series_interval_s = 1e-9 on PHOLD is refused before any file" 2 \
  "output.series_interval_s = 1e-09 gives 5e\+10 rows in this run's series" -- \
  "$tw" run "$sweep" -o series.h5 --set output.series_interval_s=1e-9
expect "output.series_interval_s = 1e-6 on a replay is refused before any file" 2 \
  "output.series_interval_s = 1e-06 gives [0-9.e+]+ rows in this run's series \(it reaches" -- \
  env TRACEWARP_DATA=A "$tw" run replay.toml -o series.h5 --set output.series_interval_s=1e-6 --set batch.policy=easy
[ ! -e series.h5.journal ] && [ ! -e series.h5.partial ] || fail "a refused series interval made files"

# Duplicate job ids are kept, and said.
cp A/traces/log.swf dup.swf
tail -1 A/traces/log.swf | awk '{ $2 = $2 + 10; print }' >>dup.swf
expect "duplicate job ids are kept with a warning" 0 "1 job\(s\) repeat the id of an earlier job" -- \
  "$tw" run replay.toml -o dup.h5 --set workload.trace="$work/dup.swf" --set batch.policy=easy

echo "trust: $failures failure(s)"
[ "$failures" -eq 0 ]
