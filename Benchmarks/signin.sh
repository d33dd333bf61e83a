#!/usr/bin/env bash
# Shows whether GET / latency moves while people sign in. Password hashing (yescrypt, ~17-20 ms a
# hash) runs on the dedicated `password-hash-N` threads (BlockingThreadPool, --hashing-threads),
# never on the event loops or Swift's cooperative pool; this measures GET / with and without a
# sign-in load on the same server. Two modes:
#
# Closed loop (the default) — how much GET / loses when sign-ins compete for saturated cores:
#   A  wrk -t2 -c32 -d15s --latency http://HOST:PORT/                      (GET / alone)
#   B  the same wrk run while tools/signin_load.py signs in with K threads (GET /login, then
#      POST /login: a real user's right password, alternating with an unknown username and a
#      wrong password, which spends the dummy hash)
#   Phases alternate A B A B ... for ROUNDS rounds on one server, after an unrecorded warm-up of
#   each. wrk keeps 32 requests in flight, so both cores are busy and any CPU a hash takes shows
#   up as queueing; it measures contention at saturation, not whether hashing blocks a loop.
#
# Open loop (--open-loop) — the latency a GET / sees at a fixed rate below saturation:
#   First three 5 s closed-loop wrk runs measure the server's saturation rate here and now;
#   RATE = FRACTION x their median (unless RATE is given). Then tools/openloop.c (built with gcc)
#   sends GET / at RATE on OPEN_CONNECTIONS keep-alive connections on a fixed schedule and
#   measures each latency from the request's scheduled time (no coordinated omission):
#   A       GET / at RATE alone
#   nice10  the same while tools/signin_load.py signs in (as in B above), the hashing threads
#           SCHED_OTHER at nice 10
#   idle    the same with the hashing threads under SCHED_IDLE
#   and, to tell causes apart, with PHASES naming them (no sign-ins; HASHING_THREADS threads of
#   tools/cpuhog.c in a process of its own, in the class after the dash):
#   spin-idle   pure user-space spinning: the scheduler alone
#   crypt-idle  the server's yescrypt hash in a loop: its kernel work, but not in the server's
#               address space
#   The script switches the running server's password-hash-* threads between the two classes
#   with chrt and renice (the calls BlockingThreadPool makes from each thread; root or
#   CAP_SYS_NICE is needed to leave SCHED_IDLE or lower a nice value) and reads the class back
#   from /proc into every row. Each round runs the phases in a rotated order (A nice10 idle,
#   nice10 idle A, idle A nice10, ...). Besides the percentiles it records the run-queue
#   wait of the serving threads (all but password-hash-*) and of the hashing threads
#   (/proc/PID/task/TID/schedstat: time runnable but not running) and the 1-minute load average
#   at the start and end of every phase. A shared machine's other work dominates the tail, so
#   each phase first waits for a quiet moment (QUIET_CORES), and the report also gives the
#   ratios over the rounds in which the rest of the machine stayed quiet throughout. Last, one
#   phase of each kind runs under `perf sched record`, and tools/runq_blame.py says whose
#   tasks held the CPU while the server's serving threads waited for one (hashing threads,
#   other processes, ...).
#
# Both: one release build, a fresh data dir with USERS accounts made with `quotebook user add`,
# medians per phase, B/A ratios, sign-ins per second during B, and the server's CPU per GET /
# (all threads but password-hash-*, from /proc/PID/stat and /proc/PID/task/*/stat; in B it also
# carries the sign-in pages' HTTP work). Each run writes its section (run-STAMP.md or
# openloop-STAMP.md, copied to closed-loop.md or open-loop.md); RESULTS.md joins summary.md (by
# hand: what the runs show and why) and the latest of both.
#
# usage: Benchmarks/signin.sh [--open-loop] [ROUNDS]   (default 3 closed, 6 open)
# env:   DURATION=15         seconds of each measured run
#        CONNECTIONS=32      wrk connections (wrk threads: 2), also for the saturation runs
#        SIGNIN_THREADS=8    concurrent sign-in loops in phase B
#        USERS=20            accounts created (bench01 ...)
#        HASHING_THREADS=2   the server's --hashing-threads for the main rounds
#        CONTRAST_THREADS=1  closed loop only: afterwards, one more A B round per value listed
#                            here on a server with that many hashing threads ("" to skip)
#        FRACTION=0.4        open loop: RATE as a fraction of the measured saturation rate
#        RATE                open loop: GET / per second (skips the saturation runs)
#        OPEN_CONNECTIONS=64 open loop: keep-alive connections of tools/openloop
#        QUIET_CORES=0.3     open loop: before each phase, wait until the rest of the machine
#        QUIET_WAIT=120      has used under QUIET_CORES cores for 2 s, for at most QUIET_WAIT s
#        PHASES="A nice10 idle"  open loop: the phases of a round (add spin-idle, crypt-idle)
#        PERF_SECONDS=5      open loop: afterwards, one more phase of each kind under
#                            `perf sched record` (0 to skip), see tools/runq_blame.py
#        QUOTEBOOK_BIN       use this binary instead of building
# Output: Benchmarks/signin-results/{run-STAMP.{tsv,md} or openloop-STAMP.{tsv,md},
#         closed-loop.md or open-loop.md, RESULTS.md, logs/STAMP/}
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
MODE=closed
if [ "${1:-}" = --open-loop ]; then MODE=open; shift; fi
ROUNDS=${1:-$([ "$MODE" = open ] && echo 6 || echo 3)}
DURATION=${DURATION:-15}
CONNECTIONS=${CONNECTIONS:-32}
SIGNIN_THREADS=${SIGNIN_THREADS:-8}
USERS=${USERS:-20}
HASHING_THREADS=${HASHING_THREADS:-2}
CONTRAST_THREADS=${CONTRAST_THREADS-1}
FRACTION=${FRACTION:-0.4}
RATE=${RATE:-}
OPEN_CONNECTIONS=${OPEN_CONNECTIONS:-64}
QUIET_CORES=${QUIET_CORES:-0.3}
QUIET_WAIT=${QUIET_WAIT:-120}
PERF_SECONDS=${PERF_SECONDS:-5}
PHASES=${PHASES:-A nice10 idle}
OPEN_WARMUP=2   # seconds of tools/openloop's schedule before it counts
PASSWORD=bench-signin-password
WARMUP=2   # seconds the sign-in load runs before wrk starts (not counted)

