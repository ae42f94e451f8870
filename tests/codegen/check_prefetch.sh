#!/usr/bin/env bash
# The kernels prefetch the events and LPs they will run a few events ahead (prefetch_upcoming in
# src/engine/event_queue.hpp). GCC 12 once deleted every such prefetch of two kernels without a
# word — the code looked right and the 1 M-LP PHOLD ran at half speed (docs/performance.md) — so
# this reads the built binary: each kernel must still hold prefetch instructions.
#   check_prefetch.sh OBJDUMP TRACEWARP_BINARY
set -euo pipefail
objdump=$1
binary=$2
"$objdump" -d -C --no-show-raw-insn "$binary" | awk '
  /^[0-9a-f]+ <.*>:$/ { function_name = tolower($0) }
  /prefetch/ {
    if (function_name ~ /sequential/) sequential++
    if (function_name ~ /optimistic/) optimistic++
    if (function_name ~ /conservative/) conservative++
  }
  END {
    printf "prefetch instructions in the kernels: sequential %d, optimistic %d, conservative %d\n",
           sequential, optimistic, conservative
    if (sequential < 3 || optimistic < 3 || conservative < 3) {
      print "a kernel lost its prefetches (see prefetch_upcoming in src/engine/event_queue.hpp)"
      exit 1
    }
  }'
