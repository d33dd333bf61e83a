#!/usr/bin/env bash
# Searches of a 100,000-quote book: in process, the byte search alone (ScaleBenchmark search),
# and end to end, a cheap page's latency while clients search for new words all the time
# (Benchmarks/tools/search_probe.py), against a release server with 2 event loops; optionally a
# second binary side by side.
#
# usage: Benchmarks/search.sh [ROUNDS]          (default 3)
# env:   QUOTEBOOK_BIN   the quotebook to measure (default: a release build of this package)
#        BASELINE_BIN    another quotebook measured the same way in each round, first
#        DATA            a data directory built by `ScaleBenchmark build` (default: built afresh
#                        in .build-bench/scale-data, as Benchmarks/scale.sh does)
#        SEARCHERS, DURATION   passed to search_probe.py (default 2, 10)
# Output: Benchmarks/search-results/run-<UTC time>/{index.txt, <name>-r<N>.json, summary.md}.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-3}
source "$here/tools/quotebook_server.sh"
build_quotebook
(cd "$root" && swift build -c release --scratch-path .build-bench --product ScaleBenchmark >&2)
tool=$root/.build-bench/release/ScaleBenchmark
data=${DATA:-$root/.build-bench/scale-data}
if [ ! -f "$data/quotebook.sqlite3" ]; then
    rm -rf "$data"
    "$tool" build "$data" >&2
fi
run=$here/search-results/run-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
work=$(mktemp -d /tmp/quotebook-search.XXXXXX)
trap 'stop_quotebook || true; rm -rf "$work"' EXIT
"$tool" search "$data" --runs 9 | tee "$run/index.txt"

binaries=()
[ -n "${BASELINE_BIN:-}" ] && binaries+=("baseline|$BASELINE_BIN")
binaries+=("quotebook|$app")
for round in $(seq 1 "$ROUNDS"); do
    for entry in "${binaries[@]}"; do
        IFS='|' read -r name app <<<"$entry"
        rm -rf "$work/data" && cp -r "$data" "$work/data"
        start_quotebook "$run/$name-r$round-server" --port 0 --data "$work/data" --event-loops 2 --log-level warning
        python3 "$here/tools/search_probe.py" --port "${listening##*:}" --searchers "${SEARCHERS:-2}" \
            --duration "${DURATION:-10}" --seed "$round" >"$run/$name-r$round.json"
        stop_quotebook || true  # its last kill fails when the server has already stopped
        echo "round $round $name: $(cat "$run/$name-r$round.json")" >&2
    done
done

python3 - "$run" <<'EOF'
import glob, json, os, statistics, sys
run = sys.argv[1]
rows = {}
for path in sorted(glob.glob(os.path.join(run, "*-r*.json"))):
    name = os.path.basename(path).rsplit("-r", 1)[0]
    rows.setdefault(name, []).append(json.load(open(path)))
lines = [f"# A cheap page while others search 100,000 quotes, {os.path.basename(run)}: medians over rounds", "",
         "| binary | rounds | probe alone p50 / p99 ms | probe under searches p50 / p99 / max ms | searches/s | search p50 / p99 ms |",
         "|---|---:|---:|---:|---:|---:|"]
for name, results in rows.items():
    med = lambda f: statistics.median(f(r) for r in results)
    lines.append(
        f"| {name} | {len(results)} "
        f"| {med(lambda r: r['probe_alone_ms']['p50']):.3f} / {med(lambda r: r['probe_alone_ms']['p99']):.3f} "
        f"| {med(lambda r: r['probe_under_searches_ms']['p50']):.3f} / {med(lambda r: r['probe_under_searches_ms']['p99']):.3f}"
        f" / {med(lambda r: r['probe_under_searches_ms']['max']):.3f} "
        f"| {med(lambda r: r['searches_per_second']):.0f} "
        f"| {med(lambda r: r['search_ms']['p50']):.2f} / {med(lambda r: r['search_ms']['p99']):.2f} |")
open(os.path.join(run, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
