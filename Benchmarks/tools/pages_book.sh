# Sourced by pages.sh and refcounts.sh, after tools/quotebook_server.sh: the book both measure.
#
# pages_book DATA LOG LOG_LEVEL QUERIES
#   USERS accounts (`quotebook user add readerN`, password PASSWORD) in DATA; $app serving DATA at
#   LOG_LEVEL (start_quotebook: output to LOG.out and LOG.err); QUOTES quotes added over HTTP and
#   the last one edited EDITS times (tools/pages_seed.py); up to SEARCHES searches that find
#   something written to QUERIES. Sets app_pid, app_port and last_id (the edited quote); exits,
#   having said why, when a step fails.
#   Reads: app, here (the Benchmarks directory), root, USERS, QUOTES, EDITS, SEARCHES, PASSWORD.
pages_book() {
    local data=$1 log=$2 level=$3 queries=$4 users=() i
    mkdir -p "$data"
    for i in $(seq 1 "$USERS"); do
        printf '%s\n' "$PASSWORD" | timeout 30 "$app" user add "reader$i" --data "$data" >/dev/null ||
            { echo "quotebook user add reader$i failed" >&2; exit 1; }
        users+=("reader$i")
    done
    start_quotebook "$log" --port 0 --data "$data" --log-level "$level"
    app_pid=$server_pid
    app_port=${listening##*:}
    last_id=$(python3 "$here/tools/pages_seed.py" --port "$app_port" --users "$(IFS=,; echo "${users[*]}")" \
        --password "$PASSWORD" --quotes "$QUOTES" --edits "$EDITS" --queries "$queries" \
        --max-queries "$SEARCHES") || { echo "seeding failed" >&2; exit 1; }
}
