#!/usr/bin/env bash
# soak.sh - does `ggp serve` answer the game manager on time, match after
# match, while hostile clients hold hundreds of connections open (issue 13)?
# Not a unit test: it runs for minutes.
#
# Two `ggp serve` players on loopback play N consecutive matches of a small
# bundled game driven by `ggp match`, while bench/hostile.py holds HOSTILE
# connections against both (idle, slowloris, half-sent bodies; each one the
# server drops is opened again). After each match it prints the late
# replies (TO in the record's errors, §5.4: must be 0), any other errors
# (CE, IL), the RSS of each player (VmRSS: must stay flat) and the hostile
# connections' counts. Exit status 1 if any reply was late or wrong.
#
# usage: bench/soak.sh [N]            (from the source tree, after a build)
# env:   MATCHES=100 (N)  GGP=build/release/player/ggp  GAME=games/tictactoe.kif
#        STARTCLOCK=2 PLAYCLOCK=1 GRACE=500 MARGIN=500 PLAYER=grave
#        HOSTILE=600 (bounded by ulimit -n)  KEEP=1 (keep logs and records)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
GGP=${GGP:-$here/build/release/player/ggp}
[ -x "$GGP" ] || GGP=$here/build/dev/player/ggp
GAME=${GAME:-$here/games/tictactoe.kif}
N=${1:-${MATCHES:-100}}
STARTCLOCK=${STARTCLOCK:-2}
PLAYCLOCK=${PLAYCLOCK:-1}
GRACE=${GRACE:-500}
MARGIN=${MARGIN:-500}
PLAYER=${PLAYER:-grave}
HOSTILE=${HOSTILE:-600}

[ -x "$GGP" ] || { echo "soak.sh: no ggp binary at $GGP (build first)" >&2; exit 2; }
[ -r "$GAME" ] || { echo "soak.sh: no game at $GAME" >&2; exit 2; }
[[ "$N" =~ ^[0-9]+$ ]] && ((N >= 1 && N <= 10000)) || { echo "soak.sh: N must be 1..10000" >&2; exit 2; }
"$GGP" match --help >/dev/null 2>&1 || { echo "soak.sh: ggp was built without 'ggp match'" >&2; exit 2; }

# The hostile helper's sockets come out of this shell's descriptor limit;
# keep 100 for everything else. (The players raise their own.)
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fds=$(ulimit -n)
if [ "$fds" != unlimited ] && ((HOSTILE > fds - 100)); then
    HOSTILE=$((fds > 200 ? fds - 100 : 100))
    echo "soak.sh: ulimit -n is $fds: $HOSTILE hostile connections"
fi

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # $tmp, $pids, the exit trap

# Not in a $(...) subshell: the pid must reach the cleanup list.
start_player() { # name -> sets PORT, PID
    local name=$1
    "$GGP" serve --port 0 --bind 127.0.0.1 --player "$PLAYER" --margin-ms "$MARGIN" \
        --name "$name" --log "$tmp/$name.log" >"$tmp/$name.out" 2>&1 &
    PID=$!
    pids+=("$PID")
    for ((t = 0; t < 100; t++)); do
        if grep -q 'listening on' "$tmp/$name.out" 2>/dev/null; then
            PORT=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$tmp/$name.out")
            return
        fi
        sleep 0.1
    done
    echo "soak.sh: player $name did not start:" >&2
    cat "$tmp/$name.out" >&2
    exit 2
}

rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status" 2>/dev/null || echo '?'; }

start_player p1
port1=$PORT pid1=$PID
start_player p2
port2=$PORT pid2=$PID

# The hostile clients, bounded in time too (a generous 60 s a match).
python3 "$here/bench/hostile.py" --count "$HOSTILE" --seconds $((N * 60 + 60)) \
    --status "$tmp/hostile.status" "$port1" "$port2" >"$tmp/hostile.out" 2>&1 &
pids+=($!)
for ((t = 0; t < 200; t++)); do
    grep -q 'holding' "$tmp/hostile.out" 2>/dev/null && break
    sleep 0.1
done
grep -q 'holding' "$tmp/hostile.out" || { echo "soak.sh: hostile.py did not open its connections" >&2; cat "$tmp/hostile.out" >&2; exit 2; }
echo "soak: $N matches of $(basename "$GAME") (start ${STARTCLOCK}s, play ${PLAYCLOCK}s, grace ${GRACE}ms)," \
    "$HOSTILE hostile connections; players pid $pid1 (port $port1), $pid2 (port $port2)"
echo "soak: RSS before the first match: p1 $(rss_kb "$pid1") kB, p2 $(rss_kb "$pid2") kB"

late_total=0 bad_total=0 failed=0
rss1_first='' rss2_first=''
for ((m = 1; m <= N; m++)); do
    rec=$tmp/match$m.json
    if ! timeout 300 "$GGP" match "$GAME" --startclock "$STARTCLOCK" --playclock "$PLAYCLOCK" \
        --grace-ms "$GRACE" --out "$rec" "http://127.0.0.1:$port1/" "http://127.0.0.1:$port2/" \
        >"$tmp/match$m.out" 2>&1; then
        failed=$((failed + 1))
        echo "match $m: ggp match failed: $(tail -n 1 "$tmp/match$m.out")"
        continue
    fi
    # The errors array (§5.7): "" for a good reply, TO, CE or "IL ...".
    read -r late bad < <(python3 -c '
import json, sys
errs = [e for row in json.load(open(sys.argv[1]))["errors"] for e in row]
print(sum(e == "TO" for e in errs), sum(e not in ("", "TO") for e in errs))' "$rec")
    late_total=$((late_total + late)) bad_total=$((bad_total + bad))
    r1=$(rss_kb "$pid1") r2=$(rss_kb "$pid2")
    [ -n "$rss1_first" ] || { rss1_first=$r1; rss2_first=$r2; }
    echo "match $m: $(tail -n 1 "$tmp/match$m.out"); late $late, other errors $bad;" \
        "RSS p1 $r1 kB, p2 $r2 kB; hostile $(cat "$tmp/hostile.status" 2>/dev/null || echo '?')"
done

echo "soak: $N matches, $failed failed; late replies $late_total, other errors $bad_total;" \
    "RSS p1 $rss1_first -> $(rss_kb "$pid1") kB, p2 $rss2_first -> $(rss_kb "$pid2") kB (after match 1 -> now)"
((late_total == 0 && bad_total == 0 && failed == 0))
