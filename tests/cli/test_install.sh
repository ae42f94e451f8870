#!/usr/bin/env bash
# tracewarp installed as a cluster library is: `cmake --install BUILD --prefix P` into a scratch
# prefix, then everything run from there, away from the source tree: the binary, an installed
# configuration (results identical to the source tree's build), the Python helper imported by
# Debian's python3 from P's dist-packages, an installed plotting script, an installed Python
# policy, the documentation.
#   tests/cli/test_install.sh BUILD PYTHON SRC REFERENCE_TRACEWARP
# With --serial-hdf5 first, BUILD is made here: the source configured against Debian's serial
# HDF5 (libhdf5-dev; exit 77, skipped, without it) and the tracewarp target built.
set -u
serial=0
if [ "${1:-}" = "--serial-hdf5" ]; then serial=1; shift; fi
build=$(realpath "$1"); python="$2"; src=$(realpath "$3"); reference=$(realpath "$4")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=checks.sh
source "$(dirname "$0")/checks.sh"

if [ "$serial" -eq 1 ]; then
  [ -f /usr/include/hdf5/serial/hdf5.h ] || { echo "skipped: no serial HDF5 (libhdf5-dev)"; exit 77; }
  build="$work/build-serial"
  if cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRACEWARP_WERROR=ON \
    -DTRACEWARP_HDF5=serial -DTRACEWARP_BUILD_TESTS=OFF -DTRACEWARP_BUILD_BENCH=OFF \
    -DTRACEWARP_GENERATE_DOCS=OFF >"$work/configure.log" 2>&1 &&
    grep -q "serial build" "$work/configure.log" &&
    cmake --build "$build" -j "$(nproc)" --target tracewarp >"$work/build.log" 2>&1; then
    pass "configured and built against the serial HDF5"
  else
    fail "configure and build against the serial HDF5"; tail -20 "$work/configure.log" "$work/build.log"
    echo "$failures failure(s)"; exit 1
  fi
  if ldd "$build/tracewarp" | grep -q "libhdf5_serial"; then pass "the binary links the serial HDF5"
  else fail "the binary links the serial HDF5"; ldd "$build/tracewarp" | grep hdf5; fi
fi

prefix="$work/prefix"
if cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then pass "cmake --install into $prefix"
else fail "cmake --install"; tail -5 "$work/install.log"; echo "$failures failure(s)"; exit 1; fi

mkdir "$work/elsewhere" && cd "$work/elsewhere" || exit 1
tw="$prefix/bin/tracewarp"
share="$prefix/share/tracewarp"
expect "the installed binary runs" 0 "^tracewarp [0-9]" -- "$tw" --version
# An installed configuration, run from the prefix, holds the same model data as the build's.
config="$share/experiments/phold/sweep.toml"
shorter=(--set phold.lps=64 --set phold.end=10)
"$tw" run "$config" -o installed.h5 -q "${shorter[@]}" || fail "an installed configuration runs"
"$reference" run "$config" -o reference.h5 -q "${shorter[@]}" || fail "the reference build runs"
if "$python" "$src/tests/python/compare_results.py" reference.h5 installed.h5 >cmp.txt 2>&1; then
  pass "results of the installed binary identical to the build's"
else fail "results of the installed binary"; head -5 cmp.txt; fi

# Debian's python3 finds the helper in the prefix's dist-packages (on its path for /usr/local).
site=$(ls -d "$prefix"/lib/python3*/dist-packages 2>/dev/null | head -1)
if [ -n "$site" ] && PYTHONPATH="$site" "$python" -c "
import sys, tracewarp_results as tr
assert tr.__file__.startswith(sys.argv[1]), tr.__file__
r = tr.load('installed.h5')
assert len(r.runs) == 4 and r.complete, r.runs
" "$site"; then pass "import tracewarp_results from the prefix"; else fail "import tracewarp_results from the prefix"; fi
if "$python" "$share/experiments/phold/plot.py" installed.h5 --out figures >/dev/null 2>&1 && ls figures/*.png >/dev/null 2>&1
then pass "an installed plotting script draws"; else fail "an installed plotting script"; fi

# An installed Python policy schedules a generated mix.
printf '[experiment]\nmodel = "batch"\n[workload]\ntrace = "mix.swf"\n[batch]\nnodes = 768\npolicy = "python"\npython_policy = "%s"\n' \
  "$share/examples/policies/sjf_backfill.py" >python.toml
if "$tw" generate kcomputer -o mix.swf --set kmix.days=0.2 --set batch.machine=kcomputer-768 >/dev/null &&
  "$tw" run python.toml -o python.h5 -q && "$tw" report python.h5 >/dev/null; then
  pass "an installed Python policy runs"
else fail "an installed Python policy runs"; fi

for doc in README.md LICENSE CITATION.cff docs/configuration.md docs/README.md; do
  [ -s "$prefix/share/doc/tracewarp/$doc" ] || fail "documentation installed: $doc missing"
done
pass "documentation installed"
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
