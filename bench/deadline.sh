#!/usr/bin/env bash
# deadline.sh - do `ggp serve` replies meet the play clock on a loaded
# machine? Not a unit test (speed is never asserted there).
#
# Two `ggp serve` players on loopback play matches driven by `ggp match`
# while a busy loop occupies a core, so that the two searches and the loop
# compete for the two cores. Matches are played until MOVES PLAY replies
# (that needed a search) have been answered; then the slowest reply is reported against the clock,
# both as the player measured it (request arrival to reply, its log) and as
# the manager saw it (request sent to reply read, `ggp match --verbose`).
#
# usage: bench/deadline.sh            (from the source tree, after a build)
# env:   GGP=build/release/player/ggp  GAME=../shared/games/connectFour.kif
#        MOVES=200 PLAYCLOCK=1 MARGIN=500 PLAYER=grave BUSY=1 GRACE=1000
#        KEEP=1 (keep the logs and records)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
GGP=${GGP:-$here/build/release/player/ggp}
[ -x "$GGP" ] || GGP=$here/build/dev/player/ggp
GAME=${GAME:-$here/../shared/games/connectFour.kif}
MOVES=${MOVES:-200}
PLAYCLOCK=${PLAYCLOCK:-1}
MARGIN=${MARGIN:-500}
PLAYER=${PLAYER:-grave}
BUSY=${BUSY:-1}
GRACE=${GRACE:-1000}
MAX_MATCHES=${MAX_MATCHES:-100}

[ -x "$GGP" ] || { echo "deadline.sh: no ggp binary at $GGP (build first)" >&2; exit 2; }
[ -r "$GAME" ] || { echo "deadline.sh: no game at $GAME" >&2; exit 2; }

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # $tmp, $pids, the exit trap

# The load: busy loops on BUSY cores.
for ((i = 0; i < BUSY; i++)); do
    (while :; do :; done) &
    pids+=($!)
done

# Not in a $(...) subshell: the pid must reach the cleanup list.
start_player() { # name -> sets URL
    local name=$1
    "$GGP" serve --port 0 --bind 127.0.0.1 --player "$PLAYER" --margin-ms "$MARGIN" \
        --name "$name" --log "$tmp/$name.log" >"$tmp/$name.out" 2>&1 &
    pids+=($!)
    for ((t = 0; t < 100; t++)); do
        if grep -q 'listening on' "$tmp/$name.out" 2>/dev/null; then
            URL="http://127.0.0.1:$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$tmp/$name.out")/"
            return
        fi
        sleep 0.1
    done
    echo "deadline.sh: player $name did not start:" >&2
    cat "$tmp/$name.out" >&2
    exit 2
}

start_player p1
url1=$URL
start_player p2
url2=$URL
roles=$("$GGP" check "$GAME" | sed -n 's/^  roles: //p' | wc -w)
urls=("$url1" "$url2")
while ((${#urls[@]} < roles)); do urls+=("$url1"); done # (two-role games are the point)

# Replies that searched (a forced move is answered at once and says
# "0 playouts"); MOVES counts these.
replies() { cat "$tmp"/p*.log | grep 'kind=play status=200' | grep -vc ': 0 playouts' || true; }

matches=0
while (($(replies) < MOVES && matches < MAX_MATCHES)); do
    matches=$((matches + 1))
    "$GGP" match "$GAME" --startclock 1 --playclock "$PLAYCLOCK" --grace-ms "$GRACE" --seed "$matches" \
        --out "$tmp/m$matches.json" --verbose "${urls[@]:0:$roles}" \
        >"$tmp/m$matches.out" 2>"$tmp/m$matches.err" || true
    printf 'match %d: %s (%d searched replies so far)\n' "$matches" "$(tail -n 1 "$tmp/m$matches.out")" "$(replies)"
done

clock_ms=$((PLAYCLOCK * 1000))
echo
echo "game $(basename "$GAME"), player $PLAYER, playclock ${PLAYCLOCK}s, margin ${MARGIN}ms, $BUSY busy loop(s), $(nproc) cores"
cat "$tmp"/p*.log | grep 'kind=play status=200' | sed 's/.* ms=\([0-9]*\) .*/\1/' | sort -n >"$tmp/server.ms"
cat "$tmp"/m*.err | grep '^play ' | sed 's/^play [0-9]* role [0-9]* ([^)]*): \([0-9]*\) ms .*/\1/' | sort -n >"$tmp/client.ms"
report() { # label file
    local n max p50 p99 over
    n=$(wc -l <"$2")
    [ "$n" -gt 0 ] || { echo "$1: no replies"; return; }
    max=$(tail -n 1 "$2")
    p50=$(sed -n "$(((n + 1) / 2))p" "$2")
    p99=$(sed -n "$(((n * 99 + 99) / 100))p" "$2")
    over=$(awk -v c="$clock_ms" '$1 > c' "$2" | wc -l)
    printf '%s: %d replies, median %d ms, p99 %d ms, slowest %d ms = %.1f%% of the %d ms clock; %d over the clock\n' \
        "$1" "$n" "$p50" "$p99" "$max" "$(awk -v m="$max" -v c="$clock_ms" 'BEGIN { print m * 100 / c }')" "$clock_ms" "$over"
}
report "player side (arrival -> reply)" "$tmp/server.ms"
report "manager side (send -> reply read)" "$tmp/client.ms"
echo "errors recorded by the manager: TO $(cat "$tmp"/m*.json | grep -o '"TO"' | wc -l)," \
    "CE $(cat "$tmp"/m*.json | grep -o '"CE"' | wc -l), IL $(cat "$tmp"/m*.json | grep -o '"IL ' | wc -l)"
echo "slowest on the player side:"
cat "$tmp"/p*.log | grep 'kind=play status=200' | sort -t= -k6 -n | awk -F' ms=' '{ split($2, a, " "); print a[1] "\t" $0 }' |
    sort -n | tail -n 3 | cut -f2- | sed 's/^/  /'
echo "slowest on the manager side:"
cat "$tmp"/m*.err | grep '^play ' | awk -F'): ' '{ split($2, a, " "); print a[1] "\t" $0 }' | sort -n | tail -n 3 |
    cut -f2- | sed 's/^/  /'
echo "fallback moves (search missed the deadline): $(cat "$tmp"/p*.log | grep -c 'missed the deadline' || true)"
