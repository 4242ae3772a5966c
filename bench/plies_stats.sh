#!/usr/bin/env bash
# bench/plies_stats.sh - what a propnet ply's propagation does, counted
# (deterministic, as bench/plies.sh's instructions): events popped, counter
# edges followed, gates flipped by a counter, wasted flips ((flips - net) /
# flips, where net counts the gates a propagation left changed: a gate
# that goes on and back off counts 2) and dead AND edges (into an AND that
# another input, a false state bit, holds false: work that a skipping
# scheme could save). Not counted: the mutex tables' edges and flips, the
# cyclic groups' recounts and the universe gates (hex's tables: about 9%
# more flips). Builds the reasoner with GGP_PN_STATS (counters in
# propnet_circuit_run.c; build/stats) and bench/plies.c against it, runs
# N seed-1 playouts per game. Prints a Markdown table. Not a test.
# bench/results/propnet_shape_groups.md reads it.
#
# usage: bench/plies_stats.sh
# env:   GAMES="checkersTorus:30 ..." (game:playouts; a game is a corpus
#        name or a path to a .kif) to change the set
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
  case $g in */*) f=$g; g=$(basename "$g" .kif) ;; esac
  if [ ! -f "$f" ]; then echo "| $g | (missing) | | | | | | |"; continue; fi
  if ! res=$("$bin" "$f" "$n" propnet 2>&1); then
    echo "| $g | $n | failed: $(tail -1 <<<"$res") | | | | | |"
    continue
  fi
  # one pn_stats line per run freed (bench/plies.c frees one); the most pops if several
  st=$(grep '^pn_stats' <<<"$res" | sort -t= -k3 -n | tail -1 || true)
  plies=$(sed -n 's/.*plies=\([0-9]*\).*/\1/p' <<<"$res")
  if [ -z "$st" ] || [ -z "$plies" ] || [ "$plies" -eq 0 ]; then
    echo "| $g | $n | ${plies:-?} | no counts (a build without GGP_PN_STATS?) | | | | |"
    continue
  fi
  get() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$st"; }
  awk -v g="$g" -v n="$n" -v p="$plies" -v pops="$(get pops)" -v e="$(get edges)" -v fl="$(get flips)" \
      -v net="$(get net)" -v d="$(get dead_and_edges)" 'BEGIN {
    printf "| %s | %d | %d | %.1f | %.1f | %.1f | %.1f%% | %.1f%% |\n", g, n, p, pops / p, e / p, fl / p,
      fl ? 100 * (fl - net) / fl : 0, e ? 100 * d / e : 0 }'
done
