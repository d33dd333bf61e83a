#!/usr/bin/env bash
# A quote's history page with 2,000 versions, idle and while 16 writers save, on a release
# server with SQLite (Benchmarks/tools/history_load.py); optionally a second binary side by side.
#
# usage: Benchmarks/history.sh [ROUNDS]         (default 3)
# env:   QUOTEBOOK_BIN   the quotebook to measure (default: a release build of this package)
#        BASELINE_BIN    another quotebook measured the same way in each round, first, with
#                        the templates of BASELINE_ROOT (default: this package's)
#        VERSIONS, WRITERS, READS   passed to history_load.py (default 2000, 16, 200)
# Output: Benchmarks/history-results/run-<UTC time>/{<name>-r<N>.json, server logs}, and a
#         summary.md there with the medians over rounds.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-3}
source "$here/tools/quotebook_server.sh"
build_quotebook
run=$here/history-results/run-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
work=$(mktemp -d /tmp/quotebook-history.XXXXXX)
trap 'stop_quotebook || true; rm -rf "$work"' EXIT

binaries=()
[ -n "${BASELINE_BIN:-}" ] && binaries+=("baseline|$BASELINE_BIN|${BASELINE_ROOT:-$root}")
binaries+=("quotebook|$app|$root")
for round in $(seq 1 "$ROUNDS"); do
    for entry in "${binaries[@]}"; do
        IFS='|' read -r name app templates <<<"$entry"
        rm -rf "$work/data"
        start_quotebook "$run/$name-r$round-server" --port 0 --data "$work/data" --root "$templates" --log-level warning
        python3 "$here/tools/history_load.py" --port "${listening##*:}" --versions "${VERSIONS:-2000}" \
            --writers "${WRITERS:-16}" --reads "${READS:-200}" >"$run/$name-r$round.json"
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
lines = [f"# History page, {os.path.basename(run)}: medians over rounds", "",
         "| binary | rounds | page bytes | idle p50 / p99 ms | 16 writers p50 / p99 / max ms | saves/s during reads |",
         "|---|---:|---:|---:|---:|---:|"]
for name, results in rows.items():
    med = lambda f: statistics.median(f(r) for r in results)
    lines.append(
        f"| {name} | {len(results)} | {med(lambda r: r['idle']['page_bytes']):.0f} "
        f"| {med(lambda r: r['idle']['history_ms']['p50']):.2f} / {med(lambda r: r['idle']['history_ms']['p99']):.2f} "
        f"| {med(lambda r: r['under_writers']['history_ms']['p50']):.2f} / {med(lambda r: r['under_writers']['history_ms']['p99']):.2f}"
        f" / {med(lambda r: r['under_writers']['history_ms']['max']):.2f} "
        f"| {med(lambda r: r['under_writers']['saves_per_second']):.0f} |")
open(os.path.join(run, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
