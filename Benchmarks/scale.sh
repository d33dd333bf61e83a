#!/usr/bin/env bash
# Quotebook at 100,000 quotes and 300,000 journaled actions: start-up time to the listening line,
# RSS, and server CPU per request for list pages 1, 2, 2500 and 5000, searches and a quote page
# (Benchmarks/tools/scale_measure.py), plus the in-process phases that grow with the book
# (ScaleBenchmark phases: snapshot load and save, replay of the tail, a dispatch, searches).
#
# usage: Benchmarks/scale.sh [ROUNDS]        (default 3)
# env:   QUOTES, ACTIONS     size of the book (default 100000, 300000)
#        DATA                a data directory built before by `ScaleBenchmark build` (default: built
#                            afresh in .build-bench/scale-data, which takes about ten seconds)
#        BASELINE_BIN        another quotebook binary to measure side by side, alternating the order
#                            each round, on its own copy of the data; it is started once first, so
#                            a build with another snapshot format writes its own (from a full replay)
#        BASELINE_DATA       the baseline's own copy of the book, when DATA has been opened by this build
#                            (whose schema migrations an older build refuses): e.g. the same book as
#                            the baseline's ScaleBenchmark built it, before this build first opened it
#        STARTS, PAGE_SECONDS  starts per round (default 5) and seconds of wrk per page (default 3)
# Output: Benchmarks/scale-results/{RESULTS.md,phases.txt,round*-*.tsv}.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-3}
out=$here/scale-results
export PATH=/opt/swift/usr/bin:$PATH
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

(cd "$root" && swift build -c release --scratch-path .build-bench --product quotebook >&2 &&
    swift build -c release --scratch-path .build-bench --product ScaleBenchmark >&2)
app=$root/.build-bench/release/quotebook
tool=$root/.build-bench/release/ScaleBenchmark

mkdir -p "$out"
rm -f "$out"/round*-*.tsv
data=${DATA:-$root/.build-bench/scale-data}
if [ ! -f "$data/quotebook.sqlite3" ]; then
    rm -rf "$data"
    "$tool" build "$data" --quotes "${QUOTES:-100000}" --actions "${ACTIONS:-300000}" | tee "$out/build.txt" >&2
fi
"$tool" phases "$data" --runs 7 | tee "$out/phases.txt"

servers=("quotebook|$app|$data")
if [ -n "${BASELINE_BIN:-}" ]; then
    baseline_data=$root/.build-bench/scale-data-baseline
    rm -rf "$baseline_data" && cp -r "${BASELINE_DATA:-$data}" "$baseline_data"
    started=$(date +%s.%N)
    coproc FIRST { exec "$BASELINE_BIN" --port 0 --data "$baseline_data" --root "$root" --log-level warning; }
    read -r line <&"${FIRST[0]}"
    echo "baseline first start (writes its own snapshot): $(echo "$(date +%s.%N) - $started" | bc) s, $line" >&2
    kill -TERM "$FIRST_PID" && wait "$FIRST_PID" || true
    servers+=("baseline|$BASELINE_BIN|$baseline_data")
fi

# Each round starts one server later than the one before (with two: the order alternates).
for round in $(seq 1 "$ROUNDS"); do
    shift=$(((round - 1) % ${#servers[@]}))
    for entry in "${servers[@]:$shift}" "${servers[@]:0:$shift}"; do
        IFS='|' read -r label binary dir <<<"$entry"
        echo "round $round: $label" >&2
        python3 "$here/tools/scale_measure.py" "$binary" "$dir" "$root" "$out/round$round-$label" \
            --starts "${STARTS:-5}" --seconds "${PAGE_SECONDS:-3}" --label "$label" >&2
    done
done

{
    echo "# Quotebook at scale: $(date -u '+%Y-%m-%d %H:%M UTC'), $ROUNDS rounds, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo '```'
    cat "$out/build.txt" 2>/dev/null || echo "data: $data"
    echo '```'
    echo
    python3 "$here/tools/scale_measure.py" --summarize "$out" ${BASELINE_BIN:+--against baseline}
    echo
    if [ -n "${BASELINE_BIN:-}" ]; then
        echo "baseline: \`$BASELINE_BIN\`, on a copy of the data after its first start wrote its own snapshot"
        echo "(so it replays no tail at start-up, where quotebook replays 999 entries). A baseline without"
        echo "search answers the search rows with page 1 of the whole book."
        echo
    fi
    echo "Server CPU per request: wrk -t1 -c1 for ${PAGE_SECONDS:-3} s per page after 1 s of warm-up, the"
    echo "server's utime+stime over requests completed. The machine's 2 cores were shared with wrk and"
    echo "with other work (load average above); CPU per request and CPU by the listening line are the"
    echo "figures least moved by that, wall-clock start-up the most."
    echo
    echo "In-process phases (ScaleBenchmark phases, median of 7):"
    echo
    echo '```'
    cat "$out/phases.txt"
    echo '```'
} >"$out/RESULTS.md"
cat "$out/RESULTS.md"