out=$here/signin-results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
tsv=$out/run-$stamp.tsv
[ "$MODE" = open ] && tsv=$out/openloop-$stamp.tsv
logs=$out/logs/$stamp
mkdir -p "$logs"
export PATH=/opt/swift/usr/bin:$PATH

# shellcheck source=tools/quotebook_server.sh
. "$here/tools/quotebook_server.sh"
server_pid= load_pid= data= bin_dir= ol_pid= quiet_wait= quiet_others= listening=
cleanup() {
    [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null
    [ -n "$ol_pid" ] && kill "$ol_pid" 2>/dev/null
    [ -n "$bin_dir" ] && rm -rf "$bin_dir"
    stop_quotebook
    [ -n "$data" ] && rm -rf "$data"
    server_pid= load_pid= data=
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. tools
command -v python3 >/dev/null || { echo "signin.sh needs python3" >&2; exit 1; }
if ! command -v wrk >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get -o DPkg::Lock::Timeout=300 install -y -qq wrk >/dev/null) ||
        { echo "cannot install wrk (apt-get install wrk)" >&2; exit 1; }
fi

if [ "$MODE" = open ]; then
    command -v gcc >/dev/null || { echo "signin.sh --open-loop needs gcc" >&2; exit 1; }
    command -v chrt >/dev/null && command -v renice >/dev/null || { echo "signin.sh --open-loop needs chrt and renice" >&2; exit 1; }
    bin_dir=$(mktemp -d "${TMPDIR:-/tmp}/quotebook-openloop.XXXXXX")
    openloop=$bin_dir/openloop
    gcc -O2 -Wall -Wextra -o "$openloop" "$here/tools/openloop.c" || { echo "cannot build tools/openloop.c" >&2; exit 1; }
    cpuhog=$bin_dir/cpuhog
    if [[ " $PHASES " == *" spin-"* || " $PHASES " == *" crypt-"* ]]; then
        gcc -O2 -Wall -Wextra -pthread -o "$cpuhog" "$here/tools/cpuhog.c" -lcrypt || { echo "cannot build tools/cpuhog.c" >&2; exit 1; }
    fi
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
    # Every loop signs in from 127.0.0.1, half its tries failing, K at once: lift the per-client
    # limits, which would otherwise answer most of them 429 before any hash.
    start_quotebook "$logs/server-h$1" --port 0 --data "$data" --log-level warning --hashing-threads "$1" \
        --sign-ins-per-client 1000000000 --max-hashes-per-client 1000
    local address=$listening
    port=${address##*:}
    host=${address%:*}
    host=${host#[}; host=${host%]}
    url_host=$host
    [[ $host == *:* ]] && url_host="[$host]"
    [ "$host" = 0.0.0.0 ] && host=127.0.0.1 url_host=127.0.0.1
    [ "$host" = :: ] && host=::1 url_host="[::1]"
}

stop_server() {
    stop_quotebook
}

# One line per password-hash-* thread of the server: its /proc/PID/task/TID/stat fields after
# the command name (so index 11 is utime, 12 stime, 16 nice, 38 policy).
hash_thread_stats() {
    local t comm stat
    for t in /proc/"$server_pid"/task/*; do
        comm=$(cat "$t/comm" 2>/dev/null) || continue
        [[ $comm == password-hash* ]] || continue
        stat=$(cat "$t/stat" 2>/dev/null) || continue
        echo "${stat##*) }"
    done
}

# CPU ticks of the server: "all password-hash" (whole process, including threads that exited,
# and the sum over the password-hash-* threads, which live as long as the process).
cpu_ticks() {
    local stat total hash=0 f
    stat=$(cat "/proc/$server_pid/stat") || { echo "0 0"; return; }
    read -r -a f <<<"${stat##*) }"
    total=$((f[11] + f[12]))
    while read -r -a f; do hash=$((hash + f[11] + f[12])); done < <(hash_thread_stats)
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

run_wrk() { # log-file [seconds]; wrk's CPU seconds go to log-file.cpu
    local seconds=${2:-$DURATION}
    python3 - "$1" $((seconds + 30)) wrk -t2 -c"$CONNECTIONS" -d"${seconds}s" --latency "http://$url_host:$port/" <<'PY'
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

# The sign-in tool's figures, into the caller's attempts, signins, post50, post99, tool_cpu and
# unexpected (answers other than 303 and 401, plus errors).
read_signin_load() { # json-file
    attempts=$(json_field "$1" attempts_per_s)
    signins=$(json_field "$1" signins_per_s)
    post50=$(json_field "$1" post_p50_ms)
    post99=$(json_field "$1" post_p99_ms)
    tool_cpu=$(json_field "$1" cpu_s)
    unexpected=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(d["other_statuses"].values()) + d["errors"])' "$1" 2>/dev/null || echo -)
}

# Server CPU µs per GET from two cpu_ticks readings, leaving out the hashing threads.
us_per_get() { # "total hash" before, "total hash" after, requests
    local t0 h0 t1 h1
    read -r t0 h0 <<<"$1"
    read -r t1 h1 <<<"$2"
    awk -v d=$(((t1 - h1) - (t0 - h0))) -v n="$3" -v hz="$hz" 'BEGIN { if (n > 0) printf "%.1f", d * 1e6 / hz / n; else printf "-" }'
}


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
        read_signin_load "$load_json"
    fi
    read -r rps p50 p90 p99 non2xx errors requests < <(parse_wrk "$base-wrk.txt")
    read -r t0 h0 <<<"$before"
    read -r t1 h1 <<<"$after"
    local cpu_per_get hash_s
    cpu_per_get=$(us_per_get "$before" "$after" "$requests")
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

# Thread-group figures from /proc/PID/task/TID/schedstat (nanoseconds on a CPU, nanoseconds
# runnable but waiting for one): "serve_cpu serve_wait hash_cpu hash_wait", for the threads that
# serve requests (every thread but password-hash-*: the event loops, which Foundation leaves
# unnamed, and the cooperative pool that runs the responders) and the hashing threads.
sched_ns() {
    local t comm run wait slices sc=0 sw=0 hc=0 hw=0
    for t in /proc/"$server_pid"/task/*; do
        comm=$(cat "$t/comm" 2>/dev/null) || continue
        read -r run wait slices <"$t/schedstat" 2>/dev/null || continue
        case $comm in
            password-hash*) hc=$((hc + run)) hw=$((hw + wait)) ;;
            *) sc=$((sc + run)) sw=$((sw + wait)) ;;
        esac
    done
    echo "$sc $sw $hc $hw"
}

# User and system CPU ticks of the password-hash-* threads together: "user system".
hash_ticks() {
    local f user=0 system=0
    while read -r -a f; do user=$((user + f[11])) system=$((system + f[12])); done < <(hash_thread_stats)
    echo "$user $system"
}

# The scheduling class of every password-hash-* thread, read from /proc/PID/task/TID/stat
# (field 19 nice, field 41 policy): "idle", "nice10", ... joined by "+" when they differ.
hash_class() {
    local f classes=()
    while read -r -a f; do
        case ${f[38]} in
            0) classes+=("nice${f[16]}") ;;
            3) classes+=("batch${f[16]}") ;;
            5) classes+=("idle") ;;
            *) classes+=("policy${f[38]}") ;;
        esac
    done < <(hash_thread_stats)
    printf '%s\n' "${classes[@]}" | sort -u | paste -sd+
}

# Puts the running server's password-hash-* threads in a class: nice10 or idle.
set_hash_class() {
    local t comm tid
    for t in /proc/"$server_pid"/task/*; do
        comm=$(cat "$t/comm" 2>/dev/null) || continue
        [[ $comm == password-hash* ]] || continue
        tid=${t##*/}
        case $1 in
            idle) chrt --idle -p 0 "$tid" ;;
            nice10) chrt --other -p 0 "$tid" && renice -n 10 -p "$tid" ;;
        esac >/dev/null 2>&1
    done
    local now
    now=$(hash_class)
    [ "$now" = "$1" ] || echo "warning: asked for $1, the hashing threads are $now" >&2
}

