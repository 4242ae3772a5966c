#!/bin/bash
# gnugo.sh - `ggp gtp` against GNU Go (Debian's gnugo, `gnugo --mode gtp`)
# on Go, seats swapped, through bench/gtp_referee.py; prints one line per
# game and ggp's score with its Agresti-Coull interval (docs/gtp.md).
# usage: bench/gnugo.sh [GAMES] [SPEC] [LEVEL] [SIZE] [KOMI], from the source
# tree after a build (defaults: 4 grave:playouts=10000 10 9 7.5). env:
# GGP=build/release/player/ggp (else build/dev), SEED=1, TIME=M,B,S (GTP
# time_settings for both engines; with a SPEC without a budget, ggp's moves
# then take the clock's time), MAX_MOVES=400, SGF_DIR=DIR (each game's
# SGF with both engines' scores and final boards, gtp_referee.py),
# CAPTURE_ALL_DEAD=1 (GNU Go's --capture-all-dead: it removes the stones
# it judges dead before it passes, so that the game is played out and its
# count and ggp's, the board as it stands, agree).
set -eu
GAMES=${1:-4}
SPEC=${2:-grave:playouts=10000}
LEVEL=${3:-10}
SIZE=${4:-9}
KOMI=${5:-7.5}
B=${GGP:-build/release/player/ggp}
[ -x "$B" ] || B=build/dev/player/ggp
GNUGO=$(command -v gnugo || echo /usr/games/gnugo) # Debian puts it in /usr/games
[ -x "$GNUGO" ] || { echo "gnugo.sh: install gnugo (apt-get install gnugo)" >&2; exit 2; }
# GNU Go scores (its final_score removes dead stones), and plays Chinese
# rules so that its score is an area score as ggp's.
exec python3 "$(dirname "$0")/gtp_referee.py" --games "$GAMES" --size "$SIZE" --komi "$KOMI" \
  --max-moves "${MAX_MOVES:-400}" ${TIME:+--time "$TIME"} ${SGF_DIR:+--sgf-dir "$SGF_DIR"} --scorer b \
  --a "$B gtp --player $SPEC --seed ${SEED:-1}" \
  --b "$GNUGO --mode gtp --level $LEVEL --chinese-rules --positional-superko${CAPTURE_ALL_DEAD:+ --capture-all-dead}"
