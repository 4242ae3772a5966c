#!/bin/bash
# compete_runs.sh - the tournaments of bench/results/compete.md (issue 12):
# compete against the baselines and its ablations, seats swapped, local
# (`ggp tournament`). One line per pairing in $OUT/runs.txt, one CSV each.
# usage: bench/compete_runs.sh [SECONDS_PER_MOVE] (default 0.1), from the
# source tree after a release build. env: OUT=out GGP=build/release/player/ggp
set -u
S=${1:-0.1}
OUT=${OUT:-out}
B=${GGP:-build/release/player/ggp}
SH=../shared/games
mkdir -p "$OUT"
run() { # game a b games tag [jobs]
  "$B" tournament "$1" --a "$2" --b "$3" --games "$4" --jobs "${6:-2}" --csv "$OUT/t_$5.csv" 2>/dev/null | tail -1 |
    sed "s|^|$5 |" >> "$OUT/runs.txt"
}
: > "$OUT/runs.txt"
C=compete:seconds=$S
run games/connect4.kif "$C" uct:seconds=$S 100 c4_uct
run games/connect4.kif "$C" grave:seconds=$S 50 c4_grave
run games/breakthrough6.kif "$C" uct:seconds=$S 100 bt6_uct
run games/breakthrough6.kif "$C" grave:seconds=$S 50 bt6_grave
run $SH/connectFourSimultaneous.kif "$C" uct:seconds=$S 50 c4sim_uct
run $SH/connectFourSimultaneous.kif "$C" grave:seconds=$S 40 c4sim_grave
run games/hex7.kif "$C" uct:seconds=$S 40 hex7_uct
run games/hex7.kif "$C" grave:seconds=$S 30 hex7_grave
run games/othello.kif "$C" uct:seconds=$S 40 oth_uct
run games/othello.kif "$C" grave:seconds=$S 30 oth_grave
run games/connect4.kif "$C" "$C,solver=off" 60 c4_nosolver
run games/connect4.kif "$C" "$C,reuse=off" 60 c4_noreuse
run games/breakthrough6.kif "$C,threads=2" "$C" 40 bt6_threads 1
