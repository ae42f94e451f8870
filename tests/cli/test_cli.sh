#!/usr/bin/env bash
# The command line as a user meets it: exit codes 0/1/2, one clear error line, --json keys.
set -u
tw="$1"
mpirun="$2"
failures=0
check() {  # check NAME EXPECTED_CODE PATTERN -- command...
  local name="$1" want="$2" pattern="$3"
  shift 4
  local out code
  out=$("$@" 2>&1)
  code=$?
  if [ "$code" -ne "$want" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $code (want $want), output:"
    echo "$out" | head -20
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

check "phold --json has the documented keys" 0 \
  '"checksum":"0x[0-9a-f]{16}".*"committed":[0-9]+.*"efficiency".*"events_per_s".*"peak_rss_bytes".*"ranks":1.*"rolled_back".*"threads":1.*"wall_s"' \
  -- "$tw" bench phold --lps 64 --end 5 --json
check "memory budget too small: clear message, exit 1" 1 \
  '^tracewarp: error: memory budget exhausted on rank 0: .* raise engine.memory_budget_mib' \
  -- "$tw" bench phold --lps 2048 --end 5 --memory-budget-mib 1
check "memory budget on 2 ranks: one message, exit 1" 1 \
  'memory budget exhausted on rank [01]' \
  -- "$mpirun" -np 2 --oversubscribe "$tw" bench phold --lps 4096 --end 5 --sync optimistic --memory-budget-mib 1
# A lookahead the model does not keep (PHOLD's delays start at 0.1 s): both modes that rely on it
# stop at the first event sent between ranks too soon.
for mode in optimistic conservative; do
  check "$mode: a lookahead longer than the delays between ranks, exit 2" 2 \
    "error \\(rank [01]\\): $mode mode: LP [0-9]+ sent an event to LP [0-9]+ \\(on another rank\\).*shortest delay between ranks" \
    -- "$mpirun" -np 2 --oversubscribe "$tw" bench phold --lps 64 --end 5 --remote 1 --sync $mode --lookahead-s 50
done
check "sequential mode refuses several ranks, exit 2" 2 \
  'sequential mode runs on one rank' \
  -- "$mpirun" -np 2 --oversubscribe "$tw" bench phold --lps 64 --end 5
check "unknown sync mode, exit 2" 2 "unknown synchronisation mode 'fast'" \
  -- "$tw" bench phold --sync fast
check "bad option value, exit 2" 2 "remote" -- "$tw" bench phold --remote 1.5
check "unknown option, exit 2" 2 "not-an-option" -- "$tw" bench phold --not-an-option
check "missing partition file, exit 2" 2 "cannot open partition file" \
  -- "$tw" bench phold --lps 8 --end 1 --placement /nonexistent.part
check "--help lists the PHOLD options" 0 "--lookahead" -- "$tw" bench phold --help

seq_sum=$("$tw" bench phold --lps 128 --end 20 --remote 1.0 --json | grep -oE '"checksum":"[^"]+"')
opt_sum=$("$mpirun" -np 3 --oversubscribe "$tw" bench phold --lps 128 --end 20 --remote 1.0 --sync optimistic --json |
  grep -oE '"checksum":"[^"]+"')
if [ -n "$seq_sum" ] && [ "$seq_sum" = "$opt_sum" ]; then
  echo "ok   checksum identical: sequential vs optimistic on 3 ranks"
else
  echo "FAIL checksum: sequential $seq_sum, optimistic $opt_sum"
  failures=$((failures + 1))
fi

part=$(mktemp)
python3 "$(dirname "$0")/../../partitions/make_partition.py" --lps 128 --ranks 3 >"$part"
file_sum=$("$mpirun" -np 3 --oversubscribe "$tw" bench phold --lps 128 --end 20 --remote 1.0 --sync optimistic \
  --placement "$part" --json | grep -oE '"checksum":"[^"]+"')
rm -f "$part"
if [ -n "$seq_sum" ] && [ "$seq_sum" = "$file_sum" ]; then
  echo "ok   checksum identical with a partition file from make_partition.py"
else
  echo "FAIL partition file run: checksum $file_sum, sequential $seq_sum"
  failures=$((failures + 1))
fi

study="$(dirname "$0")/../../experiments/kcomputer-interval/study.toml"
out=$(mktemp -d)
check "a missing trace names TRACEWARP_DATA and the folder it gave, exit 2" 2 \
  "no such file .*TRACEWARP_DATA=/nonexistent-data, the folder /nonexistent-data; set TRACEWARP_DATA" \
  -- env TRACEWARP_DATA=/nonexistent-data "$tw" run -q "$(dirname "$0")/../../experiments/wrsa-backfill/ricc-easy.toml" \
  -o "$out/ricc.h5"
check "an unknown key suggests the nearest one, exit 2" 2 "unknown key 'batch.polcy' \\(did you mean 'batch.policy'\\?" \
  -- "$tw" run -q "$study" --set batch.polcy=easy -o "$out/typo.h5"
check "a summary window past the workload's end is warned about" 0 "warning: batch.window_until_s = 1814400 s runs past" \
  -- "$tw" run -q "$study" --set batch.machine=kcomputer-768 --set kmix.days=1 --set experiment.replications=1 \
  --set batch.interval_pattern=A -o "$out/window.h5"
check "a free-run kernel that does not exist, exit 2" 2 "batch.free_runs must be one of auto, portable, avx2, avx512" \
  -- "$tw" run -q "$study" --set batch.machine=kcomputer-768 --set kmix.days=1 \
  --set experiment.replications=1 --set batch.free_runs=sse9 -o "$out/k.h5"
check "the portable free-run kernel by its key" 0 "" \
  -- "$tw" run -q "$study" --set batch.machine=kcomputer-768 --set kmix.days=1 \
  --set experiment.replications=1 --set batch.free_runs=portable -o "$out/portable.h5"
rm -rf "$out"

# A singleton's MPI session directory is its own (Open MPI singletons otherwise share one that the
# first to end removes under the others); it is gone after the run, and one left by a killed
# run (its process no longer exists) is removed by the next run.
tmp=$(mktemp -d)
dead_pid=$(sh -c 'echo $$')
mkdir -p "$tmp/tracewarp-mpi-$(uname -n)-$dead_pid/ompi.host.0"
seen=$(TMPDIR="$tmp" "$tw" bench phold --lps 64 --end 5 --json >/dev/null && ls -A "$tmp")
if [ -z "$seen" ]; then
  echo "ok   a singleton's session directory is removed, and a dead run's too"
else
  echo "FAIL session directories left in TMPDIR: $seen"
  failures=$((failures + 1))
fi
rm -rf "$tmp"

echo "cli: $failures failure(s)"
[ "$failures" -eq 0 ]
