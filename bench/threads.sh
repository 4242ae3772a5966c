#!/bin/sh
# threads.sh - tree-parallel scaling of compete (issue 12, item 4).
#
# usage: bench/threads.sh GAME.kif [SECONDS [RUNS [BIN]]]
#
# For seeds 1..RUNS, plays GAME with compete:seconds=SECONDS,threads=T
# against random for T = 1 then 2 (interleaved, so drift hits both), and
# prints the mean playouts of compete's first four searches, then the
# ratio of the means (T=2 / T=1). Run it on a quiet machine: it measures
# wall-clock throughput.
set -eu
G=${1:?usage: bench/threads.sh GAME.kif [SECONDS [RUNS [BIN]]]}
S=${2:-1}
N=${3:-4}
B=${4:-build/release/player/ggp}
for i in $(seq "$N"); do
    for t in 1 2; do
        p=$("$B" play "$G" --engine propnet --player "compete:seconds=$S,threads=$t" --player random \
            --verbose --seed "$i" 2>&1 | grep 'playouts=' | head -4 |
            sed 's/.*playouts=\([0-9]*\).*/\1/' | awk '{s += $1} END {printf "%.0f", s / NR}')
        echo "run=$i threads=$t mean_playouts_per_search=$p"
    done
done | awk '{print} {split($2, a, "="); split($3, b, "="); s[a[2]] += b[2]; n[a[2]]++}
    END {printf "ratio T=2/T=1: %.2f\n", (s[2] / n[2]) / (s[1] / n[1])}'
