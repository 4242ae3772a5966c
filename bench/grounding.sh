#!/usr/bin/env bash
# bench/grounding.sh - which games the propnet grounds within the default
# grounding budget (10 s, then the circuit build up to 15 s; 2 GB), and why
# the others do not (issue 17 item 2). Runs `ggp bench G --engine propnet`
# on every game of ../shared/games and prints a Markdown table (to stdout),
# then the count. Not a test: load times depend on the machine and its load.
# The tries column: the compiles of the rules the grounding needed
# (ground_tries: one more per relation measured too big, rule whose
# variables are eliminated, or view asked on demand).
#
# usage: bench/grounding.sh
# env:   GGP=path/to/ggp (default build/release/player/ggp, built if missing)
#        GAMES="chess racer ..." to change the set (default: every game)
set -euo pipefail
cd "$(dirname "$0")/.."
ggp=${GGP:-build/release/player/ggp}
if [ ! -x "$ggp" ]; then
  cmake --preset release >/dev/null && cmake --build --preset release -j"$(nproc)" --target ggp >/dev/null
fi
shared=${GGP_SHARED:-../shared}
if [ -n "${GAMES:-}" ]; then
  games=$GAMES
else
  games=$(for f in "$shared"/games/*.kif; do basename "$f" .kif; done)
fi

echo "| game | grounds | load ms | tries | props | gates | RSS KB | why not |"
echo "|---|---|---:|---:|---:|---:|---:|---|"
n=0
n_ok=0
for g in $games; do
  f=$shared/games/$g.kif
  n=$((n + 1))
  if [ ! -f "$f" ]; then echo "| $g | (missing) | | | | | | |"; continue; fi
  # --load-ms leaves the grounding its default 10 s (half the load budget
  # is the most it gets); a bench of 0.1 s once grounded.
  out=$(timeout 120 "$ggp" bench "$f" --engine propnet --seconds 0.1 --load-ms 30000 --quiet 2>&1 || true)
  line=$(grep '^bench ' <<<"$out" || true)
  if [ -n "$line" ]; then
    get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
    echo "| $g | yes | $(get load_ms) | $(get ground_tries) | $(get props) | $(get gates) | $(get rss_kb) | |"
    n_ok=$((n_ok + 1))
  else
    why=$(sed -n 's/.*cannot build a propositional network: //p' <<<"$out" | head -1 | sed "s|$shared/games/||g; s/|/\\\\|/g")
    echo "| $g | no | | | | | | ${why:-$(tail -1 <<<"$out")} |"
  fi
done
echo
echo "$n_ok of $n games ground."
