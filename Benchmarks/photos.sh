#!/usr/bin/env bash
# Issue 19's limit: "RSS stays under 200 MB while 20 clients upload 20 MiB photos at once, and a
# GET / p99 measured beside it stays under 50 ms". Each round (tools/photo_storm.py) starts a
# fresh server (release build), signs up CLIENTS people, and has each upload a phone-sized JPEG
# of just under 20 MiB (made once with Pillow: 6000 x 4500, noise and gradients, with EXIF) at
# RATE KiB/s, all at once, while tools/openloop.c sends GET / at 200 a second; the server's RSS
# is sampled every 10 ms. Every upload must be answered 303 and every photo served afterwards.
#
# usage: Benchmarks/photos.sh [ROUNDS]     (default 3)
# env:   QUOTEBOOK_BIN=PATH (else a release build in .build-bench), CLIENTS=20 RATE=2048
#        GET_RATE=200, LIMIT_MB=200, P99_LIMIT_MS=50
# Output: Benchmarks/photos-results/{results.jsonl (rows appended), summary.md, logs/STAMP/}
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-3}
LIMIT_MB=${LIMIT_MB:-200}
P99_LIMIT_MS=${P99_LIMIT_MS:-50}
out=$here/photos-results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
logs=$out/logs/$stamp
mkdir -p "$logs"
tools=$(mktemp -d "${TMPDIR:-/tmp}/quotebook-photos-tools.XXXXXX")
trap 'rm -rf "$tools"' EXIT
gcc -O2 -Wall -Wextra -o "$tools/openloop" "$here/tools/openloop.c"
if [ -n "${QUOTEBOOK_BIN:-}" ]; then
    app=$QUOTEBOOK_BIN
else
    (cd "$root" && timeout 1800 swift build -c release --scratch-path .build-bench --product quotebook)
    app=$root/.build-bench/release/quotebook
fi
label=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
photo=$tools/phone.jpg
python3 - "$photo" <<'PY'
import io, sys
from PIL import Image
# A phone-like photo: 27 MP of gradients and noise, the quality chosen so the file is just
# under 20 MiB (the app's limit for a photo).
noise = Image.effect_noise((6000, 4500), 40)
red = Image.linear_gradient("L").resize((6000, 4500))
image = Image.merge("RGB", (red, noise, red.transpose(Image.Transpose.ROTATE_90).resize((6000, 4500))))
for quality in (97, 95, 93, 90, 85, 80):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality)
    if buffer.tell() <= 20 * 1024 * 1024 - 4096:
        break
open(sys.argv[1], "wb").write(buffer.getvalue())
print(f"photo: {buffer.tell()} bytes at quality {quality}", file=sys.stderr)
PY
for round in $(seq 1 "$ROUNDS"); do
    echo "=== round $round ($label) ===" >&2
    timeout 600 python3 "$here/tools/photo_storm.py" "$app" "$tools/openloop" "$photo" "$logs/server-r$round" \
        | python3 -c 'import json,sys; d=json.load(sys.stdin); d["stamp"]=sys.argv[1]; d["label"]=sys.argv[2]; d["round"]=int(sys.argv[3]); d["loadavg"]=open("/proc/loadavg").read().split()[:3]; print(json.dumps(d))' \
            "$stamp" "$label" "$round" | tee -a "$out/results.jsonl" >"$logs/round-$round.json"
    cat "$logs/round-$round.json" >&2
done
python3 - "$logs" "$out/summary.md" "$LIMIT_MB" "$P99_LIMIT_MS" "$(nproc)" <<'PY'
import glob, json, statistics, sys
logs, md, limit, p99_limit, cores = sys.argv[1:]
rows = [json.load(open(path)) for path in sorted(glob.glob(logs + "/round-*.json"))]
lines = [
    f"# Photo uploads: {rows[0]['clients']} people at once, {rows[0]['photo_bytes'] / 1048576:.2f} MiB JPEG each",
    "",
    f"`Benchmarks/photos.sh` run {rows[0]['stamp']} on build {rows[0]['label']} ({cores} cores; the load tools on the same machine). "
    f"Each upload paced at {rows[0]['rate_kib_s']} KiB/s, all at once; GET / at 200/s open loop beside them (tools/openloop.c, "
    "latency from when each was due, over the whole storm). Peak RSS: the larger of VmHWM and the 10 ms VmRSS samples. MB = MiB.",
    "",
    "| round | baseline MB | peak MB | after MB | uploads by status | photos served | storm s | GETs | GET errors | GET p50 ms | GET p99 ms | GET max ms | load |",
    "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
]
for r in rows:
    g = r["get"]
    errors = sum((g.get("errors") or {}).values()) + (g.get("non2xx") or 0)
    lines.append(f"| {r['round']} | {r['rss_baseline_kib'] / 1024:.1f} | {r['rss_peak_kib'] / 1024:.1f} | {r['rss_after_kib'] / 1024:.1f} | "
                 f"{r['statuses']} | {r['photos_served']} | {r['storm_s']} | {g['completed']} | {errors} | {g['p50_ms']} | {g['p99_ms']} | {g['max_ms']} | {' '.join(r['loadavg'])} |")
peak = statistics.median(r["rss_peak_kib"] / 1024 for r in rows)
p99 = statistics.median(r["get"]["p99_ms"] for r in rows)
ok = all(r["rss_peak_kib"] / 1024 < float(limit) and r["get"]["p99_ms"] < float(p99_limit)
         and r["statuses"] == {"303": r["clients"]} and r["photos_served"] == r["clients"] for r in rows)
lines += ["", f"Median peak RSS {peak:.1f} MB (limit {limit}), median GET / p99 {p99} ms (limit {p99_limit}): "
          + ("**met in every round**" if ok else "**not met in every round**") + "."]
open(md, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
cp "$out/summary.md" "$logs/summary.md"