# Waits, at most QUIET_WAIT seconds, until the rest of the machine has used under QUIET_CORES
# cores over 2 s (our server idle meanwhile); sets quiet_wait (s) and quiet_others (cores).
wait_quiet() {
    local began=$SECONDS b0 s0 b1 s1
    while true; do
        read -r b0 s0 <<<"$(machine_ticks)"
        sleep 2
        read -r b1 s1 <<<"$(machine_ticks)"
        quiet_others=$(awk -v d=$((b1 - b0)) -v hz="$hz" 'BEGIN { printf "%.2f", d / hz / 2 }')
        awk -v o="$quiet_others" -v q="$QUIET_CORES" 'BEGIN { exit !(o < q) }' && break
        [ $((SECONDS - began)) -ge "$QUIET_WAIT" ] && break
    done
    quiet_wait=$((SECONDS - began))
}

# Starts tools/openloop at RATE in the background for OPEN_WARMUP + $1 seconds; sets ol_pid.
start_openloop() { # seconds json-file
    timeout $((OPEN_WARMUP + $1 + 40)) "$openloop" -h "$host" -p "$port" -r "$RATE" -c "$OPEN_CONNECTIONS" \
        -d "$1" -w "$OPEN_WARMUP" >"$2" 2>"$2.err" &
    ol_pid=$!
}

