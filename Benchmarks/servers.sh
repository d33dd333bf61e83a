#!/usr/bin/env bash
# Measures the ServerBenchmark executable (the benchmark app of /work/shared/bench/servers/README.md
# on our HTTPServer + Templates) with the shared harness, side by side with nginx (and with the
# Swift peers when they have been built), alternating the order each round, then prints ratios.
#
# usage: Benchmarks/servers.sh [ROUNDS]           (default 2)
# env:   SERVER_BENCHMARK_BIN  use this binary instead of building .build-bench/release/ServerBenchmark
#        PEERS_DIR             folder with built peers (e.g. a writable copy of bench/servers/peers
#                              after bench/servers/build.sh); each */.build/release/App found is measured
#        MODES                 responder execution modes to measure (default "loop pool")
#        and the harness's own knobs (DURATION, WARMUP, IDLE_CONNS, QUIET_PCT, ...).
# Output: Benchmarks/servers-results/{results.tsv,summary.md,cpu_per_req.md,ratios.md,logs/}.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
BENCH=${BENCH:-/work/shared/bench/servers}
ROUNDS=${1:-2}
MODES=${MODES:-loop pool}
out=$here/servers-results
work=$root/.build-bench/servers
export RESULTS=$out/results.tsv
export LOGDIR=$out/logs
mkdir -p "$out" "$LOGDIR" "$work"
export PATH=/opt/swift/usr/bin:$PATH

# 1. tools
if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx >/dev/null
fi

# 2. our server, release build (needs the ServerBenchmark target, see docs/PACKAGE_REQUESTS.md)
bin=${SERVER_BENCHMARK_BIN:-}
if [ -z "$bin" ]; then
    (cd "$root" && swift build -c release --scratch-path .build-bench --product ServerBenchmark) || {
        echo "cannot build ServerBenchmark (is its target in Package.swift?)" >&2
        exit 1
    }
    bin=$root/.build-bench/release/ServerBenchmark
fi

# 3. nginx needs a writable prefix: a copy of the reference folder
rm -rf "$work/nginx" && cp -r "$BENCH/nginx" "$work/nginx" && chmod -R u+w "$work/nginx"

servers=()
for mode in $MODES; do
    servers+=("quotebook-$mode|8084|$work|exec env RESPONDER_EXECUTION=$mode $bin")
done
servers+=("nginx|8080|$work/nginx|exec ./start.sh")
if [ -n "${PEERS_DIR:-}" ]; then
    port=8081
    for app in "$PEERS_DIR"/*/.build/release/App; do
        [ -x "$app" ] || continue
        peer=$(basename "$(dirname "$(dirname "$(dirname "$app")")")")
        servers+=("${peer%-peer}|$port|$(dirname "$(dirname "$(dirname "$app")")")|exec .build/release/App")
        port=$((port + 1))
    done
fi

# 4. alternate: odd rounds in list order, even rounds reversed
for round in $(seq 1 "$ROUNDS"); do
    order=("${servers[@]}")
    if [ $((round % 2)) -eq 0 ]; then
        order=()
        for ((i = ${#servers[@]} - 1; i >= 0; i--)); do order+=("${servers[$i]}"); done
    fi
    for entry in "${order[@]}"; do
        IFS='|' read -r name port workdir cmd <<<"$entry"
        echo "=== round $round: $name ===" >&2
        "$BENCH/run.sh" "$name" "$cmd" "$port" "$workdir"
        sleep 2
    done
done

# 5. summaries and ratios to nginx (medians; only numbers this script measured)
python3 "$BENCH/tools/summarize.py" "$RESULTS" > "$out/summary.md"
python3 "$BENCH/tools/cpu_per_req.py" "$LOGDIR" > "$out/cpu_per_req.md"
python3 - "$RESULTS" > "$out/ratios.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
def med(name, col):
    values = []
    for r in rows:
        if r["name"] == name:
            try: values.append(float(r[col]))
            except (ValueError, KeyError): pass
    return statistics.median(values) if values else None
cols = ["get_c64_rps", "get_c256_rps", "css_c64_rps", "post_c64_rps", "get_c64_p99_ms", "get_c256_p99_ms",
        "startup_ms", "rss_idle_kb", "rss_1k_conns_kb", "rss_peak_load_kb"]
names = sorted({r["name"] for r in rows})
print("| server | " + " | ".join(cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for n in names:
    print(f"| {n} | " + " | ".join("-" if med(n, c) is None else f"{med(n, c):,.1f}" for c in cols) + " |")
print()
print("Ratios to nginx (req/s: higher is better; p99, startup, RSS: lower is better)")
print()
print("| server | " + " | ".join(cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for n in names:
    if n == "nginx": continue
    cells = []
    for c in cols:
        a, b = med(n, c), med("nginx", c)
        cells.append("-" if a is None or not b else f"{a / b:.2f}x")
    print(f"| {n} | " + " | ".join(cells) + " |")
PY
cat "$out/ratios.md"
echo
cat "$out/cpu_per_req.md"
