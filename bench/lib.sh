# lib.sh - sourced by the bench scripts that start processes: a scratch
# folder $tmp, a list $pids that the exit trap kills and waits for, and
# KEEP=1 to keep the folder. Append a started process with pids+=($!)
# (not from a $(...) subshell: the pid must reach this shell's list).
# shellcheck shell=bash
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    if [ -n "${KEEP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
