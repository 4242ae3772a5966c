#!/usr/bin/env bash
# compete_http.sh - N matches over HTTP on loopback between two `ggp serve`
# players, each pinned to a core of its own (taskset), roles swapped every
# match: the way compete is judged (issue 12: start and play clocks, one
# core each; pondering uses only its own core). Prints one line per match
# and the score of player A with its Agresti-Coull 95% interval.
#
# usage: bench/compete_http.sh [N]      (from the source tree, after a build)
# env:   GGP=build/release/player/ggp  GAME=games/connect4.kif
#        A=compete  B=uct  STARTCLOCK=10  PLAYCLOCK=2
#        CSV=FILE: each match appended as it ends (match,a_seat,a_value,
#        goals,errors, after a line naming the players and clocks); a run
#        of the same players and clocks on an existing FILE resumes after
#        its last match (hours of matches can be stopped and started again)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
GGP=${GGP:-$here/build/release/player/ggp}
GAME=${GAME:-$here/games/connect4.kif}
N=${1:-${MATCHES:-6}}
A=${A:-compete}
B=${B:-uct}
STARTCLOCK=${STARTCLOCK:-10}
PLAYCLOCK=${PLAYCLOCK:-2}
[ -x "$GGP" ] || { echo "compete_http.sh: no ggp binary at $GGP (build first)" >&2; exit 2; }
[[ "$N" =~ ^[0-9]+$ ]] && ((N >= 1 && N <= 1000)) || { echo "compete_http.sh: N must be 1..1000" >&2; exit 2; }
cores=$(nproc)
ca=0; cb=$((cores > 1 ? 1 : 0))

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # $tmp, $pids, the exit trap

start_player() { # name spec core -> port in $tmp/name.port
    taskset -c "$3" "$GGP" serve --port 0 --bind 127.0.0.1 --player "$2" --name "$1" \
        --log "$tmp/$1.log" >"$tmp/$1.out" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        grep -q listening "$tmp/$1.out" 2>/dev/null && break
        sleep 0.1
    done
    sed -n 's/.*listening on .*:\([0-9]*\)$/\1/p' "$tmp/$1.out" >"$tmp/$1.port"
}

score=0
done_n=0
CSV=${CSV:-}
if [ -n "$CSV" ]; then
    meta="# A=$A B=$B GAME=$(basename "$GAME") STARTCLOCK=$STARTCLOCK PLAYCLOCK=$PLAYCLOCK"
    [ -s "$CSV" ] || printf '%s\n%s\n' "$meta" "match,a_seat,a_value,goals,errors" >"$CSV"
    # a file of other players or clocks is not resumed
    [ "$(head -1 "$CSV")" = "$meta" ] || { echo "compete_http.sh: $CSV is not of this run ($meta)" >&2; exit 2; }
    # the matches already played: their count and A's score
    read -r done_n score < <(awk -F, 'NR > 2 && $1 ~ /^[0-9]+$/ { n++; s += $3 / 100 } END { print n + 0, s + 0 }' "$CSV")
    ((done_n > 0)) && echo "resuming after $done_n matches in $CSV (A: $score)"
fi
start_player a "$A" "$ca"
start_player b "$B" "$cb"
ua="http://127.0.0.1:$(cat "$tmp/a.port")/"
ub="http://127.0.0.1:$(cat "$tmp/b.port")/"

for i in $(seq $((done_n + 1)) "$N"); do
    if ((i % 2)); then first=$ua; second=$ub; seat=0; else first=$ub; second=$ua; seat=1; fi
    out=$(taskset -c "$ca" "$GGP" match "$GAME" --startclock "$STARTCLOCK" --playclock "$PLAYCLOCK" \
        --out "$tmp/m$i.json" "$first" "$second" 2>"$tmp/m$i.err" | tail -1)
    # goals line: 'goals R1=V1 R2=V2'; A's value is field seat+2
    va=$(echo "$out" | awk -v f=$((seat + 2)) '{split($f, kv, "="); print kv[2]}')
    errs=$(grep -c ' TO\| CE\| IL' "$tmp/m$i.err" || true)
    echo "match $i: A seat $seat: $out (error lines: $errs)"
    [ -n "$CSV" ] && echo "$i,$seat,${va:-0},${out#goals },$errs" >>"$CSV"
    score=$(awk -v s="$score" -v v="${va:-0}" 'BEGIN { print s + v / 100 }')
done
awk -v x="$score" -v n="$N" -v a="$A" -v b="$B" 'BEGIN {
    z = 1.959963984540054; nt = n + z * z; pt = (x + z * z / 2) / nt; h = z * sqrt(pt * (1 - pt) / nt);
    lo = pt - h < 0 ? 0 : pt - h; hi = pt + h > 1 ? 1 : pt + h;
    printf "result A=%s B=%s matches=%d score=%.4f ci_low=%.4f ci_high=%.4f\n", a, b, n, x / n, lo, hi }'
