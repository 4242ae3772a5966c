# plies_lib.sh - sourced by bench/plies.sh and bench/search_cost.sh: builds
# bench/plies.c against the release libraries of $build (building them if
# missing) into $bin, with a scratch file $out for callgrind, both removed
# on exit.
# shellcheck shell=bash
if [ ! -f "$build/search/libggp_search.a" ]; then
  cmake --preset release >/dev/null && cmake --build --preset release -j"$(nproc)" >/dev/null
fi
bin=$(mktemp /tmp/plies.XXXXXX)
out=$(mktemp /tmp/plies_cg.XXXXXX)
trap 'rm -f "$bin" "$out"' EXIT
cc -O3 -DNDEBUG -std=c17 -D_GNU_SOURCE -I. -o "$bin" bench/plies.c \
  "$build/search/libggp_search.a" "$build/games/libggp_games.a" "$build/reasoner/libggp_reasoner.a" \
  "$build/gdl/libggp_gdl.a" "$build/base/libggp_base.a" -lpthread -lm
