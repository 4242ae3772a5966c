#!/usr/bin/env bash
# usage: bench/slurm/submit.sh N OUTDIR [tournament|roundrobin] FILE.kif OPTIONS...
# Submit a tournament (the default) or a round robin as a Slurm job array of N shards (tournament.sbatch,
# one shard per task) and a merge job that runs once every task has ended
# (--dependency=afterany: shards that failed give partial results, with the
# games missing counted). Results in OUTDIR (a folder every node sees):
# shard_I.csv and shard_I.log per task, result.txt, merged.csv, plot.svg
# for a sweep or a round robin, merge.log. Prints the two job ids ("ARRAY MERGE") on stdout.
#
# GGP=PATH             the program on the nodes (default build/release/player/ggp here)
# GGP_SBATCH_ARGS=...  more sbatch options for the array (--partition, --time,
#                      --cpus-per-task for --jobs per shard, ...)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ $# -lt 3 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
    sed -n '2p' "$0" | sed 's/^# //' >&2
    exit 2
fi
n=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
shift 2
export GGP=${GGP:-$root/build/release/player/ggp}
[ -x "$GGP" ] || { echo "submit.sh: no program $GGP (build it, or set GGP)" >&2; exit 2; }
# shellcheck disable=SC2086 # GGP_SBATCH_ARGS is a list of options
array=$(sbatch --parsable --array="0-$((n - 1))" --output="$out/shard_%a.log" ${GGP_SBATCH_ARGS:-} \
    "$here/tournament.sbatch" "$n" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterany:$array" --job-name=ggp-merge --output="$out/merge.log" \
    --wrap="$(printf '%q ' "$root/bench/merge_shards.sh" "$n" "$out")")
merge=${merge%%;*}
echo "$array $merge"
