#!/usr/bin/env bash
# A sharded tournament on a real Slurm cluster: start a one-node cluster on
# this machine (munged, slurmctld and slurmd on 127.0.0.1, everything in a
# temporary folder with a generated slurm.conf and munge key), submit a
# 4-shard job array of a small tournament, then of a small round robin,
# each with its merge job, through
# bench/slurm/submit.sh, wait for them, check that the merged result and
# per-game CSV equal those of the unsharded run (same seeds; all but the
# a_seconds and b_seconds columns), then stop the daemons. Needs root (CI is root on a
# fresh Debian 12); installs slurm-wlm and munge if missing.
#
# GGP_SKIP_SLURM=1   skip (local runs)
# GGP_SLURM_PORT=P   slurmctld's port (slurmd: P+1); default the first free
#                    pair from 16817
# KEEP=1             keep the temporary folder (logs) after the run
# TMPDIR=DIR         where that folder goes (default /tmp; not noexec: the
#                    job scripts run from it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if [ -n "${GGP_SKIP_SLURM:-}" ]; then
    echo "slurm: skipped (GGP_SKIP_SLURM is set)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "slurm: FAILED: needs root (daemons and munge key), or set GGP_SKIP_SLURM=1" >&2
    exit 1
fi

missing=()
for p in slurm-wlm munge; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "slurm: installing ${missing[*]}"
    timeout 600 apt-get update -qq
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The program the jobs run (the dev build of .ci/test.sh).
cmake --preset dev >/dev/null
cmake --build --preset dev -j"$(nproc)" --target ggp >/dev/null
export GGP=$root/build/dev/player/ggp

