#!/usr/bin/env bash
# bench/plies.sh - instructions per ply of random playouts (callgrind,
# deterministic: the same plies whatever the load) and CPU time per ply
# (best of 3 runs outside valgrind), per game. Builds bench/plies.c against
# the release libraries. Prints a Markdown table. Not a test.
#
# usage: bench/plies.sh [ENGINE]   (default propnet; lanes: the propnet's
#        playouts 256 side by side, game_playouts, more playouts per game so
#        that the lanes stay full; its AVX2 code where the machine has it,
#        under valgrind too)
# env:   GAMES="ticTacToe:2000 breakthrough:100 ..." (game:playouts) to change the set
#        BUILD=build/release (the libraries to link, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
engine=${1:-propnet}
build=${BUILD:-build/release}
shared=${GGP_SHARED:-../shared}
games=${GAMES:-"ticTacToe:2000 connectFour:300 breakthrough:100 knightThrough:100 pentago:100 hex:30 checkers:10 reversi:10 speedChess:10"}
if [ "$engine" = lanes ] && [ -z "${GAMES:-}" ]; then
  games="ticTacToe:10240 connectFour:5120 breakthrough:2560 knightThrough:2560 pentago:2560 hex:1280 checkers:1280 reversi:1280 speedChess:1280"
fi
. bench/plies_lib.sh
echo "| game | playouts | plies | instructions/ply | ns/ply (CPU) | hash |"
echo "|---|---:|---:|---:|---:|---|"
for gn in $games; do
  g=${gn%%:*}; n=${gn##*:}
  f=$shared/games/$g.kif
  [[ $g =~ ^go[0-9]+$ ]] && f=$g # a native game (bench/plies.c), no options
  if [ ! -f "$f" ] && [ "$f" != "$g" ]; then echo "| $g | (missing) | | | | |"; continue; fi
  res=$(valgrind --tool=callgrind --toggle-collect=run_playouts --callgrind-out-file="$out" "$bin" "$f" "$n" "$engine" 2>/dev/null)
  ir=$(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$out")
  plies=$(sed -n 's/.*plies=\([0-9]*\).*/\1/p' <<<"$res")
  hash=$(sed -n 's/.*hash=\([0-9a-f]*\).*/\1/p' <<<"$res")
  best=
  for _ in 1 2 3; do
    t=$("$bin" "$f" "$n" "$engine" 2>&1 >/dev/null | sed -n 's/.*ns_per_ply=\([0-9.]*\).*/\1/p')
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
  done
  echo "| $g | $n | $plies | $((ir / plies)) | $best | $hash |"
done
