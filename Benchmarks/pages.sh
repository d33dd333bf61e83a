#!/usr/bin/env bash
# Server CPU per request of Quotebook's real pages against nginx serving the same bytes as static
# files (issue 9, "Fast at any size": goal ≤ 1.5× nginx's CPU per request on each page).
#
# 1. A release build and a fresh data dir: USERS accounts (`quotebook user add`), then QUOTES
#    quotes added over HTTP by those users taking turns (tools/pages_seed.py: sign in, POST /quotes).
# 2. For each page — `/`, `/quotes`, `/quotes?q=river` (search; without it the list page) and
#    `/quotes/{id}` (the last quote added) — the exact body a signed-out visitor gets is fetched
#    once and put in an nginx root, served at the same URL with the same Content-Type.
# 3. Rounds: for each page, wrk against Quotebook then nginx (the order flips every round: A B,
#    B A, ...), `wrk -t1 -cCONNECTIONS -dDURATION`, the same for both. Server CPU per request =
#    (utime+stime of the server: Quotebook's process; nginx's master + workers, from /proc) /
#    requests completed. /proc/loadavg is recorded with every run.
# 4. Medians per page and server, and Quotebook / nginx, printed and written to
#    Benchmarks/pages-results/latest.md (every run in latest-runs.tsv; with RENDER=1
#    latest-render.md and latest-runs-render.tsv), never over RESULTS.md, which is written by
#    hand from the runs it cites (copy a run's files beside it under their own names to keep them).
#
# usage: Benchmarks/pages.sh [ROUNDS]          (default 3)
# env:   DURATION=6  CONNECTIONS=32  USERS=4  QUOTES=200  SEARCH=river
#        QUOTEBOOK_BIN   use this binary instead of building
#        LABEL           a note for the summary (e.g. the commit measured)
#        KEEP=1          leave the servers running at the end and print their pids and ports
#                        (for profiling; stop them yourself)
#        RENDER=1        every request renders its page: all requests (to both servers) carry
#                        a pre-session cookie, whose pages the signed-out page cache never
#                        serves — the cost of a page nobody asked for since the last change
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-3}
DURATION=${DURATION:-6}
CONNECTIONS=${CONNECTIONS:-32}
USERS=${USERS:-4}
QUOTES=${QUOTES:-200}
SEARCH=${SEARCH:-river}
PASSWORD=bench-pages-password
out=$here/pages-results
work=$(mktemp -d "${TMPDIR:-/tmp}/quotebook-pages.XXXXXX")
mkdir -p "$out"
chmod 755 "$work"   # nginx workers run as another user and read the pages from here
export PATH=/opt/swift/usr/bin:$PATH

app_pid= nginx_pid=
cleanup() {
    if [ "${KEEP:-0}" = 1 ]; then return; fi
    for pid in $app_pid $nginx_pid; do
        kill -TERM "$pid" 2>/dev/null
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. tools and the release build
command -v python3 >/dev/null || { echo "pages.sh needs python3" >&2; exit 1; }
if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get -o DPkg::Lock::Timeout=300 install -y -qq wrk nginx >/dev/null) ||
        { echo "cannot install wrk and nginx" >&2; exit 1; }
fi
app=${QUOTEBOOK_BIN:-}
if [ -z "$app" ]; then
    (cd "$root" && timeout 1800 swift build -c release --product quotebook) || { echo "cannot build quotebook" >&2; exit 1; }
    app=$root/.build/release/quotebook
fi

# 2. the book
data=$work/data
mkdir -p "$data"
users=()
for i in $(seq 1 "$USERS"); do
    printf '%s\n' "$PASSWORD" | timeout 30 "$app" user add "reader$i" --data "$data" >/dev/null ||
        { echo "quotebook user add reader$i failed" >&2; exit 1; }
    users+=("reader$i")
done
(cd "$root" && exec "$app" --port 0 --data "$data" --log-level warning) >"$work/app.out" 2>"$work/app.err" &
app_pid=$!
line=
for _ in $(seq 1 100); do
    line=$(grep -m1 '^Quotebook listening on http://' "$work/app.out" 2>/dev/null) && break
    kill -0 "$app_pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$line" ] || { echo "quotebook did not start:" >&2; cat "$work/app.err" >&2; exit 1; }
