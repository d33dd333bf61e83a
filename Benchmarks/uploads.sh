#!/usr/bin/env bash
# An upload storm against Quotebook's real app, for the requirement "200 concurrent clients each
# sending a 3 MiB body at once keep the server's peak RSS under 150 MB, and every other client is
# still served".
#
# For each of ROUNDS rounds: a fresh data dir and server (release build, --port 0, --log-level
# notice), then tools/uploads.c (built with gcc): 4 other clients start sending GET / at 200/s in
# all (open loop, each on a new connection; the first second warms up, the next is the
# "before" reference); then CLIENTS connections are opened and, once all are connected, each sends
# a complete POST /profile/photo with a multipart/form-data body of BODY bytes (a csrf_token field
# and one file part; Content-Length). The uploads are paced as CLIENTS clients with equal links would
# send (RATE KiB/s each, CHUNK bytes at a time on one schedule for all: 3 s for 3 MiB at the
# default), so no body is complete before all nearly are and a server that reads what arrives
# holds every body at once: the worst case for a server that buffers bodies (as fast as the
# sockets take, loopback's socket buffers would hold much of the bodies for the server). A
# connection the server does not read holds no other back. Without a session the app answers 403
# (the CSRF check, after parsing the multipart body: a malformed one is a 400), but only after it
# has read the whole body; `answered_early` counts answers that came before the request was
# fully written. The tool samples the server's /proc/PID/status every 10 ms (VmRSS) and reads
# VmHWM (the kernel's peak since the process started) at the end; peak RSS is the larger of the two.
#
# Printed per round and as medians: baseline RSS (at the barrier, after the warm-up), peak RSS
# and RSS one second after the storm (MB = MiB here, as in the other scripts); uploads by status
# (2xx, 3xx, 4xx, 503, other 5xx), connections that failed or broke without an answer; the time
# until every request was written and until every upload was answered; GET / during the storm
# (due from the barrier until the last upload was answered): answered, failed, p50/p99/max
# latency from when each was due; and a verdict against the requirement (peak < LIMIT_MB in
# every round and no GET failed or went unanswered).
#
# usage: Benchmarks/uploads.sh [ROUNDS]        (default 3)
# env:   QUOTEBOOK_BIN=PATH  measure this binary instead of building the package (release,
#                            --scratch-path .build-bench), e.g. /work/before-bin/quotebook
#        LABEL               the rows' label (default: "build-COMMIT", or the binary's path)
#        CLIENTS=200  BODY=3145728 (the app's --max-upload-body: the largest it accepts)
#        RATE=1024           KiB/s per upload; 0: each as fast as its socket takes (then
#                            loopback's socket buffers, tcp_rmem up to 32 MiB here, hold much of
#                            the bodies, and main's peak was about 170-400 MiB instead of ~630)
#        CHUNK=65536         bytes per pacing step
#        SNDBUF=0            the uploads' SO_SNDBUF (0: the kernel's autotuning)
#        GET_CONNECTIONS=4  GET_RATE=200  KEEP_ALIVE=0 (1: the GETs reuse their connections)
#        UPLOAD_PATH=/profile/photo  LIMIT_MB=150
#        SERVER_ARGS         more arguments for the server (e.g. a future budget option)
# Output: Benchmarks/uploads-results/{results.tsv (rows appended), summary.md (this run, then
#         medians of every label in results.tsv; also kept as logs/STAMP/summary.md), logs/STAMP/}
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-3}
CLIENTS=${CLIENTS:-200}
BODY=${BODY:-3145728}
RATE=${RATE:-1024}
CHUNK=${CHUNK:-65536}
SNDBUF=${SNDBUF:-0}
GET_CONNECTIONS=${GET_CONNECTIONS:-4}
GET_RATE=${GET_RATE:-200}
KEEP_ALIVE=${KEEP_ALIVE:-0}
UPLOAD_PATH=${UPLOAD_PATH:-/profile/photo}
LIMIT_MB=${LIMIT_MB:-150}
SERVER_ARGS=${SERVER_ARGS:-}

