#!/usr/bin/env bash
# tracewarp against ROOT-Sim 3 on the same PHOLD (docs/performance-history.md#against-root-sim-3-2026-11-24-eleventh-session): 16
# events per LP, remote 0.1, delay 0.1 + Exp(0.9), at several model sizes; sequentially, and on
# two cores (ROOT-Sim: 2 threads; tracewarp: 2 ranks, optimistic and conservative). Runs alternate
# between the two engines; prints committed events/s, medians of REPS, with the range.
#
#   bench/peers/rootsim/compare.sh /path/to/ROOT-Sim/core [REPS]
#   SIZES="1048576:2" bench/peers/rootsim/compare.sh /path/to/ROOT-Sim/core 1   # LPs:end pairs
#
# Builds ROOT-Sim's core library (its tests and docs fetch from the network, so they are left
# out) and bench/peers/rootsim/phold.c against it in a temporary folder. The two PHOLDs draw
# different random numbers, so their committed counts differ by a fraction of a percent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
src=${1:?the ROOT-Sim core source folder}
reps=${2:-3}
tw=${TW:-$root/build/tracewarp}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/rs"
sed -i 's/^add_subdirectory(test)/#&/; s/^add_subdirectory(docs)/#&/' "$work/rs/CMakeLists.txt"
cmake -S "$work/rs" -B "$work/rs/b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWITH_MPI=OFF >/dev/null
cmake --build "$work/rs/b" >/dev/null
cc -O3 -march=native -std=gnu11 -D_GNU_SOURCE -I"$work/rs/src" "$here/phold.c" "$work/rs/b/src/librscore.a" -lm \
  -lpthread -o "$work/phold"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi="mpirun -np 2 --bind-to core"
rate() { grep -o '"events_per_s":[0-9.]*' | tail -1 | cut -d: -f2; }
count() { grep -o '"committed":[0-9]*' | tail -1 | cut -d: -f2; }
median() { python3 -c 'import sys, statistics as s; v = sorted(float(x) for x in sys.argv[1:]);
print(f"{s.median(v) / 1e6:.2f} M ({v[0] / 1e6:.2f}-{v[-1] / 1e6:.2f})")' "$@"; }
P="bench phold --events-per-lp 16 --remote 0.1 --mean 1.0 --lookahead 0.1 --json"
echo "| LPs | end | committed (tracewarp / ROOT-Sim) | tracewarp sequential | ROOT-Sim sequential | tracewarp 2 ranks, optimistic | tracewarp 2 ranks, conservative | ROOT-Sim 2 threads |"
echo "|---|---|---|---|---|---|---|---|"
for size in ${SIZES:-1024:1000 16384:60 131072:8 1048576:2}; do
  lps=${size%%:*} end=${size##*:}
  tws=() rss=() two=() twc=() rsp=()
  for _ in $(seq "$reps"); do
    out=$("$tw" $P --lps "$lps" --end "$end"); tws+=("$(rate <<<"$out")"); twn=$(count <<<"$out")
    out=$("$work/phold" "$lps" "$end" 0 2>/dev/null); rss+=("$(rate <<<"$out")"); rsn=$(count <<<"$out")
    two+=("$($mpi "$tw" $P --lps-per-rank $((lps / 2)) --end "$end" --sync optimistic | rate)")
    twc+=("$($mpi "$tw" $P --lps-per-rank $((lps / 2)) --end "$end" --sync conservative | rate)")
    out=$("$work/phold" "$lps" "$end" 2 2>/dev/null); rsp+=("$(rate <<<"$out")")
    [ "$(count <<<"$out")" = "$rsn" ] || echo "ROOT-Sim: 2 threads committed $(count <<<"$out"), serial $rsn" >&2
  done
  echo "| $lps | $end | $twn / $rsn | $(median "${tws[@]}") | $(median "${rss[@]}") | $(median "${two[@]}") | $(median "${twc[@]}") | $(median "${rsp[@]}") |"
done