app_port=${line##*:}
last_id=$(python3 "$here/tools/pages_seed.py" --port "$app_port" --users "$(IFS=,; echo "${users[*]}")" \
    --password "$PASSWORD" --quotes "$QUOTES") || { echo "seeding failed" >&2; exit 1; }

# RENDER=1: a pre-session cookie (what GET /login gives a signed-out browser) on every request
headers=()
if [ "${RENDER:-0}" = 1 ]; then
    presession=$(curl -s -o /dev/null -D - "http://127.0.0.1:$app_port/login" | tr -d '\r' |
        sed -n 's/^[Ss]et-[Cc]ookie: \(quotebook_presession=[^;]*\).*/\1/p')
    [ -n "$presession" ] || { echo "GET /login set no pre-session cookie" >&2; exit 1; }
    headers=(-H "Cookie: $presession")
fi

# 3. the same bytes for nginx: name|URL|file
pages=("home|/|home.html" "list|/quotes|list.html" "search|/quotes?q=$SEARCH|search.html" "quote|/quotes/$last_id|quote.html")
html=$work/nginx/html
mkdir -p "$html" "$work/nginx/run"
chmod 755 "$work/nginx" "$html"
for entry in "${pages[@]}"; do
    IFS='|' read -r name url file <<<"$entry"
    status=$(curl -s "${headers[@]}" -o "$html/$file" -w '%{http_code} %{content_type}' "http://127.0.0.1:$app_port$url")
    [[ $status == "200 text/html; charset=utf-8" ]] || { echo "GET $url: $status" >&2; exit 1; }
done
nginx_port=$((app_port + 1))
while (echo >/dev/tcp/127.0.0.1/$nginx_port) 2>/dev/null; do nginx_port=$((nginx_port + 1)); done
cat >"$work/nginx/run/nginx.conf" <<EOF
worker_processes auto;
worker_rlimit_nofile 16384;
pid run/nginx.pid;
error_log run/error.log warn;
events { worker_connections 8192; }
http {
    default_type text/html;
    charset utf-8;
    access_log off;
    server_tokens off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 75s;
    keepalive_requests 1000000;
    client_body_temp_path run/client_body;
    proxy_temp_path run/proxy;
    fastcgi_temp_path run/fastcgi;
    uwsgi_temp_path run/uwsgi;
    scgi_temp_path run/scgi;
    map \$arg_q \$list_file { "" /list.html; default /search.html; }
    server {
        listen 127.0.0.1:$nginx_port backlog=4096;
        root html;
        location = / { try_files /home.html =404; }
        location = /quotes { try_files \$list_file =404; }
        location ~ ^/quotes/[0-9]+\$ { try_files /quote.html =404; }
    }
}
EOF
(cd "$work/nginx" && exec nginx -p "$work/nginx/" -c run/nginx.conf -g 'daemon off;') >"$work/nginx.out" 2>&1 &
nginx_pid=$!
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$nginx_port/" && break; sleep 0.1; done
for entry in "${pages[@]}"; do
    IFS='|' read -r name url file <<<"$entry"
    cmp -s <(curl -s "http://127.0.0.1:$nginx_port$url") "$html/$file" || { echo "nginx does not serve $url's bytes:" >&2; cat "$work/nginx.out" "$work/nginx/run/error.log" >&2; exit 1; }
done

# utime+stime ticks of a process and its direct children (nginx: master + workers)
ticks() {
    local total=0 pid stat rest f
    for pid in "$1" $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
        rest=${stat##*) }
        read -r -a f <<<"$rest"
        total=$((total + f[11] + f[12]))
    done
    echo "$total"
}
hz=$(getconf CLK_TCK)

# Written fresh each run, beside (never over) the curated RESULTS.md and the runs it cites.
suffix=""
[ "${RENDER:-0}" = 1 ] && suffix="-render"
runs=$out/latest-runs$suffix.tsv
summary=$out/latest$suffix.md
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
printf 'date\tround\tpage\tserver\trequests\trps\tserver_cpu_s\tcpu_us_per_req\tnon2xx\tloadavg1\n' >"$runs"
measure() { # round page server pid port url
    local before after log=$work/wrk.txt requests rps non2xx load
    # warm-up (not counted): one second
    wrk -t1 -c"$CONNECTIONS" -d1s "${headers[@]}" "http://127.0.0.1:$5$6" >/dev/null 2>&1
    before=$(ticks "$4")
    wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" "${headers[@]}" "http://127.0.0.1:$5$6" >"$log" 2>&1
    after=$(ticks "$4")
    read -r load _ </proc/loadavg
    requests=$(awk '/ requests in / {print $1}' "$log")
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$log")
    non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$log")
    python3 - "$1" "$2" "$3" "${requests:-0}" "${rps:-0}" "$((after - before))" "$hz" "${non2xx:-0}" "$load" "$stamp" >>"$runs" <<'PY'
import sys
rnd, page, server, requests, rps, ticks, hz, non2xx, load, stamp = sys.argv[1:]
cpu = int(ticks) / int(hz)
per = cpu / int(requests) * 1e6 if int(requests) else float("nan")
print(f"{stamp}\t{rnd}\t{page}\t{server}\t{requests}\t{rps}\t{cpu:.2f}\t{per:.1f}\t{non2xx}\t{load}")
PY
    tail -n 1 "$runs" >&2
}

for round in $(seq 1 "$ROUNDS"); do
    for entry in "${pages[@]}"; do
        IFS='|' read -r name url file <<<"$entry"
        if [ $((round % 2)) -eq 1 ]; then
            measure "$round" "$name" quotebook "$app_pid" "$app_port" "$url"
            measure "$round" "$name" nginx "$nginx_pid" "$nginx_port" "$url"
        else
            measure "$round" "$name" nginx "$nginx_pid" "$nginx_port" "$url"
            measure "$round" "$name" quotebook "$app_pid" "$app_port" "$url"
        fi
    done
done

# 4. medians and ratios
python3 - "$runs" "$ROUNDS" "$DURATION" "$CONNECTIONS" "$QUOTES" "$USERS" "${LABEL:-$(cd "$root" && git rev-parse --short HEAD 2>/dev/null)}" \
    "$(for e in "${pages[@]}"; do u=${e#*|}; printf '%s ' "${u%|*}"; done)" "${RENDER:-0}" >"$summary" <<'PY'
import csv, os, statistics, sys
path, rounds, duration, conns, quotes, users, label, urls, render = sys.argv[1:]
visitor = "signed-out (with a pre-session cookie: every page rendered, RENDER=1)" if render == "1" else "signed-out"
rows = list(csv.DictReader(open(path), delimiter="\t"))
pages = []
for r in rows:
    if r["page"] not in pages: pages.append(r["page"])
def med(page, server, col):
    v = [float(r[col]) for r in rows if r["page"] == page and r["server"] == server]
    return statistics.median(v) if v else float("nan")
loads = [float(r["loadavg1"]) for r in rows]
print("# Server CPU per request: Quotebook's pages vs nginx serving the same bytes\n")
print(f"Measured by `Benchmarks/pages.sh` ({label}, {rows[0]['date']}): {quotes} quotes by {users} users, {visitor} "
      f"GETs, `wrk -t1 -c{conns} -d{duration}s`, {rounds} rounds alternating Quotebook/nginx (A B, B A, ...). "
      "CPU = utime+stime from /proc of the server (nginx: master + workers) ÷ requests. "
      f"Load average (1 min) during the runs: {min(loads):.2f}–{max(loads):.2f} on 2 cores.\n")
print(f"Pages: {urls.strip()}\n")
print("| page | Quotebook µs/req | nginx µs/req | ratio (goal ≤ 1.5×) | Quotebook req/s | nginx req/s |")
print("|---|---|---|---|---|---|")
for p in pages:
    q, n = med(p, "quotebook", "cpu_us_per_req"), med(p, "nginx", "cpu_us_per_req")
    print(f"| {p} | {q:.1f} | {n:.1f} | {q / n:.2f}× | {med(p, 'quotebook', 'rps'):,.0f} | {med(p, 'nginx', 'rps'):,.0f} |")
print(f"\nMedians over the rounds; every run is in `{os.path.basename(path)}`.")
PY
cat "$summary"
if [ "${KEEP:-0}" = 1 ]; then
    echo "kept running: quotebook pid $app_pid port $app_port, nginx pid $nginx_pid port $nginx_port, work $work" >&2
fi
