#!/usr/bin/env bash
# Server CPU per request of Quotebook's real pages against nginx serving the same bytes as static
# files (issue 9, "Fast at any size", and issue 17: every page as a signed-in person sees it at
# most 1.5× nginx's CPU per request, access lines on for both).
#
# 1. A release build and a fresh data dir: USERS accounts (`quotebook user add`), then QUOTES
#    quotes added over HTTP by those users taking turns, and the last one edited EDITS times
#    (tools/pages_seed.py: sign in, POST /quotes, POST /quotes/{id}); the seeder also lists up to
#    SEARCHES searches that each find something in this book (words, pairs, triples).
# 2. The visitor (VISITOR, default signed-in): a person who signs up through the app's real form
#    (GET /signup for the pre-session cookie and the CSRF token, POST /signup, keep the cookies),
#    or one with only the pre-session cookie GET /login sets (pre-session: every page rendered,
#    never the signed-out page cache), or nobody (signed-out: the page cache's path).
#    tools/pages_visitor.py.
# 3. For each page — `/`, `/quotes`, `/quotes/{id}` (the last quote), a search
#    (`/quotes?q=WORDS`, rotating over all the searches, one per request, round robin, with
#    tools/pages_rotate.lua, so that most are searched for real: the app keeps only searches
#    that read more than 64 candidate keys, about 13 % of these),
#    `/users/reader1` and `/quotes/{id}/history` — the exact body the visitor gets, with the
#    visitor's cookies (pages carry a CSRF token bound to the session), is fetched once and put in
#    an nginx root, served at the same URL with the same Content-Type (a search: one file per
#    query, `/search/$arg_q.html`). Both servers get the same requests with the same Cookie
#    header, and both write an access line per request (Quotebook at its default log level,
#    info, to a file; nginx's access_log to a file; both files emptied after each run).
# 4. Rounds: for each page, wrk against Quotebook then nginx (the order flips every round: A B,
#    B A, ...), `wrk -t1 -cCONNECTIONS -dDURATION` after a 1 s warm-up, the same for both. Server
#    CPU per request = (utime+stime of the server: Quotebook's process; nginx's master + workers,
#    from /proc) / requests completed, and each of the two apart (user space, kernel).
#    /proc/loadavg is recorded with every run, and the CPU /proc/cpuinfo names in the summary.
# 5. Medians per page and server, and Quotebook / nginx, printed and written to
#    Benchmarks/pages-results/latest-VISITOR.md, every run in latest-runs-VISITOR.tsv and every
#    wrk output in latest-wrk-VISITOR.txt — never over RESULTS.md or a run it cites (copy a run's
#    files beside it under their own names to keep them).
#
# usage: Benchmarks/pages.sh [ROUNDS]          (default 3)
# env:   VISITOR=signed-in|pre-session|signed-out   (default signed-in; RENDER=1 = pre-session)
#        DURATION=6  CONNECTIONS=32  USERS=4  QUOTES=200  EDITS=10  SEARCHES=1024
#        ACCESS_LOG=0    neither server writes access lines (Quotebook --log-level warning,
#                        nginx access_log off), as runs before issue 17 measured
#        QUOTEBOOK_BIN   use this binary instead of building
#        LABEL           a note for the summary (e.g. the commit measured)
#        KEEP=1          leave the servers running at the end and print their pids and ports
#                        (for profiling; stop them yourself)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-3}
DURATION=${DURATION:-6}
CONNECTIONS=${CONNECTIONS:-32}
USERS=${USERS:-4}
QUOTES=${QUOTES:-200}
EDITS=${EDITS:-10}
SEARCHES=${SEARCHES:-1024}
ACCESS_LOG=${ACCESS_LOG:-1}
VISITOR=${VISITOR:-signed-in}
[ "${RENDER:-0}" = 1 ] && VISITOR=pre-session
case $VISITOR in signed-in|pre-session|signed-out) ;; *) echo "VISITOR: signed-in, pre-session or signed-out" >&2; exit 64 ;; esac
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

# 2. the book (tools/pages_book.sh, shared with refcounts.sh)
log_level=info
[ "$ACCESS_LOG" = 0 ] && log_level=warning
app_log=$work/app.err   # Quotebook's log (access lines at info): emptied after each run
. "$here/tools/quotebook_server.sh"
. "$here/tools/pages_book.sh"
pages_book "$work/data" "$work/app" "$log_level" "$work/queries.txt"