out=$here/uploads-results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
logs=$out/logs/$stamp
mkdir -p "$logs"
export PATH=/opt/swift/usr/bin:$PATH
ulimit -n $((CLIENTS * 2 + 1024)) 2>/dev/null || { echo "cannot raise the open-file limit for $CLIENTS uploads" >&2; exit 1; }

# shellcheck source=tools/quotebook_server.sh
. "$here/tools/quotebook_server.sh"
server_pid= data= bin_dir=
cleanup() {
    stop_quotebook
    [ -n "$data" ] && rm -rf "$data"
    data=
}
trap 'cleanup; [ -n "$bin_dir" ] && rm -rf "$bin_dir"' EXIT
trap 'exit 130' INT TERM

# 1. tools and the server
command -v python3 >/dev/null || { echo "uploads.sh needs python3" >&2; exit 1; }
command -v gcc >/dev/null || { echo "uploads.sh needs gcc" >&2; exit 1; }
bin_dir=$(mktemp -d "${TMPDIR:-/tmp}/quotebook-uploads.XXXXXX")
gcc -O2 -Wall -Wextra -pthread -o "$bin_dir/uploads" "$here/tools/uploads.c" || { echo "cannot build tools/uploads.c" >&2; exit 1; }
if [ -n "${QUOTEBOOK_BIN:-}" ]; then
    app=$QUOTEBOOK_BIN
    LABEL=${LABEL:-$app}
else
    (cd "$root" && timeout 1800 swift build -c release --scratch-path .build-bench --product quotebook) ||
        { echo "cannot build quotebook" >&2; exit 1; }
    app=$root/.build-bench/release/quotebook
    LABEL=${LABEL:-build-$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)}
fi
[ -x "$app" ] || { echo "no quotebook binary at $app" >&2; exit 1; }

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# 2. rounds
tsv=$out/results.tsv
columns='stamp	label	round	clients	body_bytes	rate_kib_s	chunk	sndbuf	rss_baseline_kib	rss_peak_kib	hwm_kib	rss_peak_sampled_kib	rss_after_kib	s2xx	s3xx	s4xx	s503	s5xx_other	statuses	upload_conn_failed	upload_io_failed	upload_unfinished	answered_early	all_sent_ms	all_done_ms	get_answered	get_failed	get_p50_ms	get_p99_ms	get_max_ms	get_before_p99_ms	loadavg'
[ -s "$tsv" ] || printf '%s\n' "$columns" >"$tsv"
run_tsv=$logs/rounds.tsv
printf '%s\n' "$columns" >"$run_tsv"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load_start=$(loadavg)
keep=()
[ "$KEEP_ALIVE" = 1 ] && keep=(-k)
for round in $(seq 1 "$ROUNDS"); do
    data=$(mktemp -d "${TMPDIR:-/tmp}/quotebook-uploads.XXXXXX")
    # shellcheck disable=SC2086
    start_quotebook "$logs/server-r$round" --port 0 --data "$data" --log-level notice $SERVER_ARGS
    port=${listening##*:}
    json=$logs/uploads-r$round.json
    echo "=== round $round: $CLIENTS uploads of $BODY bytes to $LABEL (pid $server_pid, port $port) ===" >&2
    if ! timeout 300 "$bin_dir/uploads" -p "$port" -P "$server_pid" -n "$CLIENTS" -s "$BODY" -u "$UPLOAD_PATH" \
        -R "$RATE" -c "$CHUNK" -w "$SNDBUF" -g "$GET_CONNECTIONS" -r "$GET_RATE" "${keep[@]}" >"$json" 2>"$json.err"; then
        echo "round $round failed:" >&2; cat "$json.err" >&2; exit 1
    fi
    alive=1
    kill -0 "$server_pid" 2>/dev/null || alive=0
    cleanup
    [ "$alive" = 1 ] || { echo "round $round: the server died during the storm; see $logs/server-r$round.err" >&2; exit 1; }
    python3 - "$json" "$stamp" "$LABEL" "$round" "$(loadavg)" <<'PY' | tee -a "$tsv" >>"$run_tsv"
import json, sys
d = json.load(open(sys.argv[1]))
stamp, label, rnd, load = sys.argv[2:]
peak = max(d["hwm_end_kib"], d["rss_peak_sampled_kib"])
storm, before = d["get_storm"], d["get_before"]
statuses = ",".join(f"{k}:{v}" for k, v in d["status"].items()) or "-"
get_failed = storm["failed"]  # errors, closed without an answer, unanswered, or not 2xx/3xx
row = [stamp, label, rnd, d["uploads"], d["body_bytes"], f'{d["rate_kib_s"]:g}', d["chunk"], d["sndbuf"], d["rss_barrier_kib"], peak, d["hwm_end_kib"],
       d["rss_peak_sampled_kib"], d["rss_after_kib"], d["s2xx"], d["s3xx"], d["s4xx"], d["s503"], d["s5xx_other"], statuses,
       d["connect_failed"], d["io_failed"], d["unfinished"], d["answered_early"], d["all_sent_ms"], d["all_done_ms"],
       storm["answered"], get_failed, storm["p50_ms"], storm["p99_ms"], storm["max_ms"], before["p99_ms"], load]
print("\t".join(str(v) for v in row))
PY
    python3 - "$run_tsv" <<'PY'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))[-1]
