#!/usr/bin/env bash
# bench/search_cost.sh - the search's cost (issue 12, item 7): playouts per
# CPU-second of one search from the initial state against the reasoner's
# raw random playouts (`ggp bench`'s definition), and instructions per
# playout under callgrind (deterministic: the same count whatever the load,
# so changes can be compared on a busy machine). Builds bench/plies.c
# against the release libraries. Prints a Markdown table. Not a test.
#
# usage: bench/search_cost.sh [SPEC...]   (default: grave, compete, uct)
#   each SPEC gets playouts=P,threads=1 appended (P from GAMES)
# env:   GAMES="connectFour:100000 breakthrough:20000" (game:playouts; a
#        corpus game, or go5 .. go19 for the native Go)
#        BUILD=build/release   CG=0 (skip callgrind)   RUNS=3 (best of)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build/release}
shared=${GGP_SHARED:-../shared}
games=${GAMES:-"connectFour:100000 breakthrough:20000"}
runs=${RUNS:-3}
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(grave compete uct)
. bench/plies_lib.sh

# best (highest) playouts_per_cpu_sec of RUNS runs; $1.. the plies arguments
best_rate() {
  local best=0 t
  for _ in $(seq "$runs"); do
    t=$("$bin" "$@" 2>&1 >/dev/null | sed -n 's/.*playouts_per_cpu_sec=\([0-9]*\).*/\1/p')
    [ "${t:-0}" -gt "$best" ] && best=$t
  done
  echo "$best"
}
# instructions per playout inside function $1; $2 playouts; $3.. the plies arguments
instr() {
  local fn=$1 n=$2
  shift 2
  [ "${CG:-1}" = 0 ] && { echo "-"; return; }
  valgrind --tool=callgrind --toggle-collect="$fn" --callgrind-out-file="$out" "$bin" "$@" >/dev/null 2>&1
  echo $(($(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$out") / n))
}

echo "| game | searcher | playouts | per CPU-second | of raw | instructions per playout | bytes per node |"
echo "|---|---|---:|---:|---:|---:|---:|"
for gn in $games; do
  g=${gn%%:*}; n=${gn##*:}
  f=$shared/games/$g.kif
  [[ $g =~ ^go[0-9]+$ ]] && f=$g # a native game (bench/plies.c), no options
  [ -f "$f" ] || [ "$f" = "$g" ] || { echo "| $g | (missing) | | | | | |"; continue; }
  raw=$(best_rate "$f" "$n" propnet)
  echo "| $g | raw playouts | $n | $raw | 100% | $(instr run_playouts "$n" "$f" "$n" propnet) | |"
  for s in "${specs[@]}"; do
    spec="$s,playouts=$n,threads=1"
    [[ $s == *:* ]] || spec="$s:playouts=$n,threads=1"
    rate=$(best_rate "$f" "$n" propnet "$spec")
    bpn=$("$bin" "$f" "$n" propnet "$spec" 2>&1 >/dev/null | sed -n 's/.*bytes_per_node=\([0-9]*\).*/\1/p')
    pct=$(awk "BEGIN {printf \"%.0f%%\", 100 * $rate / $raw}")
    echo "| $g | \`$s\` | $n | $rate | $pct | $(instr run_search "$n" "$f" "$n" propnet "$spec") | $bpn |"
  done
done
