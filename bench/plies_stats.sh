#!/usr/bin/env bash
# bench/plies_stats.sh - what a propnet ply's propagation does, counted
# (deterministic, as bench/plies.sh's instructions): events popped, counter
# edges followed, gates flipped, wasted flips (a gate flipped and flipped
# back within one propagation: flips less net changes) and dead AND edges
# (into an AND that another input, a false state bit, holds false: work
# that a skipping scheme could save). Builds the reasoner with
# GGP_PN_STATS (counters in propnet_circuit_run.c; build/stats) and
# bench/plies.c against it. Prints a Markdown table. Not a test.
# bench/results/propnet_shape_groups.md reads it.
#
# usage: bench/plies_stats.sh
# env:   GAMES="checkersTorus:30 ..." (game:playouts) to change the set
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/stats
shared=${GGP_SHARED:-../shared}
games=${GAMES:-"ticTacToe:2000 connectFour:300 breakthrough:100 checkersTorus:30 checkers:30 speedChess:30 reversi:30 hex:30"}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGGP_PN_STATS=ON -DGGP_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target ggp_search ggp_games ggp_reasoner ggp_gdl ggp_base >/dev/null
. bench/plies_lib.sh
echo "| game | playouts | plies | pops/ply | edges/ply | flips/ply | wasted flips | dead AND edges |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for gn in $games; do
  g=${gn%%:*}; n=${gn##*:}
  f=$shared/games/$g.kif
  if [ ! -f "$f" ]; then echo "| $g | (missing) | | | | | | |"; continue; fi
  res=$("$bin" "$f" "$n" propnet 2>&1)
  # one pn_stats line per run freed: the playout context's has the most pops
  st=$(grep '^pn_stats' <<<"$res" | sort -t= -k3 -n | tail -1)
  plies=$(sed -n 's/.*plies=\([0-9]*\).*/\1/p' <<<"$res")
  get() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$st"; }
  awk -v g="$g" -v n="$n" -v p="$plies" -v pops="$(get pops)" -v e="$(get edges)" -v fl="$(get flips)" \
      -v net="$(get net)" -v d="$(get dead_and_edges)" 'BEGIN {
    printf "| %s | %d | %d | %.1f | %.1f | %.1f | %.1f%% | %.1f%% |\n", g, n, p, pops / p, e / p, fl / p,
      fl ? 100 * (fl - net) / fl : 0, e ? 100 * d / e : 0 }'
done
