#!/usr/bin/env bash
# run_list.sh - play the tournaments of a list (bench/lists/*.txt), each
# pinned to its cores and resumable: every line has its own seed and CSV
# and runs with --resume, so the list can be stopped and started again and
# a finished tournament costs nothing. One line per tournament: its result.
#
#   bench/lists/compete_t200.txt  issue 12: compete at 1 s per move, 200 games
#   bench/lists/go_table1.txt     issue 15: the GRAVE paper's Go 9x9 points
#
# usage: bench/run_list.sh LIST CORE [TAG...]   (no TAG: every line in order)
#   CORE: the first core to pin to (a line needing 2 cores takes CORE and CORE+1)
# env:   GGP=build/release/player/ggp  OUT=bench/results  GAMES=(the list's "# games: N")
#        SHARED=../shared/games (for games written shared:NAME.kif)
# On a cluster, the same tournament sharded: bench/slurm/submit.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
GGP=${GGP:-$here/build/release/player/ggp}
OUT=${OUT:-$here/bench/results}
SHARED=${SHARED:-$here/../shared/games}
if [ $# -lt 2 ] || [ ! -f "$1" ] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: bench/run_list.sh LIST CORE [TAG...]" >&2
  exit 2
fi
list=$1
core=$2
shift 2
[ -x "$GGP" ] || { echo "run_list.sh: no ggp binary at $GGP (build first)" >&2; exit 2; }
# the list's own game count: a line "# games: N" (default 100)
listed=$(sed -n 's/^# games: *\([0-9][0-9]*\) *$/\1/p' "$list" | head -1)
games=${GAMES:-${listed:-100}}
lines=$(grep -v '^#' "$list" | grep -v '^[[:space:]]*$')
for t in "$@"; do
  grep -q "^$t " <<<"$lines" || { echo "run_list.sh: no line $t in $list" >&2; exit 2; }
done

status=0
while read -r tag game a b seed csv cores; do
  if [ $# -gt 0 ]; then
    found=
    for t in "$@"; do [ "$t" = "$tag" ] && found=1; done
    [ -n "$found" ] || continue
  fi
  case $game in
    shared:*) game=$SHARED/${game#shared:} ;;
    /*) ;;
    */*) game=$here/$game ;;
  esac
  cpus=$core
  [ "$cores" -ge 2 ] && cpus="$core-$((core + cores - 1))"
  mkdir -p "$(dirname "$OUT/$csv")"
  echo "$tag: $a vs $b on $(basename "$game"), $games games, seed $seed, cores $cpus -> $OUT/$csv" >&2
  # a tournament with failed games (status 1) or an error does not stop
  # the list: the next lines still run (set -e would end it here for good,
  # since --resume keeps failed rows and stops at the same line again)
  rc=0
  taskset -c "$cpus" "$GGP" tournament "$game" --a "$a" --b "$b" --games "$games" --jobs 1 --seed "$seed" \
    --csv "$OUT/$csv" --resume </dev/null | tail -1 | sed "s/^/$tag /" || rc=$?
  [ "$rc" -eq 0 ] || echo "$tag: exit status $rc (failed games or an error); the list goes on" >&2
  status=$((status > rc ? status : rc))
done <<<"$lines"
exit "$status"
