#!/usr/bin/env bash
# bench/startup.sh - start-up of every game of ../shared/games (issue
# "Reasoner speed": every game reaches its first playout within 20 s with
# `--engine auto`). For each game, `ggp bench` loads the rules and plays;
# first_playout_ms is the time from the start of loading to the end of the
# first random playout. Prints a Markdown table and a summary line. Not a
# test: figures depend on the machine and its load.
#
# usage: bench/startup.sh [LIMIT_S] [ENGINE]   (defaults: 20, auto)
# env:   GGP=path/to/ggp (default build/release/player/ggp, built if missing)
#        GAMES="ticTacToe chess ..." to change the set (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-20}
engine=${2:-auto}
ggp=${GGP:-build/release/player/ggp}
if [ ! -x "$ggp" ]; then
  cmake --preset release >/dev/null && cmake --build --preset release -j"$(nproc)" >/dev/null
fi
shared=${GGP_SHARED:-../shared}
games=${GAMES:-$(ls "$shared"/games/*.kif | sed 's|.*/||; s|\.kif$||')}

echo "| game | engine | load ms | first playout ms | within ${limit} s |"
echo "|---|---|---:|---:|---|"
n=0 ok=0
for g in $games; do
  n=$((n + 1))
  f=$shared/games/$g.kif
  # Killed at 3x the limit: what matters is whether it made the limit.
  line=$(timeout $((limit * 3)) "$ggp" bench "$f" --seconds 0.01 --engine "$engine" --quiet 2>/dev/null | grep '^bench ' || true)
  if [ -z "$line" ]; then echo "| $g | - | | > $((limit * 3)) s or failed | no |"; continue; fi
  get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
  first=$(get first_playout_ms)
  within=no
  if awk -v f="$first" -v l="$limit" 'BEGIN { exit !(f > 0 && f <= l * 1000) }'; then within=yes; ok=$((ok + 1)); fi
  echo "| $g | $(get engine) | $(get load_ms) | $first | $within |"
done
echo
echo "startup games=$n within_limit=$ok limit_s=$limit engine=$engine"