mb = lambda k: f"{int(r[k]) / 1024:.1f}"
print(f"round {r['round']}: baseline {mb('rss_baseline_kib')} MB, peak {mb('rss_peak_kib')} MB, after {mb('rss_after_kib')} MB; "
      f"uploads {r['statuses']} (failed {int(r['upload_conn_failed']) + int(r['upload_io_failed'])}, unfinished "
      f"{r['upload_unfinished']}), all answered in {r['all_done_ms']} ms; GET / during the storm: {r['get_answered']} "
      f"answered, {r['get_failed']} failed, p50 {r['get_p50_ms']} p99 {r['get_p99_ms']} max {r['get_max_ms']} ms", file=sys.stderr)
PY
    sleep 1
done
finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# 3. summary.md: this run's rounds and medians, then the medians of every label in results.tsv
python3 - "$run_tsv" "$tsv" "$out/summary.md" "$stamp" "$started" "$finished" "$LABEL" "$app" "$ROUNDS" "$CLIENTS" "$BODY" \
    "$RATE" "$CHUNK" "$SNDBUF" "$GET_CONNECTIONS" "$GET_RATE" "$KEEP_ALIVE" "$UPLOAD_PATH" "$LIMIT_MB" "$load_start" "$(nproc)" \
    "$(uname -sr)" <<'PY'
import csv, statistics, sys
(run_tsv, all_tsv, md, stamp, started, finished, label, app, rounds, clients, body, rate, chunk, sndbuf, gconns, grate, keep,
 path, limit, load, cores, kernel) = sys.argv[1:]
rows = list(csv.DictReader(open(run_tsv), delimiter="\t"))
def num(v):
    try: return float(v)
    except ValueError: return None
def med(rs, col):
    vs = [num(r[col]) for r in rs if num(r[col]) is not None]
    return statistics.median(vs) if vs else None
def mb(v): return "-" if v is None else f"{v / 1024:.1f}"
def ms(v): return "-" if v is None else f"{v:.1f}"
def n(v): return "-" if v is None else f"{v:g}"
header = ("| round | baseline MB | peak MB | after MB | 2xx | 3xx | 4xx | 503 | other 5xx | conn failed | unanswered | "
          "all written ms | all answered ms | GETs answered | GETs failed | GET p50 ms | GET p99 ms | GET max ms | GET p99 before ms |")
