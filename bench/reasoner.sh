#!/usr/bin/env bash
# bench/reasoner.sh - the reasoner benchmark of issue "Reasoner speed": runs
# `ggp bench` on the bench set from ../shared/games and prints a Markdown
# table (to stdout). Not a test: figures depend on the machine and its load.
#
# usage: bench/reasoner.sh [SECONDS] [ENGINE]   (defaults: 5, auto)
# env:   GGP=path/to/ggp (default build/release/player/ggp, built if missing)
#        GAMES="ticTacToe connectFour ..." to change the set
#        LANES=1: `ggp bench --lanes`, the propnet's playouts side by side
#        RUNS=N runs per game, the best kept (default 3): on a shared VM the
#        same binary varies by up to a third between runs (other tenants
#        only ever slow a run down), so the best run is the code's speed
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
engine=${2:-auto}
ggp=${GGP:-build/release/player/ggp}
if [ ! -x "$ggp" ]; then
  cmake --preset release >/dev/null && cmake --build --preset release -j"$(nproc)" >/dev/null
fi
shared=${GGP_SHARED:-../shared}
games=${GAMES:-"ticTacToe connectFour breakthrough knightThrough pentago hex checkers othello-comp2007 reversi speedChess chess amazons nineBoardTicTacToe sheepAndWolf eightPuzzle 3pConnectFour gt_prisoner"}

lanes=()
[ -n "${LANES:-}" ] && lanes=(--lanes)
echo "| game (best of ${RUNS:-3}) | engine | load ms | playouts/s | playouts/CPU-s | mean depth | props | gates | RSS KB | lanes |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for g in $games; do
  f=$shared/games/$g.kif
  if [ ! -f "$f" ]; then echo "| $g | (missing) | | | | | | | | |"; continue; fi
  # A game that cannot reach a playout in time is reported, not fatal.
  line=
  for _ in $(seq "${RUNS:-3}"); do
    l=$(timeout $((secs * 3 + 60)) "$ggp" bench "$f" --seconds "$secs" --engine "$engine" "${lanes[@]}" --quiet 2>/dev/null | grep '^bench ' || true)
    [ -n "$l" ] || continue
    if [ -z "$line" ] || awk -v a="$(sed -n 's/.* playouts_per_cpu_sec=\([^ ]*\).*/\1/p' <<<"$l")" \
        -v b="$(sed -n 's/.* playouts_per_cpu_sec=\([^ ]*\).*/\1/p' <<<"$line")" 'BEGIN { exit !(a > b) }'; then
      line=$l
    fi
  done
  if [ -z "$line" ]; then echo "| $g | - | timeout | | | | | | | |"; continue; fi
  get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
  echo "| $g | $(get engine) | $(get load_ms) | $(get playouts_per_sec) | $(get playouts_per_cpu_sec) | $(get mean_depth) | $(get props) | $(get gates) | $(get rss_kb) | $(get lanes) |"
done