# the visitor: the Cookie header both servers get with every request (none signed out)
cookie=$(python3 "$here/tools/pages_visitor.py" cookie --port "$app_port" --visitor "$VISITOR") ||
    { echo "no $VISITOR visitor" >&2; exit 1; }
headers=()
[ -n "$cookie" ] && headers=(-H "Cookie: $cookie")

# 3. the same bytes for nginx: name|URL|file (the search: @ the paths file wrk rotates over)
pages=("home|/|home.html" "list|/quotes|list.html" "quote|/quotes/$last_id|quote.html"
       "search|@$work/search-paths.txt|search/" "user|/users/reader1|user.html"
       "history|/quotes/$last_id/history|history.html")
html=$work/nginx/html
mkdir -p "$html" "$work/nginx/run"
chmod 755 "$work/nginx" "$html"
: >"$work/fetch.txt"
: >"$work/search-paths.txt"
for entry in "${pages[@]}"; do
    IFS='|' read -r name url file <<<"$entry"
    [[ $url == @* ]] || printf '%s %s\n' "$url" "$file" >>"$work/fetch.txt"
done
while read -r q; do
    printf '/quotes?q=%s\n' "$q" >>"$work/search-paths.txt"
    printf '/quotes?q=%s search/%s.html\n' "$q" "$q" >>"$work/fetch.txt"
done <"$work/queries.txt"
python3 "$here/tools/pages_visitor.py" fetch --port "$app_port" --cookie "$cookie" --root "$html" --list "$work/fetch.txt" ||
    { echo "fetching the pages failed" >&2; exit 1; }
chmod -R a+rX "$html"
searches=$(wc -l <"$work/search-paths.txt")
nginx_log=$work/nginx/run/access.log
access_log="access_log $nginx_log;"
[ "$ACCESS_LOG" = 0 ] && access_log="access_log off;"
# nginx on the first free port after the app's: a port found free can be taken before nginx
# binds it (by an ephemeral port of some other connection), so a start that fails moves on.
write_nginx_conf() {
cat >"$work/nginx/run/nginx.conf" <<EOF
worker_processes auto;
worker_rlimit_nofile 16384;
pid run/nginx.pid;
error_log run/error.log warn;
events { worker_connections 8192; }
http {
    default_type text/html;
    charset utf-8;
    $access_log
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
    # /quotes is the list; /quotes?q=WORDS is that search's file, named by the query as sent
    map \$arg_q \$list_file { "" /list.html; default /search/\$arg_q.html; }
    server {
        listen 127.0.0.1:$nginx_port backlog=4096;
        root html;
        location = / { try_files /home.html =404; }
        location = /quotes { try_files \$list_file =404; }
        location ~ ^/quotes/[0-9]+\$ { try_files /quote.html =404; }
        location ~ ^/quotes/[0-9]+/history\$ { try_files /history.html =404; }
        location ~ ^/users/[^/]+\$ { try_files /user.html =404; }
    }
}
EOF
}
nginx_port=$app_port nginx_pid=
for _ in 1 2 3 4 5; do
    nginx_port=$((nginx_port + 1))
    while (echo >/dev/tcp/127.0.0.1/$nginx_port) 2>/dev/null; do nginx_port=$((nginx_port + 1)); done
    write_nginx_conf
    (cd "$work/nginx" && exec nginx -p "$work/nginx/" -c run/nginx.conf -g 'daemon off;') >"$work/nginx.out" 2>&1 &
    nginx_pid=$!
    for _ in $(seq 1 50); do
        curl -s -o /dev/null "http://127.0.0.1:$nginx_port/" && break 2
        kill -0 "$nginx_pid" 2>/dev/null || break   # it exited: the port was taken meanwhile
        sleep 0.1
    done
    kill "$nginx_pid" 2>/dev/null; wait "$nginx_pid" 2>/dev/null
    echo "nginx did not start on port $nginx_port: $(tail -n 1 "$work/nginx.out" 2>/dev/null)" >&2
    nginx_pid=
