#!/usr/bin/env bash
# usage: bench/parallel.sh SHARDS OUTDIR [tournament|roundrobin] FILE.kif OPTIONS...
# A tournament (the default: --a SPEC --b SPEC --games N ...) or a round
# robin (roundrobin FILE.kif --player SPEC ... --games-per-pair G ...)
# split into SHARDS shards run by GNU parallel, then merged
# (bench/merge_shards.sh): OUTDIR/shard_I.csv per shard, OUTDIR/result.txt,
# OUTDIR/merged.csv (and OUTDIR/plot.svg for a sweep or a round robin). The merged result
# equals the unsharded run's with the same --seed, game by game.
#
# Shards run with --resume: after a crash or a kill, the same command plays
# only the games missing. Each shard prints a progress line with an
# estimate of the time left every 30 s (tagged with its shard number).
#
# GGP_JOBS=J   shards at a time on this machine (default: nproc)
# GGP=PATH     the program (default build/release/player/ggp here)
# PARALLEL     options for GNU parallel itself, e.g. to use other machines:
#              PARALLEL="--sshlogin 8/host1,8/host2,:" (':' is this one);
#              ggp and OUTDIR must then have the same absolute paths there
#              (a shared folder), since every shard writes its own CSV.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ggp=${GGP:-$root/build/release/player/ggp}
if [ $# -lt 3 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
    sed -n '2,5p' "$0" | sed 's/^# //' >&2
    exit 2
fi
if ! command -v parallel >/dev/null; then
    echo "parallel.sh: needs GNU parallel (apt-get install parallel)" >&2
    exit 2
fi
n=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
shift 2
cmd=tournament
if [ "${1:-}" = tournament ] || [ "${1:-}" = roundrobin ]; then cmd=$1; shift; fi
# Each command word is quoted (-q); {} is the shard number.
set +e
parallel --will-cite -q -j "${GGP_JOBS:-$(nproc)}" --line-buffer --tag --halt never \
    "$ggp" "$cmd" "$@" --shard "{}/$n" --csv "$out/shard_{}.csv" --resume \
    ::: $(seq 0 $((n - 1)))
failed=$?
set -e
[ "$failed" -eq 0 ] || echo "parallel.sh: $failed shard(s) failed; merging what finished" >&2
rc=0
GGP=$ggp "$root/bench/merge_shards.sh" "$n" "$out" || rc=$?
[ "$failed" -eq 0 ] || exit 1
exit "$rc"
