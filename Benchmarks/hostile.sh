#!/usr/bin/env bash
# A legitimate visitor's page read, save and sign-in, p50/p99, with each attack of
# Tests/Hostile/hostile_test.py running and with none, alternating in one run on one release
# server; then GET / with 0, 1 and 2 sign-in loops keeping the hashing threads busy
# (tools/under_attack.py says exactly what each phase does).
#
# usage: Benchmarks/hostile.sh [ROUNDS] [PHASE_SECONDS]   (default 2 rounds of 8 s phases)
# Writes Benchmarks/hostile-results/run-STAMP.md (+ .tsv with every sample) and copies it to
# latest.md.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product quotebook >/dev/null
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=Benchmarks/hostile-results/run-$stamp.md
python3 Benchmarks/tools/under_attack.py "$(swift build -c release --show-bin-path)/quotebook" "$PWD" "$out" "${1:-2}" "${2:-8}"
cp "$out" Benchmarks/hostile-results/latest.md
echo "wrote $out"