# Starts a phase's background load for $2 seconds after $1 seconds of warm-up, output to $3:
# the sign-in load for nice10 and idle (after putting the hashing threads in that class), or
# tools/cpuhog for spin-CLASS and crypt-CLASS; nothing for A. Sets load_pid.
start_phase_load() { # warmup seconds json-file (and $name: the phase)
    case $name in
        A) ;;
        spin-* | crypt-*)
            timeout $(($1 + $2 + 30)) "$cpuhog" "${name%%-*}" "${name#*-}" "$HASHING_THREADS" $(($1 + $2)) "$1" >"$3" 2>"$3.err" &
            load_pid=$! ;;
        *)
            set_hash_class "$name"
            run_load "$1" "$2" "$3" ;;
    esac
}

# One open-loop phase: tools/openloop at RATE for OPEN_WARMUP + DURATION seconds; with a class
# (nice10, idle) the sign-in load runs too, its counted window aligned with openloop's.
open_phase() { # round A|nice10|idle|spin-CLASS|crypt-CLASS
    local round=$1 name=$2 base=$logs/r$1-$2
    local load_json=$base-signin.json ol_json=$base-openloop.json
    [[ $name == spin-* || $name == crypt-* ]] && load_json=$base-cpuhog.json
    local attempts=- signins=- post50=- post99=- unexpected=- tool_cpu=0 class=-
    local load_start load_end before after sched_before sched_after machine_before machine_after hash_before hash_after
    wait_quiet
    load_start=$(cut -d' ' -f1 /proc/loadavg)
    if [ "$name" != A ]; then
        start_phase_load $((WARMUP + OPEN_WARMUP)) "$DURATION" "$load_json"
        [[ $name == spin-* || $name == crypt-* ]] || class=$(hash_class)
        sleep "$WARMUP"
    fi
    start_openloop "$DURATION" "$ol_json"
    sleep "$OPEN_WARMUP"
    before=$(cpu_ticks) machine_before=$(machine_ticks) sched_before=$(sched_ns) hash_before=$(hash_ticks)
    wait "$ol_pid"
    after=$(cpu_ticks) machine_after=$(machine_ticks) sched_after=$(sched_ns) hash_after=$(hash_ticks)
    if [[ $name == spin-* || $name == crypt-* ]]; then
        wait "$load_pid"; load_pid=
        attempts=$(json_field "$load_json" operations_per_s)
        tool_cpu=$(json_field "$load_json" cpu_s)
    elif [ "$name" != A ]; then
        wait "$load_pid"; load_pid=
        read_signin_load "$load_json"
    fi
    load_end=$(cut -d' ' -f1 /proc/loadavg)
    local ol
    ol=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
e = d["errors"]
print(d["achieved_rate"], d["completed"], d["p50_ms"], d["p90_ms"], d["p99_ms"], d["p999_ms"], d["max_ms"], d["service_p99_ms"],
      d["late_sends"], d["max_send_lag_ms"], sum(e.values()), d["non2xx"], d["cpu_s"])' "$ol_json" 2>/dev/null) ||
        ol="- 0 - - - - - - - - - - 0"
    local achieved completed p50 p90 p99 p999 pmax sp99 late lag errors non2xx gen_cpu
    read -r achieved completed p50 p90 p99 p999 pmax sp99 late lag errors non2xx gen_cpu <<<"$ol"
    local t0 h0 t1 h1 sc0 sw0 hc0 hw0 sc1 sw1 hc1 hw1 mb0 ms0 mb1 ms1
    read -r t0 h0 <<<"$before"
    read -r t1 h1 <<<"$after"
    read -r sc0 sw0 hc0 hw0 <<<"$sched_before"
    read -r sc1 sw1 hc1 hw1 <<<"$sched_after"
    read -r mb0 ms0 <<<"$machine_before"
    read -r mb1 ms1 <<<"$machine_after"
    local cpu_per_get server_s hash_cores serve_wait hash_wait busy steal others
    cpu_per_get=$(us_per_get "$before" "$after" "$completed")
    server_s=$(awk -v d=$((t1 - t0)) -v hz="$hz" 'BEGIN { printf "%.2f", d / hz }')
    hash_cores=$(awk -v d=$((hc1 - hc0)) -v s="$DURATION" 'BEGIN { printf "%.2f", d / 1e9 / s }')
    serve_wait=$(awk -v d=$((sw1 - sw0)) -v s="$DURATION" 'BEGIN { printf "%.2f", d / 1e6 / s }')
    hash_wait=$(awk -v d=$((hw1 - hw0)) -v s="$DURATION" 'BEGIN { printf "%.0f", d / 1e6 / s }')
    busy=$(awk -v d=$((mb1 - mb0)) -v hz="$hz" -v s="$DURATION" 'BEGIN { printf "%.2f", d / hz / s }')
    steal=$(awk -v d=$((ms1 - ms0)) -v hz="$hz" -v s="$DURATION" 'BEGIN { printf "%.2f", d / hz / s }')
    local hu0 hs0 hu1 hs1 hash_kernel
    read -r hu0 hs0 <<<"$hash_before"
    read -r hu1 hs1 <<<"$hash_after"
    hash_kernel=$(awk -v u=$((hu1 - hu0)) -v k=$((hs1 - hs0)) 'BEGIN { if (u + k > 0) printf "%.2f", k / (u + k); else printf "-" }')
    others=$(awk -v b="$busy" -v a="$server_s" -v g="$gen_cpu" -v t="$tool_cpu" -v s="$DURATION" 'BEGIN { o = b - (a + g + t) / s; printf "%.2f", o < 0 ? 0 : o }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$round" "$name" "$class" "$quiet_wait" "$quiet_others" "$RATE" "$achieved" "$p50" "$p90" "$p99" "$p999" "$pmax" "$sp99" \
        "$late" "$lag" "$errors" "$non2xx" "$cpu_per_get" "$hash_cores" "$hash_kernel" "$serve_wait" "$hash_wait" \
        "$attempts" "$signins" "$post50" "$post99" "$unexpected" "$server_s" "$gen_cpu" "$tool_cpu" "$busy" "$others" "$steal" \
        "$load_start/$load_end" >>"$tsv"
    printf 'round %s  %-6s (%s, waited %s s for quiet: others %s cores)  %s GET/s  p50 %s  p99 %s  p99.9 %s  max %s ms  late %s  errors %s  CPU/GET %s us  serving threads wait %s ms/s  hashing %s cores (kernel %s)  sign-ins %s/s (attempts %s/s, POST p50 %s p99 %s ms, unexpected %s)  others %s cores  load %s/%s\n' \
        "$round" "$name" "$class" "$quiet_wait" "$quiet_others" "$achieved" "$p50" "$p99" "$p999" "$pmax" "$late" "$errors" "$cpu_per_get" "$serve_wait" "$hash_cores" "$hash_kernel" \
        "$signins" "$attempts" "$post50" "$post99" "$unexpected" "$others" "$load_start" "$load_end" >&2
    sleep 2
}

# One more phase of a kind (A, nice10, idle, ...) with PERF_SECONDS of `perf sched record -a` in its
# middle; tools/runq_blame.py's answer goes to logs/STAMP/blame-KIND.json. Not in the table:
# tracing every context switch costs the server time of its own.
blame_phase() { # A|nice10|idle|spin-CLASS|crypt-CLASS
    local name=$1 base=$logs/blame-$1 t
    wait_quiet
    if [ "$name" != A ]; then
        start_phase_load $((WARMUP + OPEN_WARMUP)) $((PERF_SECONDS + 2)) "$base-load.json"
        sleep "$WARMUP"
    fi
    start_openloop $((PERF_SECONDS + 2)) "$base-openloop.json"
    sleep "$OPEN_WARMUP"
    for t in /proc/"$server_pid"/task/*; do echo "${t##*/} $(cat "$t/comm" 2>/dev/null)"; done >"$bin_dir/tids"
    timeout $((PERF_SECONDS + 60)) perf sched record -a -o "$bin_dir/perf.data" -- sleep "$PERF_SECONDS" >/dev/null 2>"$base-perf.err"
    wait "$ol_pid"
    if [ "$name" != A ]; then wait "$load_pid"; load_pid=; fi
    perf script -i "$bin_dir/perf.data" -F comm,tid,cpu,time,event,trace 2>/dev/null |
        python3 "$here/tools/runq_blame.py" --tids "$bin_dir/tids" >"$base.json"
    rm -f "$bin_dir/perf.data"
    echo "perf sched, $name: $(cat "$base.json")" >&2
    sleep 2
}

