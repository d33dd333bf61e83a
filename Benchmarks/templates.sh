#!/usr/bin/env bash
# Template renderer benchmark on the shared page fixture (shared/bench/templates/fixtures):
#  1. builds TemplatesBenchmark in release mode (scratch path .build-bench);
#  2. wall clock: renders the page ITERATIONS times in batches, checks the output is
#     byte-identical to expected.html, prints the median renders/s;
#  3. instructions: valgrind --tool=callgrind with 0 renders and with N renders;
#     per render = (Ir(N) - Ir(0)) / N, with SWIFT_DETERMINISTIC_HASHING=1 so counts repeat.
# Same method as shared/bench/templates/scripts/callgrind.sh, so the figures compare with the
# swift-mustache anchor in shared/bench/templates/RESULTS.md (3,946,015 Ir per render).
#
# Usage (from anywhere): Benchmarks/templates.sh [N]        default N=2000
# Environment: FIXTURES (default ../shared/bench/templates/fixtures from the repository root),
#   ITERATIONS (wall-clock renders, default 50000), BIN (skip the build and use this binary),
#   CALLGRIND_OUT (default /tmp/templates-callgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000}
FIXTURES=${FIXTURES:-../shared/bench/templates/fixtures}
ITERATIONS=${ITERATIONS:-50000}
OUT=${CALLGRIND_OUT:-/tmp/templates-callgrind}

if [ -z "${BIN:-}" ]; then
  swift build -c release --scratch-path .build-bench --product TemplatesBenchmark >&2
  BIN=.build-bench/release/TemplatesBenchmark
fi
[ -d "$FIXTURES" ] || { echo "no fixtures at $FIXTURES (set FIXTURES)" >&2; exit 2; }

echo "## wall clock"
"$BIN" --fixtures "$FIXTURES" --iterations "$ITERATIONS" --batches 9

if ! command -v valgrind >/dev/null; then
  echo "valgrind not installed: skipping instruction counts" >&2
  exit 0
fi
mkdir -p "$OUT"
export SWIFT_DETERMINISTIC_HASHING=1
ir() { # renders -> total instructions
  valgrind --tool=callgrind --callgrind-out-file="$OUT/templates-$1.out" \
    "$BIN" --fixtures "$FIXTURES" --iterations "$1" --batches 1 >/dev/null 2>"$OUT/templates-$1.log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$OUT/templates-$1.log"
}
base=$(ir 0)
full=$(ir "$N")
echo "## instructions (callgrind)"
echo "| Ir, 0 renders | Ir, $N renders | Ir per render |"
echo "|---:|---:|---:|"
echo "| $base | $full | $(( (full - base) / N )) |"
echo "profile: callgrind_annotate --inclusive=yes $OUT/templates-$N.out"