tmp=$(mktemp -d -t ggp-slurm.XXXXXX)
chmod 700 "$tmp"
pids=()
jobs_submitted=()
log_tail() {
    for f in "$tmp"/*.log "$tmp"/*.out "$tmp"/out/*.log; do
        [ -f "$f" ] || continue
        echo "--- $f (last lines)" >&2
        tail -n 15 "$f" >&2
    done
}
fail() {
    echo "slurm: FAILED: $*" >&2
    log_tail
    exit 1
}
cleanup() {
    local rc=$?
    trap - EXIT
    if [ ${#jobs_submitted[@]} -gt 0 ]; then timeout 10 scancel "${jobs_submitted[@]}" 2>/dev/null || true; fi
    # slurmd first (it ends the job steps), then slurmctld, then munged.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill "${pids[i]}" 2>/dev/null || true
        timeout 15 tail --pid="${pids[i]}" -f /dev/null 2>/dev/null || kill -9 "${pids[i]}" 2>/dev/null || true
    done
    if [ -n "${KEEP:-}" ]; then echo "slurm: kept $tmp"; else rm -rf "$tmp"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# wait_for SECONDS WHAT 'SHELL COMMAND': retry the command (each try at
# most 15 s) every 0.2 s until it succeeds, for at most SECONDS.
wait_for() {
    local secs=$1 what=$2 cmd=$3
    local end=$((SECONDS + secs))
    until timeout 15 bash -c "$cmd" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || fail "$what (waited ${secs}s)"
        sleep 0.2
    done
}
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# --- munge --------------------------------------------------------------------
mkdir -p "$tmp/munge"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.socket
munged -F --force --socket="$sock" --key-file="$tmp/munge/munge.key" --pid-file="$tmp/munge/munged.pid" \
    --log-file="$tmp/munged.log" --seed-file="$tmp/munge/munged.seed" >"$tmp/munged.out" 2>&1 &
pids+=($!)
wait_for 20 "munged did not start" "test -S '$sock'"
wait_for 10 "munge does not encode and decode a credential" "munge -S '$sock' -n | unmunge -S '$sock'"

# --- slurm.conf ---------------------------------------------------------------
port=${GGP_SLURM_PORT:-16817}
if [ -z "${GGP_SLURM_PORT:-}" ]; then
    while ! port_free "$port" || ! port_free $((port + 1)); do
        port=$((port + 2))
        [ "$port" -lt 16900 ] || fail "no free port pair in 16817-16899 (set GGP_SLURM_PORT)"
    done
fi
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/out"
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<EOF
# one-node cluster of .ci/slurm.sh
ClusterName=ggpci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
MinJobAge=600
InactiveLimit=0
KillWait=5
NodeName=ggpci0 NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=ci Nodes=ggpci0 Default=YES MaxTime=30 State=UP
EOF

# --- daemons ------------------------------------------------------------------
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
wait_for 30 "slurmctld does not answer" "scontrol ping"
slurmd -D -N ggpci0 -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
wait_for 60 "node ggpci0 is not idle (slurmd did not register)" \
    "sinfo -h -N -n ggpci0 -o %t | grep -Eq '^(idle|mix|alloc)'"
echo "slurm: cluster up (slurmctld :$port, slurmd :$((port + 1)), $cpus CPUs)"

# --- a tournament and a round robin, each as 4 shards and unsharded -------------
game=$root/games/tictactoe.kif

# run_sharded NAME GAMES KIND ARGS...: submit KIND (tournament|roundrobin) as
# a 4-shard array and its merge, wait, then play it unsharded and compare
# the result lines (without the timing column) and the per-game CSVs (all
# but the a_seconds and b_seconds columns).
run_sharded() {
    local name=$1 games=$2 kind=$3
    shift 3
    local out=$tmp/out_$name start=$SECONDS ids array merge state s
    ids=$(timeout 60 bench/slurm/submit.sh 4 "$out" "$kind" "$game" "$@") || fail "submit.sh ($name)"
    read -r array merge <<<"$ids"
    jobs_submitted=("$array" "$merge")
    echo "slurm: $name: submitted array $array (4 shards) and merge $merge"
    wait_for 240 "jobs $array and $merge did not finish" \
        "squeue -h -j '$array,$merge' -o %i >'$tmp/queue' && ! grep -q . '$tmp/queue'"
    jobs_submitted=()
    state=$(timeout 15 scontrol show job "$merge" | grep -o 'JobState=[A-Z_]*' || true)
    [ "$state" = "JobState=COMPLETED" ] || fail "merge job $merge: $state"
    for i in 0 1 2 3; do
        s=$(timeout 15 scontrol show job "${array}_$i" | grep -o 'JobState=[A-Z_]*' || true)
        [ "$s" = "JobState=COMPLETED" ] || fail "shard task ${array}_$i: $s"
    done
    echo "slurm: $name: jobs done in $((SECONDS - start)) s"

    timeout 120 "$GGP" "$kind" "$game" "$@" --csv "$tmp/full_$name.csv" >"$tmp/full_$name.txt" ||
        fail "unsharded run ($name)"
    local want got
    want=$(grep '^result' "$tmp/full_$name.txt" | sed 's/ seconds_per_game=.*//')
    got=$(grep '^result' "$out/result.txt" | sed 's/ seconds_per_game=.*//')
    echo "slurm: $name: merged:    ${got//$'\n'/ | }"
    echo "slurm: $name: unsharded: ${want//$'\n'/ | }"
    if [ -z "$got" ] || [ "$got" != "$want" ]; then fail "$name: the merged result differs from the unsharded run"; fi
    # rows in game order (the merge writes them so; one job here), times cut
    cut -d, -f1-7,9-16 "$tmp/full_$name.csv" >"$tmp/full_$name.cut"
    cut -d, -f1-7,9-16 "$out/merged.csv" >"$tmp/merged_$name.cut"
    diff -u "$tmp/full_$name.cut" "$tmp/merged_$name.cut" >&2 ||
        fail "$name: the merged CSV differs from the unsharded run's"
    [ "$(($(wc -l <"$tmp/full_$name.cut") - 2))" -eq "$games" ] || fail "$name: not $games games in the unsharded CSV"
    echo "slurm: $name: OK: 4 shards merged equal the unsharded run game by game"
}

run_sharded tournament 12 tournament --a grave:playouts=400 --b uct:playouts=400 --games 12 --seed 9 --quiet
run_sharded roundrobin 12 roundrobin --player uct:playouts=100 --player random --player mc:playouts=50 \
    --games-per-pair 4 --seed 3 --quiet