# Open loop: saturation, then ROUNDS rotations of PHASES on one server; open-loop.md.
open_loop() {
    new_data
    start_server "$HASHING_THREADS"
    local initial_class
    initial_class=$(hash_class)
    echo "server pid $server_pid on $url_host:$port, --hashing-threads $HASHING_THREADS ($initial_class as started), $USERS users" >&2
    warm_up "$HASHING_THREADS"
    local saturation=- runs=() i rps
    if [ -z "$RATE" ]; then
        for i in 1 2 3; do
            run_wrk "$logs/saturation-$i-wrk.txt" 5
            read -r rps _ <<<"$(parse_wrk "$logs/saturation-$i-wrk.txt")"
            runs+=("$rps")
            sleep 1
        done
        saturation=$(printf '%s\n' "${runs[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
        RATE=$(awk -v s="$saturation" -v f="$FRACTION" 'BEGIN { printf "%d", s * f }')
        echo "saturation (closed loop, wrk -c$CONNECTIONS, 3 x 5 s): ${runs[*]} req/s, median $saturation; RATE $RATE" >&2
    fi
    printf 'date\tround\tphase\thash_class\tquiet_wait_s\tothers_before_cores\ttarget_rate\tachieved_rate\tp50_ms\tp90_ms\tp99_ms\tp999_ms\tmax_ms\tservice_p99_ms\tlate_sends\tmax_send_lag_ms\terrors\tnon2xx\tserver_cpu_us_per_get\thash_cores\thash_kernel_share\tserve_runq_wait_ms_per_s\thash_runq_wait_ms_per_s\tsignin_attempts_per_s\tsignins_per_s\tsignin_post_p50_ms\tsignin_post_p99_ms\tsignin_unexpected\tserver_cpu_s\topenloop_cpu_s\tsignin_tool_cpu_s\tmachine_busy_cores\tothers_cores\tsteal_cores\tloadavg1_start_end\n' >"$tsv"
    local order round k
    read -r -a order <<<"$PHASES"
    for round in $(seq 1 "$ROUNDS"); do
        for k in "${!order[@]}"; do
            open_phase "$round" "${order[$(((round - 1 + k) % ${#order[@]}))]}"
        done
    done
    if [ "$PERF_SECONDS" -gt 0 ] && command -v perf >/dev/null; then
        for k in "${order[@]}"; do blame_phase "$k"; done
    fi
    stop_server
    rm -rf "$data"; data=
    find "$logs" -type f -empty -delete
    python3 "$here/tools/openloop_report.py" "$tsv" --stamp "$stamp" --rounds "$ROUNDS" --machine "$machine" \
        --loadavg "$loadavg_start" --loadavg-end "$(cut -d' ' -f1-3 /proc/loadavg)" --duration "$DURATION" \
        --warmup "$OPEN_WARMUP" --connections "$OPEN_CONNECTIONS" --signin-threads "$SIGNIN_THREADS" --users "$USERS" \
        --hashing-threads "$HASHING_THREADS" --initial-class "$initial_class" --saturation "$saturation" \
        --saturation-runs "${runs[*]:-}" --wrk-connections "$CONNECTIONS" --fraction "$FRACTION" \
        --quiet-cores "$QUIET_CORES" --quiet-wait "$QUIET_WAIT" --blame-dir "$logs" --perf-seconds "$PERF_SECONDS" \
        --phases "$PHASES" >"$out/openloop-$stamp.md"
    cp "$out/openloop-$stamp.md" "$out/open-loop.md"
}

# RESULTS.md: the hand-written summary.md (what the runs show, and why), then the latest section
# of each mode (each run's own stays as openloop-STAMP.md or run-STAMP.md).
join_results() {
    {
        echo "# GET / while people sign in"
        echo
        echo "Written by \`Benchmarks/signin.sh\` from \`summary.md\` and the latest run of each mode: the open loop (\`--open-loop\`,"
        echo "GET / at a fixed rate below saturation, latency from each request's scheduled time) and the closed loop (wrk -c32,"
        echo "both cores saturated)."
        local section
        for section in summary open-loop closed-loop; do
            [ -f "$out/$section.md" ] && { echo; cat "$out/$section.md"; }
        done
    } >"$out/RESULTS.md"
}

loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(awk -F: '/model name/ { sub(/^ +/, "", $2); print $2; exit }' /proc/cpuinfo)
machine="$(nproc) cores ($cpu), $(uname -sr), $(swift --version 2>/dev/null | head -1 | sed 's/ *(.*//')"

if [ "$MODE" = open ]; then
    open_loop
    join_results
    cat "$out/open-loop.md"
    exit 0
fi

# 5. main rounds: A B A B ...
printf 'date\tround\thashing_threads\tphase\trps\tp50_ms\tp90_ms\tp99_ms\tnon2xx\tsocket_errors\tserver_cpu_us_per_get\thash_cpu_s\tsignin_attempts_per_s\tsignins_per_s\tsignin_post_p50_ms\tsignin_post_p99_ms\tsignin_unexpected\tserver_cpu_s\twrk_cpu_s\tsignin_tool_cpu_s\tmachine_busy_cores\tothers_cores\tsteal_cores\tloadavg1\n' >"$tsv"
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
python3 - "$tsv" "$HASHING_THREADS" "$ROUNDS" "$stamp" "$machine" "$loadavg_start" \
    "$DURATION" "$CONNECTIONS" "$SIGNIN_THREADS" "$USERS" >"$out/run-$stamp.md" <<'PY'
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
print("## Closed loop: wrk -c32 saturating both cores")
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
cp "$out/run-$stamp.md" "$out/closed-loop.md"
join_results
cat "$out/closed-loop.md"
