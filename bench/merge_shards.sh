#!/usr/bin/env bash
# usage: bench/merge_shards.sh SHARDS OUTDIR
# Merge OUTDIR/shard_0.csv .. shard_(SHARDS-1).csv (written by
# `ggp tournament|roundrobin --shard I/SHARDS --csv OUTDIR/shard_I.csv`) with
# `ggp results merge`: the result lines to stdout and OUTDIR/result.txt,
# the unsharded run's CSV to OUTDIR/merged.csv and, for a sweep or a round
# robin, its plot to OUTDIR/plot.svg. Exit status that of the merge: 1 if games are missing.
# The program is $GGP (default build/release/player/ggp of this checkout).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ggp=${GGP:-$root/build/release/player/ggp}
if [ $# -ne 2 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 SHARDS OUTDIR" >&2
    exit 2
fi
n=$1 out=$2
files=()
for ((i = 0; i < n; i++)); do
    if [ -e "$out/shard_$i.csv" ]; then files+=("$out/shard_$i.csv"); else echo "merge: no $out/shard_$i.csv (shard $i/$n not started)" >&2; fi
done
if [ ${#files[@]} -eq 0 ]; then echo "merge: no shard CSV in $out" >&2; exit 2; fi
plot=()
# A sweep's metadata field is sweep=KEY=V1,... (empty without one).
# A round robin always has one (its methods' scores as bars).
if head -n 1 "${files[0]}" | grep -Eq 'sweep=[^",]|^# ggp roundrobin,'; then plot=(--plot "$out/plot.svg"); fi
set +e
"$ggp" results merge "${files[@]}" --csv "$out/merged.csv" "${plot[@]}" | tee "$out/result.txt"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || echo "merge: exit status $rc (1: games missing or failed)" >&2
exit "$rc"
