#!/usr/bin/env bash
# Every shared trace, run by the batch model with nothing but its file name set (first 3,000
# jobs), either runs on a machine that fits every job (none rejected as too large) or is refused
# with exit 2 and a message asking for batch.nodes. Skipped without the data folder.
#   tests/validation/traces_with_defaults.sh TRACEWARP SRC
set -u
tw="$1"; src="$2"
data="${TRACEWARP_DATA:-$src/../shared/data}"
[ -d "$data/traces" ] || { echo "SKIPPED: no traces under $data"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
failures=0; ran=0
for trace in $(cd "$data/traces" && find . -name '*.gz' | sort); do
  printf '[experiment]\nmodel = "batch"\n[workload]\ntrace = "%s"\nwindow_jobs = 3000\n' "$data/traces/$trace" \
    >"$work/t.toml"
  out=$("$tw" run "$work/t.toml" -o "$work/t.h5" 2>&1); code=$?
  rejected=$(sed -n 's/^ *rejected *\([0-9]*\)$/\1/p' <<<"$out")
  if [ "$code" -eq 0 ] && [ "$rejected" = 0 ]; then
    echo "ok   $trace: runs, no job rejected$(grep -q 'note:' <<<"$out" && echo ' (machine chosen and said on stderr)')"
  elif [ "$code" -eq 2 ] && grep -q "set batch.nodes" <<<"$out"; then
    echo "ok   $trace: refused, asking for batch.nodes"
  else
    echo "FAIL $trace: exit $code, rejected '$rejected'"; echo "$out" | tail -3; failures=$((failures + 1))
  fi
  ran=$((ran + 1))
  rm -rf "$work"/t.h5*
done
echo "traces with defaults: $ran traces, $failures failure(s)"
[ "$failures" -eq 0 ] && [ "$ran" -gt 0 ]
