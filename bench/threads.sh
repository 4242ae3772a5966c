#!/bin/sh
# threads.sh - tree-parallel scaling of compete (issue 12, item 4).
#
# usage: bench/threads.sh GAME.kif [SECONDS [RUNS [BIN]]]
#
# For seeds 1..RUNS, runs compete:seconds=SECONDS,threads=T's first search
# (from the initial state, so T=1 and T=2 search the same position; later
# searches would not, their games diverge) for T = 1 then 2, interleaved so
# that drift hits both, and prints each run's playouts, then the means,
# the medians and their ratios (T=2 / T=1). Run it on a quiet machine: it
# measures wall-clock throughput. Two workers now and then fall into a slow
# mode for a whole search (both on one path, their statistics' cache lines
# bouncing: perf shows descend, backup and AMAF reads growing), and on a
# shared virtual machine T=2 needs both CPUs at once: the median is the
# steadier figure; repeat the script minutes apart.
set -eu
G=${1:?usage: bench/threads.sh GAME.kif [SECONDS [RUNS [BIN]]]}
S=${2:-1}
N=${3:-10}
B=${4:-build/release/player/ggp}
for i in $(seq "$N"); do
    for t in 1 2; do
        # The first search's report; the game is cut short once it is out.
        p=$(timeout "$(awk "BEGIN {print $S * 3 + 2}")" stdbuf -oL -eL "$B" play "$G" --engine propnet \
            --player "compete:seconds=$S,threads=$t" --player random --verbose --seed "$i" 2>&1 |
            grep -m1 'playouts=' | sed 's/.*playouts=\([0-9]*\).*/\1/') || true
        echo "run=$i threads=$t playouts=${p:-0}"
    done
done | awk '{print} {split($2, a, "="); split($3, b, "="); t = a[2]; s[t] += b[2]; v[t, ++n[t]] = b[2]}
    function median(t,    i, j, x) { # insertion sort of v[t, 1..n[t]]
        for (i = 2; i <= n[t]; i++) for (j = i; j > 1 && v[t, j - 1] > v[t, j]; j--) { x = v[t, j]; v[t, j] = v[t, j - 1]; v[t, j - 1] = x }
        return n[t] % 2 ? v[t, (n[t] + 1) / 2] : (v[t, n[t] / 2] + v[t, n[t] / 2 + 1]) / 2 }
    END {m1 = median(1); m2 = median(2)
        printf "mean T=1 %.0f T=2 %.0f ratio %.2f; median T=1 %.0f T=2 %.0f ratio %.2f\n", s[1] / n[1], s[2] / n[2], (s[2] / n[2]) / (s[1] / n[1]), m1, m2, m2 / m1}'
