#!/usr/bin/env bash
# bench/longtokens.sh - the KIF reader on long stretches without a token
# break: runs of blanks, of newlines, one long symbol, one long comment.
# The time should grow with the size, not its square (Flex rescans a token
# that outgrows its buffer after each refill: with 8 KB refills 4 MB of
# spaces took 13 s in `ggp check` and in a `ggp serve` START; 0.2 s since
# the scanner's refills fill its whole buffer, gdl/sexpr_lexer.l). Not a test.
#
# usage: bench/longtokens.sh [MB...]   (default: 1 4 16)
# env:   GGP=build/release/player/ggp
set -euo pipefail
cd "$(dirname "$0")/.."
GGP=${GGP:-build/release/player/ggp}
[ -x "$GGP" ] || { echo "longtokens.sh: no ggp binary at $GGP (build first)" >&2; exit 2; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 4 16)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| stretch | MB | seconds (ggp check) |"
echo "|---|---:|---:|"
for mb in "${sizes[@]}"; do
  n=$((mb * 1000000))
  python3 - "$tmp" "$n" <<'PY'
import sys
d, n = sys.argv[1], int(sys.argv[2])
game = "(role a)\n(init p)\n(<= (legal a go) (true p))\n(<= (next p) (true p))\n(<= (goal a 100) (true p))\n(<= terminal (true p))\n"
open(f"{d}/blanks.kif", "w").write(" " * n + game)
open(f"{d}/newlines.kif", "w").write("\n" * n + game)
open(f"{d}/symbol.kif", "w").write(game + "(p " + "s" * n + ")\n")
open(f"{d}/comment.kif", "w").write(";" + "c" * n + "\n" + game)
PY
  for k in blanks newlines symbol comment; do
    t0=$(date +%s.%N)
    "$GGP" check "$tmp/$k.kif" >/dev/null 2>&1 || true
    t1=$(date +%s.%N)
    echo "| $k | $mb | $(awk "BEGIN {printf \"%.2f\", $t1 - $t0}") |"
  done
done
