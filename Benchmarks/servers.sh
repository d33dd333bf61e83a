#!/usr/bin/env bash
# Measures Quotebook's HTTP server + renderer on the shared benchmark app (ServerBenchmark: the app
# of ../shared/bench/servers/README.md) and Quotebook's real home page, side by side with nginx and
# the Swift peers (Hummingbird, FlyingFox; Vapor on request), with the shared harness, alternating
# the order each round, then prints medians and ratios to nginx and to Hummingbird.
#
# usage: Benchmarks/servers.sh [ROUNDS]           (default 2)
# env:   PEERS       peer folders of ../shared/bench/servers/peers to build and measure
#                    (default "hummingbird-peer flyingfox-peer"; vapor-peer takes ~15 min to build)
#        PEERS_DIR   use peers already built there instead (each */.build/release/App)
#        MODES       ServerBenchmark responder modes (default "loop pool")
#        APP=0       leave out Quotebook's real app (quotebook-app: GET / is the real home page;
#                    it has no POST /quote, so its POST column is not comparable)
#        SERVER_BENCHMARK_BIN, QUOTEBOOK_BIN   use these binaries instead of building
#        BASELINE_SERVER_BENCHMARK_BIN, BASELINE_QUOTEBOOK_BIN   also measure these (e.g. a build of
#                    an older commit: /work/before-bin/) as quotebook-before-MODE and
#                    quotebook-app-before, in the same alternating rounds as the current ones, and
#                    add "current / before" ratios to ratios.md (and the 10k idle row)
#        BASELINE_ROOT  folder the baseline app runs in, for its Templates/ and Public/
#                    (default: this package, so both apps render the same templates)
#        and the harness's own knobs (DURATION, WARMUP, IDLE_CONNS, QUIET_PCT, ...).
# Output: Benchmarks/servers-results/{results.tsv,summary.md,cpu_per_req.md,ratios.md,idle10k.tsv,logs/}.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
BENCH=${BENCH:-$(cd "$root/../shared/bench/servers" && pwd)}
ROUNDS=${1:-2}
MODES=${MODES:-loop pool}
out=$here/servers-results
work=$root/.build-bench/servers
export RESULTS=$out/results.tsv
export LOGDIR=$out/logs
mkdir -p "$out" "$LOGDIR" "$work"
export PATH=/opt/swift/usr/bin:$PATH
base_bin=${BASELINE_SERVER_BENCHMARK_BIN:-}
base_app=${BASELINE_QUOTEBOOK_BIN:-}
base_root=${BASELINE_ROOT:-$root}
for b in $base_bin $base_app; do [ -x "$b" ] || { echo "no baseline binary at $b" >&2; exit 1; }; done

# 1. tools
if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx >/dev/null
fi

# 2. our servers, release builds
bin=${SERVER_BENCHMARK_BIN:-}
app=${QUOTEBOOK_BIN:-}
if [ -z "$bin" ] || [ -z "$app" ]; then
    (cd "$root" && swift build -c release --scratch-path .build-bench --product ServerBenchmark &&
        swift build -c release --scratch-path .build-bench --product quotebook) || {
        echo "cannot build ServerBenchmark and quotebook" >&2
        exit 1
    }
    bin=${bin:-$root/.build-bench/release/ServerBenchmark}
    app=${app:-$root/.build-bench/release/quotebook}
fi

# 3. nginx needs a writable prefix, and the peers a writable folder to build in: copies
rm -rf "$work/nginx" && cp -r "$BENCH/nginx" "$work/nginx" && chmod -R u+w "$work/nginx"
if [ -z "${PEERS_DIR:-}" ]; then
    PEERS_DIR=$root/.build-bench/peers
    mkdir -p "$PEERS_DIR"
    for peer in ${PEERS:-hummingbird-peer flyingfox-peer}; do
        if [ ! -x "$PEERS_DIR/$peer/.build/release/App" ]; then
            rm -rf "$PEERS_DIR/$peer" && cp -r "$BENCH/peers/$peer" "$PEERS_DIR/$peer" && chmod -R u+w "$PEERS_DIR/$peer"
            echo "building $peer (release)" >&2
            (cd "$PEERS_DIR/$peer" && swift build -c release >&2) || echo "$peer did not build; not measured" >&2
        fi
    done
fi

servers=()
for mode in $MODES; do
    servers+=("quotebook-$mode|8084|$work|exec env RESPONDER_EXECUTION=$mode $bin")
    [ -n "$base_bin" ] && servers+=("quotebook-before-$mode|8084|$work|exec env RESPONDER_EXECUTION=$mode $base_bin")
