#!/usr/bin/env bash
# The README's main job: install what is missing, build the release binary,
# and play a self-play match on a bundled game (compete, the match player,
# against UCT on Connect Four 7x6), printing the moves, the final board and
# the goals.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive # deps.sh: apt -qq, no questions
./.ci/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
exec build/release/player/ggp play games/connect4.kif \
    --player compete:playouts=3000,seed=1 --player uct:playouts=3000,seed=2 "$@"
