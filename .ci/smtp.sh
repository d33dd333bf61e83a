#!/usr/bin/env bash
# A throwaway SMTP relay for the mail tests (Tests/Support/smtp_server.py on aiosmtpd), owned by
# one directory.
#
#   .ci/smtp.sh start DIR   starts the relay on a free port of 127.0.0.1 (STARTTLS required,
#                           AUTH for a user with a random password), keeping every message it
#                           accepts in DIR as NNNN.eml (and DIR/index.jsonl), and prints one line,
#                           `smtp://USER:PASSWORD@127.0.0.1:PORT CAFILE` (only that on stdout; the
#                           relay's own files are in DIR/relay: its log, pid, CA and certificate).
#                           Then, for the tests:
#                             QUOTEBOOK_TEST_SMTP="$line" QUOTEBOOK_TEST_SMTP_MAILDIR=DIR \
#                               swift test --skip-build --filter MailTests
#   .ci/smtp.sh stop DIR    stops it, removes what start made in DIR, and DIR when it is then empty
#
# Installs aiosmtpd from PyPI when python3 cannot import it. The relay runs for an hour at most
# (timeout), and every step here is bounded too.
set -euo pipefail

usage() {
    echo "usage: $0 start DIR | stop DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
command=$1
dir=$2
script=$(cd "$(dirname "$0")/.." && pwd)/Tests/Support/smtp_server.py

case "$command" in
start)
    if ! python3 -c 'import aiosmtpd' 2>/dev/null; then
        echo "smtp.sh: installing aiosmtpd" >&2
        timeout 300 python3 -m pip install -q aiosmtpd >&2
    fi
    if [ -e "$dir/relay/pid" ]; then
        echo "smtp.sh: $dir/relay/pid exists; stop that relay first" >&2
        exit 1
    fi
    mkdir -p "$dir/relay"
    dir=$(cd "$dir" && pwd)
    password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(12))')
    # Its own session and no terminal: nothing here waits for it, and its output goes to files,
    # so a caller reading this script's stdout ($(...)) is not held open by it.
    setsid timeout 3600 python3 "$script" --maildir "$dir" --user quotebook --password="$password" \
        --tls-dir "$dir/relay/tls" >"$dir/relay/ready" 2>"$dir/relay/server.log" </dev/null &
    echo $! >"$dir/relay/pid"
    for _ in $(seq 1 200); do
        # A whole line (with its newline), not one being written.
        if [ "$(wc -l <"$dir/relay/ready")" -ge 1 ]; then
            head -n 1 "$dir/relay/ready"
            exit 0
        fi
        if ! kill -0 "$(cat "$dir/relay/pid")" 2>/dev/null; then
            echo "smtp.sh: the relay exited before it was ready (see $dir/relay/server.log):" >&2
            cat "$dir/relay/server.log" >&2
            exit 1
        fi
        sleep 0.1
    done
    echo "smtp.sh: the relay was not ready within 20 s (see $dir/relay/server.log)" >&2
    kill -TERM "$(cat "$dir/relay/pid")" 2>/dev/null || true
    exit 1
    ;;
stop)
    [ -d "$dir" ] || exit 0
    if [ -e "$dir/relay/pid" ]; then
        pid=$(cat "$dir/relay/pid")
        # timeout passes the TERM on to the relay, which then exits by itself.
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        # setsid made it a process group's leader: the group is the relay and timeout.
        kill -KILL -- "-$pid" 2>/dev/null || true
    fi
    rm -rf "$dir/relay" "$dir/index.jsonl"
    find "$dir" -maxdepth 1 \( -name '[0-9]*.eml' -o -name '.[0-9]*.eml.tmp' \) -delete
    rmdir "$dir" 2>/dev/null || true
    ;;
*)
    usage
    ;;
esac