done
if [ "${APP:-1}" != 0 ]; then
    servers+=("quotebook-app|8085|$root|exec $app --port \$PORT --data \$(mktemp -d) --log-level notice")
    [ -n "$base_app" ] &&
        servers+=("quotebook-app-before|8085|$base_root|exec $base_app --port \$PORT --data \$(mktemp -d) --log-level notice")
fi
servers+=("nginx|8080|$work/nginx|exec ./start.sh")
port=8081
for app_bin in "$PEERS_DIR"/*/.build/release/App; do
    [ -x "$app_bin" ] || continue
    peer=$(basename "$(dirname "$(dirname "$(dirname "$app_bin")")")")
    servers+=("${peer%-peer}|$port|$(dirname "$(dirname "$(dirname "$app_bin")")")|exec .build/release/App")
    port=$((port + 1))
done

# 4. alternate: odd rounds in list order, even rounds reversed
run_started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
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

# 5. RSS of Quotebook's real app holding 10,000 idle keep-alive connections (each made one GET /),
#    and of the baseline app when there is one
if [ "${APP:-1}" != 0 ]; then
    ulimit -n 20000 2>/dev/null || true
    idle_apps=("quotebook-app|$root|$app")
    [ -n "$base_app" ] && idle_apps+=("quotebook-app-before|$base_root|$base_app")
    for entry in "${idle_apps[@]}"; do
        IFS='|' read -r name app_root app_bin <<<"$entry"
        data=$(mktemp -d)
        (cd "$app_root" && exec "$app_bin" --port 8086 --data "$data" --log-level notice) >/dev/null 2>&1 &
        pid=$!
        for _ in $(seq 1 50); do curl -s -o /dev/null http://127.0.0.1:8086/healthz && break; sleep 0.1; done
        idle_kb=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
        # prints: requested opened still-open rss_kb
        read -r _ answered open rss_kb < <(python3 "$BENCH/tools/idleconns.py" --port 8086 --pid $pid --n 10000 | tail -n 1)
        kill -TERM $pid; wait $pid 2>/dev/null
        printf '%s\t%s\tidle 10000: answered %s, still open %s, RSS %s kB (idle %s kB)\n' \
            "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" "$answered" "$open" "$rss_kb" "$idle_kb" | tee -a "$out/idle10k.tsv"
        rm -rf "$data"
        sleep 2
    done
fi

# 6. summaries and ratios to nginx and Hummingbird (medians; only numbers this script measured)
python3 "$BENCH/tools/summarize.py" "$RESULTS" > "$out/summary.md"
python3 "$BENCH/tools/cpu_per_req.py" "$LOGDIR" > "$out/cpu_per_req.md"
python3 - "$RESULTS" "$run_started" > "$out/ratios.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
def med(name, col, since=""):
    values = []
    for r in rows:
        if r["name"] == name and r["timestamp"] >= since:
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
for anchor in ("nginx", "hummingbird"):
    if anchor not in names: continue
    print()
    print(f"Ratios to {anchor} (req/s: higher is better; p99, startup, RSS: lower is better)")
    print()
    print("| server | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for n in names:
        if n == anchor: continue
        cells = []
        for c in cols:
            a, b = med(n, c), med(anchor, c)
            cells.append("-" if a is None or not b else f"{a / b:.2f}x")
        print(f"| {n} | " + " | ".join(cells) + " |")
# Current against the baseline (BASELINE_*_BIN): quotebook-MODE / quotebook-before-MODE,
# quotebook-app / quotebook-app-before, from this run's rows only (the same alternating rounds).
since = sys.argv[2]
names = sorted({r["name"] for r in rows if r["timestamp"] >= since})
pairs = [(n, n.replace("quotebook-app", "quotebook-app-before") if n == "quotebook-app" else n.replace("quotebook-", "quotebook-before-", 1))
         for n in names if n.startswith("quotebook-") and "before" not in n]
pairs = [(n, b) for n, b in pairs if b in names]
if pairs:
    print()
    print(f"Current / before (the BASELINE_* binaries, this run's rounds since {since}; req/s: above 1 is better; "
          "p99, startup, RSS: below 1 is better)")
    print()
    print("| server | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for n, b in pairs:
        cells = []
        for c in cols:
            x, y = med(n, c, since), med(b, c, since)
            cells.append("-" if x is None or not y else f"{x / y:.2f}x")
        print(f"| {n} vs {b} | " + " | ".join(cells) + " |")
PY
cat "$out/ratios.md"
echo
cat "$out/cpu_per_req.md"
