#!/usr/bin/env bash
# Reference counting and allocations per request, counted exactly: the calls Quotebook's server
# makes to the Swift runtime's swift_retain, swift_release, swift_bridgeObjectRetain and
# swift_bridgeObjectRelease, and to malloc, for each page as a signed-in person gets it (issue 32).
#
# CPU time per request moves by 10 % or more between runs on a shared machine; these counts move
# by a few calls a request at most (the same binary gave `/quotes` 144.0 and 150.0 retains in two
# runs minutes apart: read differences under about 6 as noise), so a change that copies less
# shows here even when the pages table cannot rank it. They count calls, not cost:
# a release of a small string or of nil returns at once, a retain of an object both event loops
# share costs an atomic operation on a contended cache line. Read them beside a profile.
#
# 1. The book pages.sh makes (tools/pages_seed.py: USERS accounts, QUOTES quotes, the last one
#    edited EDITS times, up to SEARCHES searches), served by a release build (or QUOTEBOOK_BIN)
#    at its default log level (access lines on).
# 2. A person who signs up through the real form (tools/pages_visitor.py), whose cookies every
#    request carries.
# 3. For each page (`/`, `/quotes`, the last quote, a search rotating over the searches, one per
#    request, `/users/reader1`, that quote's history): a 1 s warm-up, then `perf stat` with
#    uprobes on those five functions attached to the server while `wrk -t1 -c8 -dDURATION` runs;
#    each count divided by the requests wrk completed.
# 4. Which objects those calls touch, for each page: `wrk -t2 -c8 -dOBJECTS_DURATION` (both event
#    loops serving) under `perf record` with the same four probes reading the object's address,
#    sorted by tools/refcount_objects.py into calls on no object (small strings, nil), on static
#    objects (immortal), on heap objects one thread touched, and on heap objects more than one
#    thread touched: the calls that can move a cache line between the cores, which cost far
#    more than the others where atomic operations are dear; and of those, the owner changes
#    (the call before on the same object came from the other thread). OBJECTS_DURATION=0
#    leaves it out.
# 5. A table, printed and written to Benchmarks/refcounts-results/latest.md.
#
# usage: Benchmarks/refcounts.sh            needs root (uprobes) and Debian's linux-perf and wrk
# env:   DURATION=3  OBJECTS_DURATION=1  USERS=4  QUOTES=200  EDITS=10  SEARCHES=1024  QUOTEBOOK_BIN  LABEL
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
DURATION=${DURATION:-3}
OBJECTS_DURATION=${OBJECTS_DURATION:-1}
USERS=${USERS:-4}
QUOTES=${QUOTES:-200}
EDITS=${EDITS:-10}
SEARCHES=${SEARCHES:-1024}
PASSWORD=bench-refcounts-password
out=$here/refcounts-results
work=$(mktemp -d "${TMPDIR:-/tmp}/quotebook-refcounts.XXXXXX")
mkdir -p "$out"
app_pid=
cleanup() { [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

command -v perf >/dev/null && command -v wrk >/dev/null || { echo "needs perf (linux-perf) and wrk" >&2; exit 1; }
. "$here/tools/quotebook_server.sh"
. "$here/tools/pages_book.sh"
build_quotebook

# The runtime's and the C library's entry points, as uprobes (added once; kept by the kernel).
swift_core=$(ldd "$app" | awk '/libswiftCore\.so/ {print $3}')
libc=$(ldd "$app" | awk '/libc\.so\.6/ {print $3}')
[ -n "$swift_core" ] && [ -n "$libc" ] || { echo "cannot find libswiftCore or libc for $app" >&2; exit 1; }
functions=(swift_retain swift_release swift_bridgeObjectRetain swift_bridgeObjectRelease)
events=()
for function in "${functions[@]}"; do
    perf probe -q -x "$swift_core" "$function" 2>/dev/null
    events+=("probe_libswiftCore:$function")
done
perf probe -q -x "$libc" malloc 2>/dev/null
events+=("probe_libc:malloc")
# The same four, each reading the object it was called on (step 4).
object_events=()
for function in "${functions[@]}"; do
    name=rc_$(echo "$function" | tr -cd 'a-zA-Z' | tr 'A-Z' 'a-z' | sed 's/swift//; s/object//')
    perf probe -q -x "$swift_core" --add "$name=$function obj=%di:u64" 2>/dev/null
    object_events+=("probe_libswiftCore:$name")
done
for event in "${events[@]}" "${object_events[@]}"; do
    [ "$(perf list 2>/dev/null | grep -c "$event")" -gt 0 ] || { echo "no uprobe $event (root needed)" >&2; exit 1; }
done

# 1. the book (tools/pages_book.sh, as pages.sh makes it)
pages_book "$work/data" "$work/app" info "$work/queries.txt"
port=$app_port
sed 's|^|/quotes?q=|' "$work/queries.txt" >"$work/search-paths.txt"

# 2. the visitor
cookie=$(python3 "$here/tools/pages_visitor.py" cookie --port "$port" --visitor signed-in) ||
    { echo "no signed-in visitor" >&2; exit 1; }

# 3. each page
pages=("home|/" "list|/quotes" "quote|/quotes/$last_id" "search|@$work/search-paths.txt"
       "user|/users/reader1" "history|/quotes/$last_id/history")
results=$work/results.tsv
: >"$results"
for entry in "${pages[@]}"; do
    IFS='|' read -r name url <<<"$entry"
    args=(-t1 -c8 -H "Cookie: $cookie")
    if [[ $url == @* ]]; then
        args+=(-s "$here/tools/pages_rotate.lua" "http://127.0.0.1:$port/" -- "${url#@}")
    else
        args+=("http://127.0.0.1:$port$url")
    fi
    wrk -d1s "${args[@]}" >/dev/null 2>&1
    perf stat -x, -e "$(IFS=,; echo "${events[*]}")" -p "$app_pid" -o "$work/stat.txt" &
    stat_pid=$!
    sleep 0.5
    wrk -d"${DURATION}s" "${args[@]}" >"$work/wrk.txt" 2>&1
    sleep 0.2
    kill -INT "$stat_pid"
    wait "$stat_pid" 2>/dev/null
    requests=$(awk '/ requests in / {print $1}' "$work/wrk.txt")
    non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$work/wrk.txt")
    [ -n "$requests" ] && [ "$requests" -gt 0 ] && [ -z "$non2xx" ] ||
        { echo "$name: wrk failed or had non-2xx answers" >&2; cat "$work/wrk.txt" >&2; exit 1; }
    awk -F, -v page="$name" -v requests="$requests" \
        '/probe_/ { split($3, event, ":"); counts[event[2]] = $1 }
         END { printf "%s\t%d", page, requests
               n = split("swift_retain swift_release swift_bridgeObjectRetain swift_bridgeObjectRelease malloc", order, " ")
               for (i = 1; i <= n; i++) printf "\t%.1f", counts[order[i]] / requests
               printf "\n" }' "$work/stat.txt" >"$work/row.tsv"
    if [ "$OBJECTS_DURATION" != 0 ]; then
        args[0]=-t2
        cat "/proc/$app_pid/maps" >"$work/maps.txt"
        perf record -q -e "$(IFS=,; echo "${object_events[*]}")" -p "$app_pid" -o "$work/objects.data" >/dev/null 2>&1 &
        record_pid=$!
        sleep 0.5
        wrk -d"${OBJECTS_DURATION}s" "${args[@]}" >"$work/wrk.txt" 2>&1
        kill -INT "$record_pid"
        wait "$record_pid" 2>/dev/null
        requests=$(awk '/ requests in / {print $1}' "$work/wrk.txt")
        objects=$(perf script -i "$work/objects.data" -F tid,event,trace 2>/dev/null |
            python3 "$here/tools/refcount_objects.py" "$work/maps.txt" "$requests")
        rm -f "$work/objects.data"
        printf '%s\t%s\n' "$(cat "$work/row.tsv")" "$objects" >>"$results"
    else
        printf '%s\t-\t-\t-\t-\t-\n' "$(cat "$work/row.tsv")" >>"$results"
    fi
done

# 5. the table
label=${LABEL:-$(cd "$root" && git rev-parse --short HEAD 2>/dev/null)}
{
    echo "# Reference counting and allocations per signed-in request"
    echo
    echo "Measured by \`Benchmarks/refcounts.sh\` ($label, $(date -u +%Y-%m-%dT%H:%M:%SZ)): $QUOTES quotes by $USERS users, the last edited $EDITS times; a person signed up through the form; \`wrk -t1 -c8 -d${DURATION}s\` per page; calls counted by uprobes, divided by the requests completed. Calls, not cost (see the script's head)."
    echo
    echo "| page | requests | swift_retain | swift_release | bridgeObjectRetain | bridgeObjectRelease | all four | malloc |"
    echo "|---|---|---|---|---|---|---|---|"
    awk -F'\t' '{ printf "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", $1, $2, $3, $4, $5, $6, $3 + $4 + $5 + $6, $7 }' "$results"
    echo
    echo "The four calls by the object they touched (\`wrk -t2 -c8 -d${OBJECTS_DURATION}s\`, both event loops serving; traced, so fewer requests; an address one thread freed and another reused counts as shared):"
    echo
    echo "| page | no object | static | heap, one thread | heap, several threads | owner changes |"
    echo "|---|---|---|---|---|---|"
    awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $8, $9, $10, $11, $12 }' "$results"
} | tee "$out/latest.md"
