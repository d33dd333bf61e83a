#!/usr/bin/env bash
# Shows whether GET / latency moves while people sign in. Password hashing (yescrypt, ~17-20 ms a
# hash) runs on the dedicated `password-hash-N` threads (BlockingThreadPool, --hashing-threads),
# never on the event loops or Swift's cooperative pool; this measures GET / with and without a
# sign-in load on the same server.
#
#   A  wrk -t2 -c32 -d15s --latency http://HOST:PORT/                      (GET / alone)
#   B  the same wrk run while tools/signin_load.py signs in with K threads (GET /login, then
#      POST /login: a real user's right password, alternating with an unknown username and a
#      wrong password, which spends the dummy hash)
#
# Phases alternate A B A B ... for ROUNDS rounds on one server (release build, fresh data dir,
# USERS accounts made with `quotebook user add`), after an unrecorded warm-up of each. Medians
# of wrk's p50, p99 and req/s per phase, the B/A ratios, sign-ins per second during B, and the
# server's CPU per GET / (all threads but password-hash-*, from /proc/PID/stat and
# /proc/PID/task/*/stat) are printed and written to Benchmarks/signin-results/.
#
# usage: Benchmarks/signin.sh [ROUNDS]        (default 3)
# env:   DURATION=15         seconds of each wrk run
#        CONNECTIONS=32      wrk connections (wrk threads: 2)
#        SIGNIN_THREADS=8    concurrent sign-in loops in phase B
#        USERS=20            accounts created (bench01 ...)
#        HASHING_THREADS=2   the server's --hashing-threads for the main rounds
#        CONTRAST_THREADS=1  afterwards, one more A B round per value listed here on a server
#                            with that many hashing threads ("" to skip)
#        QUOTEBOOK_BIN       use this binary instead of building
# Output: Benchmarks/signin-results/{run-STAMP.tsv,RESULTS.md,logs/STAMP/}
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-3}
DURATION=${DURATION:-15}
CONNECTIONS=${CONNECTIONS:-32}
SIGNIN_THREADS=${SIGNIN_THREADS:-8}
USERS=${USERS:-20}
HASHING_THREADS=${HASHING_THREADS:-2}
CONTRAST_THREADS=${CONTRAST_THREADS-1}
PASSWORD=bench-signin-password
WARMUP=2   # seconds the sign-in load runs before wrk starts (not counted)

out=$here/signin-results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
tsv=$out/run-$stamp.tsv
logs=$out/logs/$stamp
mkdir -p "$logs"
export PATH=/opt/swift/usr/bin:$PATH

