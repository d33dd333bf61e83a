#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and CI, owned by one directory.
#
#   .ci/postgres.sh start DIR [PORT]  creates DIR, a cluster in DIR/data (trust auth, superuser
#                                     quotebook) on 127.0.0.1:PORT (default: the first free port
#                                     from 55432), creates database quotebook_test, and prints
#                                     postgres://quotebook@127.0.0.1:PORT/quotebook_test (only
#                                     that on stdout; the server log is DIR/server.log)
#   .ci/postgres.sh restart DIR       fast shutdown and start again on the same port (a test of
#                                     what a client does when the database restarts)
#   .ci/postgres.sh stop DIR          fast shutdown, then removes DIR
#
# Installs Debian's postgresql when no initdb is found. initdb refuses to run as root, so as
# root the server runs as the postgres user (DIR is chown'ed to it; DIR's parents must be
# searchable by it, as /tmp is). Every step is bounded with timeout.
set -euo pipefail

usage() {
    echo "usage: $0 start DIR [PORT] | restart DIR | stop DIR" >&2
    exit 2
}
[ $# -ge 2 ] || usage
command=$1
dir=$2

bin_dir() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$found" ] && [ -x "$found/initdb" ] && echo "$found"
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# max_connections: the parallel test suites hold up to about 150 connections at once (every
# store, account storage and listener has its own), over the default 100.
# fsync=off: a throwaway cluster that no test crashes (the tests kill Quotebook, never the
# server). With it on, the shutdown checkpoint after the suites' thousand schemas synced 26,731
# files for 72 s on a busy disk, past pg_ctl's wait, and the stop failed.
server_options() {
    echo "-p $1 -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off"
}

case "$command" in
start)
    if [ ! -x /usr/lib/postgresql/15/bin/initdb ] && ! bin_dir >/dev/null; then
        echo "postgres.sh: installing postgresql" >&2
        export DEBIAN_FRONTEND=noninteractive
        timeout 120 apt-get update -qq >&2
        timeout 600 apt-get install -y -qq postgresql >/dev/null
    fi
    bin=$(bin_dir) || { echo "postgres.sh: no initdb under /usr/lib/postgresql" >&2; exit 1; }
    if [ -e "$dir/data" ]; then
        echo "postgres.sh: $dir/data exists; stop that cluster first" >&2
        exit 1
    fi
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    case "$dir" in *[[:space:]]*) echo "postgres.sh: DIR must not contain spaces" >&2; exit 2 ;; esac
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
    as_owner timeout 60 "$bin/initdb" -D "$dir/data" -A trust -U quotebook -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    # A port another cluster (or anything) listens on is skipped; a race lost between the check
    # and the start is retried on the next port.
    port=${3:-55432}
    started=""
    for _ in $(seq 1 20); do
        if ! port_in_use "$port" \
            && as_owner timeout 60 "$bin/pg_ctl" -D "$dir/data" -o "$(server_options "$port")" -l "$dir/server.log" \
                -w -t 30 start >&2; then
            started=yes
            break
        fi
        [ -z "${3:-}" ] || break
        port=$((port + 1))
    done
    if [ -z "$started" ]; then
        echo "postgres.sh: could not start the server (see $dir/server.log)" >&2
        exit 1
    fi
    echo "$port" >"$dir/port"
    as_owner timeout 30 "$bin/createdb" -h 127.0.0.1 -p "$port" -U quotebook quotebook_test >&2
    echo "postgres://quotebook@127.0.0.1:$port/quotebook_test"
    ;;
restart)
    dir=$(cd "$dir" && pwd)
    bin=$(bin_dir)
    port=$(cat "$dir/port")
    as_owner timeout 60 "$bin/pg_ctl" -D "$dir/data" -o "$(server_options "$port")" -l "$dir/server.log" \
        -m fast -w -t 30 restart >&2
    ;;
stop)
    if [ -e "$dir/data/postmaster.pid" ]; then
        as_owner timeout 150 "$(bin_dir)/pg_ctl" -D "$dir/data" -m fast -w -t 120 stop >&2
    fi
    rm -rf "$dir"
    ;;
*)
    usage
    ;;
esac