lines = [
    f"# Upload storm: {clients} x {int(body) / 1048576:g} MiB at once",
    "",
    f"Run {stamp} ({started} to {finished}), label `{label}`, binary `{app}`; `Benchmarks/uploads.sh {rounds}` with "
    f"CLIENTS={clients} BODY={body} RATE={rate} CHUNK={chunk} SNDBUF={sndbuf} GET_CONNECTIONS={gconns} GET_RATE={grate} "
    f"KEEP_ALIVE={keep} UPLOAD_PATH={path}. Raw rows: `results.tsv`, tool output and server logs: `logs/{stamp}/`.",
    f"Machine: {cores} cores, {kernel}; load average {load} at the start; the load tool runs on the same machine.",
    "",
    "MB = MiB. Peak: the larger of VmHWM at the end and the VmRSS samples (every 10 ms). Baseline: VmRSS when all "
    "upload connections were open, before any byte was sent. After: VmRSS 1 s after the last answer. GETs: GET / due "
    "from the barrier until the last upload was answered, latency from when each was due (open loop).",
    "",
    header,
    "|" + "---:|" * (header.count("|") - 1),
]
for r in rows:
    lines.append(f"| {r['round']} | {mb(num(r['rss_baseline_kib']))} | {mb(num(r['rss_peak_kib']))} | {mb(num(r['rss_after_kib']))} | "
                 f"{r['s2xx']} | {r['s3xx']} | {r['s4xx']} | {r['s503']} | {r['s5xx_other']} | "
                 f"{int(r['upload_conn_failed']) + int(r['upload_io_failed'])} | {r['upload_unfinished']} | {r['all_sent_ms']} | "
                 f"{r['all_done_ms']} | {r['get_answered']} | {r['get_failed']} | {r['get_p50_ms']} | {r['get_p99_ms']} | "
                 f"{r['get_max_ms']} | {r['get_before_p99_ms']} |")
def median_row(name, rs):
    failed = [int(r["upload_conn_failed"]) + int(r["upload_io_failed"]) for r in rs]
    return (f"| {name} | {mb(med(rs, 'rss_baseline_kib'))} | {mb(med(rs, 'rss_peak_kib'))} | {mb(med(rs, 'rss_after_kib'))} | "
            f"{n(med(rs, 's2xx'))} | {n(med(rs, 's3xx'))} | {n(med(rs, 's4xx'))} | {n(med(rs, 's503'))} | {n(med(rs, 's5xx_other'))} | "
            f"{n(statistics.median(failed))} | {n(med(rs, 'upload_unfinished'))} | {ms(med(rs, 'all_sent_ms'))} | "
            f"{ms(med(rs, 'all_done_ms'))} | {n(med(rs, 'get_answered'))} | {n(med(rs, 'get_failed'))} | {ms(med(rs, 'get_p50_ms'))} | "
            f"{ms(med(rs, 'get_p99_ms'))} | {ms(med(rs, 'get_max_ms'))} | {ms(med(rs, 'get_before_p99_ms'))} |")
lines.append(median_row("median", rows))
peaks = [num(r["rss_peak_kib"]) / 1024 for r in rows]
get_bad = sum(int(r["get_failed"]) for r in rows)
ok = max(peaks) < float(limit) and get_bad == 0
lines += [
    "",
    f"Verdict: {'PASS' if ok else 'FAIL'}: peak RSS {min(peaks):.1f} to {max(peaks):.1f} MB over {len(rows)} rounds "
    f"(goal < {limit} MB in every round); {get_bad} GET / failed, went unanswered or was not 2xx/3xx during the storms.",
    "",
    "## Medians of every label in results.tsv (same columns)",
    "",
    header.replace("| round |", "| label (rounds; CLIENTS x BODY, RATE KiB/s, CHUNK, SNDBUF) |"),
    "|---|" + "---:|" * (header.count("|") - 2),
]
everything = list(csv.DictReader(open(all_tsv), delimiter="\t"))
groups = {}
for r in everything:
    groups.setdefault((r["label"], r["clients"], r["body_bytes"], r["rate_kib_s"], r["chunk"], r["sndbuf"]), []).append(r)
for (lab, c, b, ra, ch, sb), rs in groups.items():
    lines.append(median_row(f"{lab} ({len(rs)}; {c} x {b}, {ra}, {ch}, {sb})", rs))
open(md, "w").write("\n".join(lines) + "\n")
open(run_tsv.rsplit("/", 1)[0] + "/summary.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
