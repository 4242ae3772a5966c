#!/usr/bin/env bash
# Build the libFuzzer targets with clang and run each for a bounded time.
# Fails on any crash, leak or sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)"
shopt -s nullglob
targets=(build/fuzz/tests/fuzz/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then echo "fuzz: no targets built"; exit 1; fi
for t in "${targets[@]}"; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  corpus=build/fuzz/corpus/$name
  mkdir -p "$corpus"
  seeds=tests/fuzz/seeds/${name#fuzz_}
  echo "fuzz: $name for ${secs}s"
  "$t" -max_total_time="$secs" -max_len=65536 -timeout=30 -rss_limit_mb=2048 \
       "$corpus" ${seeds:+$( [ -d "$seeds" ] && echo "$seeds" )} 2>&1 | tail -n 3
done
