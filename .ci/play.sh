#!/usr/bin/env bash
# The README's main job: install dependencies, build the release binary and
# run a self-play match on a bundled game (until `ggp play` exists: check it).
set -euo pipefail
cd "$(dirname "$0")/.."
./.ci/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
bin=build/release/player/ggp
if "$bin" --help | grep -q '^  play '; then
  "$bin" play games/tictactoe.kif --player grave:playouts=2000,seed=1 --player uct:playouts=2000,seed=2
else
  "$bin" check ../shared/games/ticTacToe.kif 2>/dev/null || "$bin" check games/*.kif
fi
