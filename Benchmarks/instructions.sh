#!/usr/bin/env bash
# Instructions per request, counted by valgrind's callgrind: repeatable whatever else the machine
# does, so two builds compare exactly where CPU-time figures drift. For each binary and responder
# mode: start ServerBenchmark under callgrind, warm up with WARMUP keep-alive GET / (one connection,
# tools/keepalive_get.py), zero the counters, send COUNT more, dump, and divide the instructions
# (every thread of the server) by COUNT.
#
# usage: Benchmarks/instructions.sh AFTER_BIN [BEFORE_BIN]   (ServerBenchmark binaries; release)
# env:   COUNT=2000 WARMUP=300 MODES="loop pool" PORT=8094
# Output: a table on stdout and Benchmarks/instructions-results/results.tsv (appended).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
COUNT=${COUNT:-2000}
WARMUP=${WARMUP:-300}
MODES=${MODES:-loop pool}
PORT=${PORT:-8094}
out=$here/instructions-results
mkdir -p "$out"
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

count_one() {  # label binary mode -> prints instructions per request
    local label=$1 binary=$2 mode=$3 file=$work/callgrind.$label.$mode
    env PORT=$PORT RESPONDER_EXECUTION=$mode LOG_LEVEL=notice \
        valgrind --tool=callgrind --callgrind-out-file="$file" --dump-instr=no "$binary" >"$work/log.$label.$mode" 2>&1 &
    local pid=$!
    for _ in $(seq 1 600); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), timeout=1).close()" 2>/dev/null && break
        sleep 0.1
    done
    python3 "$here/tools/keepalive_get.py" "$PORT" "$WARMUP"
    callgrind_control -z "$pid" >/dev/null
    python3 "$here/tools/keepalive_get.py" "$PORT" "$COUNT"
    callgrind_control -d "$pid" >/dev/null
    kill -INT "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    # The dump after zeroing holds exactly the COUNT requests (".1" suffix: the first dump).
    local total
    total=$(grep -h '^summary:' "$file".*.1 "$file".1 2>/dev/null | awk '{ s += $2 } END { print s }')
    echo $((total / COUNT))
}

printf 'binary\tmode\tinstructions_per_request\n'
for mode in $MODES; do
    for pair in "after|$1" ${2:+"before|$2"}; do
        label=${pair%%|*}
        binary=${pair#*|}
        per=$(count_one "$label" "$binary" "$mode")
        printf '%s\t%s\t%s\n' "$label" "$mode" "$per"
        printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$label" "$binary" "$mode" "$per" >>"$out/results.tsv"
    done
done
