# Shared by the benchmark scripts (source it): the quotebook binary, starting it and waiting for
# its listening line, and stopping it. Uses and sets the caller's variables `root` (the package),
# `app`, `server_pid` and `listening` (HOST:PORT from the listening line).

# Sets app: $QUOTEBOOK_BIN, else a release build of the package at $root.
build_quotebook() {
    app=${QUOTEBOOK_BIN:-}
    if [ -z "$app" ]; then
        (cd "$root" && timeout 1800 swift build -c release --product quotebook) || { echo "cannot build quotebook" >&2; exit 1; }
        app=$root/.build/release/quotebook
    fi
}

# Starts $app with the arguments given (from $root), output to LOG.out and LOG.err; sets
# server_pid, and listening once it has printed `Quotebook listening on http://HOST:PORT`.
# A benchmark writes far faster than a person (history.sh saves 2,000 versions in seconds), so
# the write limits (--writes-per-account, --writes-per-client) are lifted unless the caller's
# environment sets them.
# usage: start_quotebook LOG ARGUMENTS...
start_quotebook() {
    local log=$1 line=
    shift
    (cd "$root" && QUOTEBOOK_WRITES_PER_ACCOUNT=${QUOTEBOOK_WRITES_PER_ACCOUNT:-1000000000} \
        QUOTEBOOK_WRITES_PER_CLIENT=${QUOTEBOOK_WRITES_PER_CLIENT:-1000000000} exec "$app" "$@") >"$log.out" 2>"$log.err" &
    server_pid=$!
    for _ in $(seq 1 100); do
        line=$(grep -m1 '^Quotebook listening on http://' "$log.out" 2>/dev/null) && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    [ -n "$line" ] || { echo "the server did not start:" >&2; cat "$log.err" >&2; exit 1; }
    listening=${line#Quotebook listening on http://}
}

# SIGTERM, up to 10 s for a graceful stop, then SIGKILL; clears server_pid.
stop_quotebook() {
    [ -n "$server_pid" ] || return 0
    kill -TERM "$server_pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    server_pid=
}
