#!/usr/bin/env bash
# Builds the SWF reader's libFuzzer target with clang (ASan + UBSan) and fuzzes it for the given
# number of seconds (default 60), starting from fuzz/corpus/swf. New inputs go to build-fuzz/corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
command -v clang++ >/dev/null || { apt-get update -qq && apt-get install -y -qq clang; }
mkdir -p build-fuzz/corpus
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude \
  fuzz/swf_fuzzer.cpp src/io/swf.cpp src/io/line_reader.cpp src/core/error.cpp -lz -o build-fuzz/swf_fuzzer
./build-fuzz/swf_fuzzer -max_total_time="$seconds" -max_len=4096 -timeout=5 build-fuzz/corpus fuzz/corpus/swf