done
[ -n "$nginx_pid" ] || { echo "nginx did not start" >&2; exit 1; }
python3 "$here/tools/pages_visitor.py" check --port "$nginx_port" --root "$html" --list "$work/fetch.txt" ||
    { cat "$work/nginx.out" "$work/nginx/run/error.log" >&2; exit 1; }
# The visitor's pages must not have changed since they were fetched (no clock on them).
python3 "$here/tools/pages_visitor.py" check --port "$app_port" --cookie "$cookie" --root "$html" --list "$work/fetch.txt" ||
    { echo "Quotebook's pages changed since they were fetched" >&2; exit 1; }

# utime and stime ticks of a process and its direct children (nginx: master + workers): "USER SYS"
ticks() {
    local user=0 sys=0 pid stat rest f
    for pid in "$1" $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
        rest=${stat##*) }
        read -r -a f <<<"$rest"
        user=$((user + f[11])) sys=$((sys + f[12]))
    done
    echo "$user $sys"
}
hz=$(getconf CLK_TCK)

# Written fresh each run, beside (never over) the curated RESULTS.md and the runs it cites.
runs=$out/latest-runs-$VISITOR.tsv
summary=$out/latest-$VISITOR.md
wrklog=$out/latest-wrk-$VISITOR.txt
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
printf 'date\tround\tpage\tserver\trequests\trps\tserver_cpu_s\tcpu_us_per_req\tnon2xx\tloadavg1\taccess_lines\tuser_us_per_req\tsys_us_per_req\n' >"$runs"
: >"$wrklog"
empty_logs() { : >"$app_log"; if [ -f "$nginx_log" ]; then : >"$nginx_log"; fi; }
measure() { # round page server pid port url (@FILE: rotate over the paths in FILE)
    local user0 sys0 user1 sys1 log=$work/wrk.txt requests rps non2xx load lines
    local args=(-t1 -c"$CONNECTIONS" "${headers[@]}")
    if [[ $6 == @* ]]; then
        args+=(-s "$here/tools/pages_rotate.lua" "http://127.0.0.1:$5/" -- "${6#@}")
    else
        args+=("http://127.0.0.1:$5$6")
    fi
    # warm-up (not counted): one second
    wrk -d1s "${args[@]}" >/dev/null 2>&1
    empty_logs
    read -r user0 sys0 < <(ticks "$4")
    wrk -d"${DURATION}s" "${args[@]}" >"$log" 2>&1
    read -r user1 sys1 < <(ticks "$4")
    read -r load _ </proc/loadavg
    if [ "$3" = nginx ]; then
        lines=$(cat "$nginx_log" 2>/dev/null | wc -l)
    else
        lines=$(grep -c ' GET /' "$app_log")
    fi
    empty_logs
    { echo "== round $1, $2, $3, ${6/#@*/the searches in turn} (load $load)"; cat "$log"; } >>"$wrklog"
    requests=$(awk '/ requests in / {print $1}' "$log")
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$log")
    non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$log")
    python3 - "$1" "$2" "$3" "${requests:-0}" "${rps:-0}" "$((user1 - user0))" "$((sys1 - sys0))" "$hz" "${non2xx:-0}" "$load" "$stamp" "${lines:-0}" >>"$runs" <<'PY'
import sys
rnd, page, server, requests, rps, user, system, hz, non2xx, load, stamp, lines = sys.argv[1:]
cpu = (int(user) + int(system)) / int(hz)
def per(seconds): return seconds / int(requests) * 1e6 if int(requests) else float("nan")
print(f"{stamp}\t{rnd}\t{page}\t{server}\t{requests}\t{rps}\t{cpu:.2f}\t{per(cpu):.1f}\t{non2xx}\t{load}\t{lines}"
      f"\t{per(int(user) / int(hz)):.2f}\t{per(int(system) / int(hz)):.2f}")
PY
    tail -n 1 "$runs" >&2
}

# 4. rounds, alternating the order
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

# 5. medians and ratios
page_list="/, /quotes, /quotes/$last_id, /quotes?q=… ($searches searches that find something, one per request, round robin), /users/reader1, /quotes/$last_id/history ($((EDITS + 1)) versions)"
python3 - "$runs" "$ROUNDS" "$DURATION" "$CONNECTIONS" "$QUOTES" "$USERS" "${LABEL:-$(cd "$root" && git rev-parse --short HEAD 2>/dev/null)}" \
    "$page_list" "$VISITOR" "$ACCESS_LOG" "$(nproc)" "$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)" >"$summary" <<'PY'
import csv, os, statistics, sys
path, rounds, duration, conns, quotes, users, label, urls, visitor, access, cores, cpu = sys.argv[1:]
who = {
    "signed-in": "signed-in (a session made by signing up through the form, its cookies on every request)",
    "pre-session": "pre-session (the cookie GET /login sets, on every request: every page rendered)",
    "signed-out": "signed-out (no cookie: the page cache's path)",
}[visitor]
logs = ("both servers writing an access line per request (Quotebook at info, nginx access_log, each to a file)"
        if access == "1" else "no access lines (Quotebook --log-level warning, nginx access_log off)")
rows = list(csv.DictReader(open(path), delimiter="\t"))
pages = []
for r in rows:
    if r["page"] not in pages: pages.append(r["page"])
def values(page, server, col):
    return [float(r[col]) for r in rows if r["page"] == page and r["server"] == server]
def med(page, server, col):
    v = values(page, server, col)
    return statistics.median(v) if v else float("nan")
loads = [float(r["loadavg1"]) for r in rows]
print("# Server CPU per request: Quotebook's pages vs nginx serving the same bytes\n")
print(f"Measured by `Benchmarks/pages.sh` ({label}, {rows[0]['date']}): {quotes} quotes by {users} users, "
      f"{who} GETs, {logs}; `wrk -t1 -c{conns} -d{duration}s`, {rounds} rounds alternating Quotebook/nginx "
      "(A B, B A, ...). CPU = utime+stime from /proc of the server (nginx: master + workers) ÷ requests. "
      f"Load average (1 min) during the runs: {min(loads):.2f}–{max(loads):.2f} on {cores} cores; "
      f"`/proc/cpuinfo` names the CPU `{cpu or 'unknown'}`.\n")
print(f"Pages: {urls}.\n")
print("| page | Quotebook µs/req | nginx µs/req | ratio (goal ≤ 1.5×) | Quotebook, each round | nginx, each round | Quotebook req/s | nginx req/s |")
print("|---|---|---|---|---|---|---|---|")
for p in pages:
    q, n = med(p, "quotebook", "cpu_us_per_req"), med(p, "nginx", "cpu_us_per_req")
    qa = ", ".join(f"{v:.1f}" for v in values(p, "quotebook", "cpu_us_per_req"))
    na = ", ".join(f"{v:.1f}" for v in values(p, "nginx", "cpu_us_per_req"))
    print(f"| {p} | {q:.1f} | {n:.1f} | {q / n:.2f}× | {qa} | {na} | {med(p, 'quotebook', 'rps'):,.0f} | {med(p, 'nginx', 'rps'):,.0f} |")
print("\nWhere the CPU goes: user space (the server's own code) and the kernel (sockets, epoll, the "
      "access log's writes), µs per request, medians; the user-space ratio is the part a faster or "
      "slower CPU moves most, the kernel's moves with its cost per system call.\n")
print("| page | Quotebook user | nginx user | user ratio | Quotebook kernel | nginx kernel | kernel ratio |")
print("|---|---|---|---|---|---|---|")
for p in pages:
    qu, nu = med(p, "quotebook", "user_us_per_req"), med(p, "nginx", "user_us_per_req")
    qs, ns = med(p, "quotebook", "sys_us_per_req"), med(p, "nginx", "sys_us_per_req")
    print(f"| {p} | {qu:.2f} | {nu:.2f} | {qu / nu:.2f}× | {qs:.2f} | {ns:.2f} | {qs / ns:.2f}× |")
bad = sum(int(r["non2xx"]) for r in rows)
print(f"\nMedians over the rounds; every run is in `{os.path.basename(path)}` (with the access lines each "
      f"server wrote during it), every wrk output in `latest-wrk-{visitor}.txt`. Non-2xx answers in all runs: {bad}.")
PY
cat "$summary"
if [ "${KEEP:-0}" = 1 ]; then
    echo "kept running: quotebook pid $app_pid port $app_port, nginx pid $nginx_pid port $nginx_port, work $work" >&2
fi