# shellcheck source=tools/quotebook_server.sh
. "$here/tools/quotebook_server.sh"
server_pid= load_pid= data=
cleanup() {
    [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null
    stop_quotebook
    [ -n "$data" ] && rm -rf "$data"
    load_pid= data=
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. tools
command -v python3 >/dev/null || { echo "signin.sh needs python3" >&2; exit 1; }
if ! command -v wrk >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get -o DPkg::Lock::Timeout=300 install -y -qq wrk >/dev/null) ||
        { echo "cannot install wrk (apt-get install wrk)" >&2; exit 1; }
fi

# 2. the release build
build_quotebook

# 3. a fresh data dir with USERS accounts (the CLI, before any server opens the data dir)
new_data() {
    data=$(mktemp -d "${TMPDIR:-/tmp}/quotebook-signin.XXXXXX")
    users=()
    for i in $(seq -w 1 "$USERS"); do
        printf '%s\n' "$PASSWORD" | timeout 30 "$app" user add "bench$i" --data "$data" >/dev/null ||
            { echo "quotebook user add bench$i failed" >&2; exit 1; }
        users+=("bench$i")
    done
    user_list=$(IFS=,; echo "${users[*]}")
}

# 4. the server on a free port; sets server_pid, host, port
start_server() { # hashing-threads
    start_quotebook "$logs/server-h$1" --port 0 --data "$data" --log-level warning --hashing-threads "$1"
    local address=$listening
    port=${address##*:}
    host=${address%:*}
    host=${host#[}; host=${host%]}
    url_host=$host
    [[ $host == *:* ]] && url_host="[$host]"
    [ "$host" = 0.0.0.0 ] && host=127.0.0.1 url_host=127.0.0.1
    [ "$host" = :: ] && host=::1 url_host="[::1]"
}

stop_server() { stop_quotebook; }

# CPU ticks of the server: "all password-hash" (whole process, including threads that exited,
# and the sum over the password-hash-* threads, which live as long as the process).
cpu_ticks() {
    local stat rest total hash=0 t comm f
    stat=$(cat "/proc/$server_pid/stat") || { echo "0 0"; return; }
    rest=${stat##*) }
    read -r -a f <<<"$rest"
    total=$((f[11] + f[12]))
    for t in /proc/"$server_pid"/task/*; do
        comm=$(cat "$t/comm" 2>/dev/null) || continue
        [[ $comm == password-hash* ]] || continue
        stat=$(cat "$t/stat" 2>/dev/null) || continue
        rest=${stat##*) }
        read -r -a f <<<"$rest"
        hash=$((hash + f[11] + f[12]))
    done
    echo "$total $hash"
}
hz=$(getconf CLK_TCK)

# wrk's output → "rps p50_ms p90_ms p99_ms non2xx socket_errors requests"
parse_wrk() {
    awk '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /m$/) return v * 60000; if (v ~ /s$/) return v * 1000; return v }
        $1 == "50%" { p50 = ms($2) } $1 == "90%" { p90 = ms($2) } $1 == "99%" { p99 = ms($2) }
        /^Requests\/sec:/ { rps = $2 }
        / requests in / { requests = $1 }
        /Non-2xx or 3xx responses:/ { non2xx = $NF }
        /Socket errors:/ { gsub(",", ""); errors = $4 + $6 + $8 + $10 }
        END { printf "%s %.3f %.3f %.3f %d %d %d\n", rps, p50, p90, p99, non2xx, errors, requests }
    ' "$1"
}

run_wrk() { # log-file; wrk's CPU seconds go to log-file.cpu
    python3 - "$1" $((DURATION + 30)) wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "http://$url_host:$port/" <<'PY'
import resource, subprocess, sys
with open(sys.argv[1], "w") as log:
    try: subprocess.run(sys.argv[3:], stdout=log, stderr=subprocess.STDOUT, timeout=float(sys.argv[2]))
    except subprocess.TimeoutExpired: print("wrk timed out", file=log)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1] + ".cpu", "w").write(f"{usage.ru_utime + usage.ru_stime:.2f}\n")
PY
}

# The machine's CPU ticks: "busy steal" (busy: user nice system irq softirq, all processes).
machine_ticks() {
    local cpu user nice system idle iowait irq softirq steal rest
    read -r cpu user nice system idle iowait irq softirq steal rest </proc/stat
    echo "$((user + nice + system + irq + softirq)) $steal"
}

run_load() { # warmup duration json-file  (in the background; sets load_pid)
    timeout $((WARMUP + DURATION + 90)) python3 "$here/tools/signin_load.py" --host "$host" --port "$port" \
        --users "$user_list" --password "$PASSWORD" --threads "$SIGNIN_THREADS" --warmup "$1" --duration "$2" >"$3" 2>"$3.err" &
    load_pid=$!
}

json_field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d.get(sys.argv[2]); print("-" if v is None else v)' "$1" "$2" 2>/dev/null || echo -; }

printf 'date\tround\thashing_threads\tphase\trps\tp50_ms\tp90_ms\tp99_ms\tnon2xx\tsocket_errors\tserver_cpu_us_per_get\thash_cpu_s\tsignin_attempts_per_s\tsignins_per_s\tsignin_post_p50_ms\tsignin_post_p99_ms\tsignin_unexpected\tserver_cpu_s\twrk_cpu_s\tsignin_tool_cpu_s\tmachine_busy_cores\tothers_cores\tsteal_cores\tloadavg1\n' >"$tsv"

phase() { # round hashing-threads A|B
    local round=$1 threads=$2 name=$3 base=$logs/r$1-h$2-$3
    local before after load_json=$base-signin.json
    local attempts=- signins=- post50=- post99=- unexpected=- tool_cpu=0 machine_before machine_after
    if [ "$name" = B ]; then
        run_load "$WARMUP" "$DURATION" "$load_json"
        sleep "$WARMUP"
    fi
    before=$(cpu_ticks) machine_before=$(machine_ticks)
    run_wrk "$base-wrk.txt"
    after=$(cpu_ticks) machine_after=$(machine_ticks)
    if [ "$name" = B ]; then
        wait "$load_pid"; load_pid=
        attempts=$(json_field "$load_json" attempts_per_s)
        signins=$(json_field "$load_json" signins_per_s)
        post50=$(json_field "$load_json" post_p50_ms)
        post99=$(json_field "$load_json" post_p99_ms)
        tool_cpu=$(json_field "$load_json" cpu_s)
        unexpected=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(d["other_statuses"].values()) + d["errors"])' "$load_json" 2>/dev/null || echo -)
    fi
    read -r rps p50 p90 p99 non2xx errors requests < <(parse_wrk "$base-wrk.txt")
    read -r t0 h0 <<<"$before"
    read -r t1 h1 <<<"$after"
    local cpu_per_get hash_s
    cpu_per_get=$(awk -v d=$(((t1 - h1) - (t0 - h0))) -v n="$requests" -v hz="$hz" 'BEGIN { if (n > 0) printf "%.1f", d * 1e6 / hz / n; else printf "-" }')
    hash_s=$(awk -v d=$((h1 - h0)) -v hz="$hz" 'BEGIN { printf "%.2f", d / hz }')
    # where the machine's CPU went during the wrk run: ours (server, wrk, sign-in tool), others'
    local server_s wrk_s busy others steal mb0 ms0 mb1 ms1
    read -r mb0 ms0 <<<"$machine_before"
    read -r mb1 ms1 <<<"$machine_after"
    server_s=$(awk -v d=$((t1 - t0)) -v hz="$hz" 'BEGIN { printf "%.2f", d / hz }')
    wrk_s=$(cat "$base-wrk.txt.cpu" 2>/dev/null || echo 0)
    busy=$(awk -v d=$((mb1 - mb0)) -v hz="$hz" -v s="$DURATION" 'BEGIN { printf "%.2f", d / hz / s }')
    steal=$(awk -v d=$((ms1 - ms0)) -v hz="$hz" -v s="$DURATION" 'BEGIN { printf "%.2f", d / hz / s }')
    others=$(awk -v b="$busy" -v a="$server_s" -v w="$wrk_s" -v t="$tool_cpu" -v s="$DURATION" 'BEGIN { o = b - (a + w + t) / s; printf "%.2f", o < 0 ? 0 : o }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$round" "$threads" "$name" "$rps" "$p50" "$p90" "$p99" "$non2xx" "$errors" \
        "$cpu_per_get" "$hash_s" "$attempts" "$signins" "$post50" "$post99" "$unexpected" \
        "$server_s" "$wrk_s" "$tool_cpu" "$busy" "$others" "$steal" "$(cut -d' ' -f1 /proc/loadavg)" >>"$tsv"
    printf 'round %s  h=%s  %s  %8s req/s  p50 %6s ms  p99 %7s ms  CPU/GET %5s us  sign-ins %s/s (attempts %s/s, POST p50 %s ms, p99 %s ms, unexpected %s)  cores: server %s wrk %s tool %s others %s steal %s\n' \
        "$round" "$threads" "$name" "$rps" "$p50" "$p99" "$cpu_per_get" "$signins" "$attempts" "$post50" "$post99" "$unexpected" \
        "$(awk -v x="$server_s" -v s="$DURATION" 'BEGIN { printf "%.2f", x / s }')" "$(awk -v x="$wrk_s" -v s="$DURATION" 'BEGIN { printf "%.2f", x / s }')" \
        "$(awk -v x="$tool_cpu" -v s="$DURATION" 'BEGIN { printf "%.2f", x / s }')" "$others" "$steal" >&2
    sleep 2
}

warm_up() {
    timeout 30 wrk -t2 -c"$CONNECTIONS" -d3s "http://$url_host:$port/" >/dev/null 2>&1
    run_load 0 3 "$logs/warmup-h$1.json"
    wait "$load_pid"; load_pid=
    sleep 1
}

loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)

# 5. main rounds: A B A B ...
new_data
start_server "$HASHING_THREADS"
echo "server pid $server_pid on $url_host:$port, --hashing-threads $HASHING_THREADS, $USERS users" >&2
warm_up "$HASHING_THREADS"
for round in $(seq 1 "$ROUNDS"); do
    phase "$round" "$HASHING_THREADS" A
    phase "$round" "$HASHING_THREADS" B
done
stop_server
rm -rf "$data"; data=

# 6. contrast: one A B round per other hashing-thread count, each on a fresh server and data dir
for threads in $CONTRAST_THREADS; do
    [ "$threads" = "$HASHING_THREADS" ] && continue
    new_data
    start_server "$threads"
    echo "contrast: --hashing-threads $threads" >&2
    warm_up "$threads"
    phase 1 "$threads" A
    phase 1 "$threads" B
    stop_server
    rm -rf "$data"; data=
done

# 7. medians, ratios, RESULTS.md
find "$logs" -type f -empty -delete
cpu=$(awk -F: '/model name/ { sub(/^ +/, "", $2); print $2; exit }' /proc/cpuinfo)
machine="$(nproc) cores ($cpu), $(uname -sr), $(swift --version 2>/dev/null | head -1 | sed 's/ *(.*//')"
python3 - "$tsv" "$HASHING_THREADS" "$ROUNDS" "$stamp" "$machine" "$loadavg_start" \
    "$DURATION" "$CONNECTIONS" "$SIGNIN_THREADS" "$USERS" >"$out/RESULTS.md" <<'PY'
import csv, statistics, sys
path, main_threads, rounds, stamp, machine, loadavg, duration, connections, k, users = sys.argv[1:]
rows = list(csv.DictReader(open(path), delimiter="\t"))
def med(threads, phase, col):
    vals = []
    for r in rows:
        if r["hashing_threads"] == threads and r["phase"] == phase:
            try: vals.append(float(r[col]))
            except ValueError: pass
    return statistics.median(vals) if vals else None
def f(v, fmt="{:,.2f}"):
    return "-" if v is None else fmt.format(v)
def cores(t, p):
    c = lambda col: f(None if med(t, p, col) is None else med(t, p, col) / float(duration), "{:.2f}")
    return f"{c('server_cpu_s')} ({c('hash_cpu_s')}) / {c('wrk_cpu_s')} / {c('signin_tool_cpu_s')} / {f(med(t, p, 'others_cores'))} / {f(med(t, p, 'steal_cores'))}"
first, last = rows[0]["date"], rows[-1]["date"]
print("# GET / while people sign in")
print()
print(f"Run {stamp} ({first} to {last}), `Benchmarks/signin.sh {rounds}`; raw rows: `run-{stamp}.tsv`, wrk and load-tool output: `logs/{stamp}/`.")
print(f"Machine: {machine}; shared, load average {loadavg} at the start. wrk, the sign-in load tool and the server all run on it.")
print()
print(f"A = `wrk -t2 -c{connections} -d{duration}s --latency` on GET / alone; B = the same while `tools/signin_load.py` runs {k} sign-in loops "
      f"(GET /login, POST /login; a right password for one of {users} users, alternating with an unknown username, which spends the dummy hash). "
      "Medians over rounds; CPU/GET counts every server thread but `password-hash-*` (in B it also carries the sign-in pages' HTTP work). "
      "Cores: CPU seconds per second of the wrk run, for the server (of which its hashing threads), wrk, the sign-in tool, every other process "
      "on the machine (/proc/stat busy time minus ours), and time stolen by the hypervisor; the machine has 2.")
print()
print("| --hashing-threads | rounds | phase | GET / req/s | p50 ms | p99 ms | server CPU µs/GET | sign-ins/s (attempts/s) | POST /login p50 / p99 ms | cores: server (hashing) / wrk / tool / others / steal |")
print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
threads_seen = []
for r in rows:
    if r["hashing_threads"] not in threads_seen: threads_seen.append(r["hashing_threads"])
for t in threads_seen:
    n = len({r["round"] for r in rows if r["hashing_threads"] == t})
    for p in ("A", "B"):
        signins = "-" if p == "A" else f"{f(med(t, p, 'signins_per_s'), '{:.1f}')} ({f(med(t, p, 'signin_attempts_per_s'), '{:.1f}')})"
        post = "-" if p == "A" else f"{f(med(t, p, 'signin_post_p50_ms'), '{:.1f}')} / {f(med(t, p, 'signin_post_p99_ms'), '{:.1f}')}"
        print(f"| {t} | {n} | {p} | {f(med(t, p, 'rps'), '{:,.0f}')} | {f(med(t, p, 'p50_ms'))} | {f(med(t, p, 'p99_ms'))} | "
              f"{f(med(t, p, 'server_cpu_us_per_get'), '{:.1f}')} | {signins} | {post} | {cores(t, p)} |")
print()
for t in threads_seen:
    ratio = lambda col: (lambda a, b: "-" if not a or b is None else f"{b / a:.2f}x")(med(t, "A", col), med(t, "B", col))
    print(f"- --hashing-threads {t}: B/A p99 {ratio('p99_ms')}, p50 {ratio('p50_ms')}, req/s {ratio('rps')}.")
bad = [r for r in rows if r["non2xx"] not in ("0", "") or r["socket_errors"] not in ("0", "") or r["signin_unexpected"] not in ("0", "-", "")]
print(f"- Non-2xx GET / answers, socket errors, unexpected sign-in answers (429, 503, errors): {'none' if not bad else f'in {len(bad)} of {len(rows)} rows'}.")
PY
cat "$out/RESULTS.md"
