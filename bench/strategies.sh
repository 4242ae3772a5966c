#!/bin/sh
# strategies.sh - playouts per second of each playout strategy (grave-spec
# §14), against MAST's: uct with P playouts per move and playout=S plays the
# first moves of GAME against random; the mean over its first 6 searches.
# usage: bench/strategies.sh GAME.kif [P]   (uses build/release/player/ggp)
set -eu
game=$1
p=${2:-100}
ggp=${GGP:-build/release/player/ggp}
for s in mast random mobility md eval switch; do
    spec="uct:playouts=$p,playout=$s"
    [ "$s" = switch ] && spec="$spec,strategies=random,mobility,md,eval"
    "$ggp" play "$game" --player "$spec" --player random --verbose --seed 1 2>&1 |
        grep "playouts=$p " | head -6 |
        awk -v g="$(basename "$game" .kif)" -v s="$s" -v p="$p" '
            { for (i = 1; i <= NF; i++) if ($i ~ /^time=/) { sub("time=", "", $i); sub("s", "", $i); t += $i } n++ }
            END { printf "%s %-8s searches=%d playouts_per_sec=%.0f\n", g, s, n, n * p / t }'
done
