#!/usr/bin/env bash
# compete_t200.sh - issue 12's acceptance tournaments: 200 games at
# seconds=1 per move, one thread each, compete against grave and uct on five
# games, threads=2 against threads=1, and the ablations (local
# `ggp tournament`, seats alternating game by game). Each pairing has its own
# seed and CSV and runs with --resume, so the script can be stopped and
# started again, and a finished pairing costs nothing. Time per move is
# what is compared: give each run a core of its own (CORE below) and start
# nothing else at equal priority on it (see bench/results/compete.md on
# autogroups). The ponder ablation needs idle time between requests, which a
# local tournament has not: bench/compete_http.sh with B=compete:ponder=off.
#
# usage: bench/compete_t200.sh CORE [TAG...]   (no TAG: every pairing in order)
# env:   GGP=build/release/player/ggp  OUT=bench/results/compete  GAMES=200
#        SHARED=../shared/games
# tags:  c4_uct c4_grave bt_uct bt_grave hex7_uct hex7_grave oth_uct oth_grave
#        c4sim_uct c4sim_grave c4_threads (needs CORE and the next core free)
#        c4_nosolver c4_noreuse
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
GGP=${GGP:-$here/build/release/player/ggp}
OUT=${OUT:-$here/bench/results/compete}
GAMES=${GAMES:-200}
SHARED=${SHARED:-$here/../shared/games}
[ $# -ge 1 ] && [[ "$1" =~ ^[0-9]+$ ]] || { echo "usage: bench/compete_t200.sh CORE [TAG...]" >&2; exit 2; }
core=$1
shift
[ -x "$GGP" ] || { echo "compete_t200.sh: no ggp binary at $GGP (build first)" >&2; exit 2; }
mkdir -p "$OUT"

C=compete:seconds=1,threads=1
# tag game a b seed csv-name: the CSV names and seeds of the runs already in
# bench/results/compete (connectFour vs uct was run in two shards, merged).
pairings=(
  "c4_uct $SHARED/connectFour.kif $C uct:seconds=1 81 t200_connectFour_uct_1s"
  "hex7_grave $here/games/hex7.kif $C grave:seconds=1 82 t200_hex7_grave_1s"
  "c4_grave $SHARED/connectFour.kif $C grave:seconds=1 83 t200_connectFour_grave_1s"
  "bt_uct $SHARED/breakthrough.kif $C uct:seconds=1 84 t200_breakthrough_uct_1s"
  "bt_grave $SHARED/breakthrough.kif $C grave:seconds=1 85 t200_breakthrough_grave_1s"
  "hex7_uct $here/games/hex7.kif $C uct:seconds=1 86 t200_hex7_uct_1s"
  "oth_uct $here/games/othello.kif $C uct:seconds=1 87 t200_othello_uct_1s"
  "oth_grave $here/games/othello.kif $C grave:seconds=1 88 t200_othello_grave_1s"
  "c4sim_uct $SHARED/connectFourSimultaneous.kif $C uct:seconds=1 89 t200_connectFourSimultaneous_uct_1s"
  "c4sim_grave $SHARED/connectFourSimultaneous.kif $C grave:seconds=1 90 t200_connectFourSimultaneous_grave_1s"
  "c4_threads $SHARED/connectFour.kif compete:seconds=1,threads=2 $C 96 t200_connectFour_threads2_vs_1_1s"
  "c4_nosolver $SHARED/connectFour.kif $C $C,solver=off 97 t200_connectFour_nosolver_1s"
  "c4_noreuse $SHARED/connectFour.kif $C $C,reuse=off 98 t200_connectFour_noreuse_1s"
)

want() { # tag: run it?
  [ ${#tags[@]} -eq 0 ] && return 0
  local t
  for t in "${tags[@]}"; do [ "$t" = "$1" ] && return 0; done
  return 1
}
tags=("$@")
for t in "${tags[@]}"; do
  printf '%s\n' "${pairings[@]}" | grep -q "^$t " || { echo "compete_t200.sh: unknown tag $t" >&2; exit 2; }
done

for p in "${pairings[@]}"; do
  read -r tag game a b seed name <<<"$p"
  want "$tag" || continue
  cpus=$core
  [ "$tag" = c4_threads ] && cpus="$core,$((core + 1))" # threads=2 searches on two cores
  csv=$OUT/$name.csv
  if [ "$tag" = c4_uct ] && [ -f "$OUT/$name.s0.csv" ]; then
    echo "$tag: done in shards, merged into $csv" >&2
    continue
  fi
  echo "$tag: $a vs $b on $(basename "$game"), $GAMES games, seed $seed -> $csv" >&2
  taskset -c "$cpus" "$GGP" tournament "$game" --a "$a" --b "$b" --games "$GAMES" --jobs 1 --seed "$seed" \
    --csv "$csv" --resume | tail -1
done
