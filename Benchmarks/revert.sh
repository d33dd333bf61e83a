#!/usr/bin/env bash
# Issue 31's benchmark: a moderator reverts a person who edited 5,000 quotes of a 100,000-quote
# book. How long the revert takes (POST /users/{username}/revert to its 303); the p50/p99 of other
# people's page views and saves during it against the same length of time just before, same load;
# the journal bytes it adds (its journal row and journal_version rows). One release server on
# SQLite, loopback only; Benchmarks/tools/revert_bench.py does the HTTP side and says exactly how.
#
# usage: Benchmarks/revert.sh [ROUNDS]      (default 3: vandal1 … vandalN, each reverted in turn)
# env:   EDITS, OWN       quotes each vandal edits, and how many of those they added themselves
#                         (hidden by the revert) (default 5000, 50)
#        QUOTES, ACTIONS  the book (default 100000, 300000; built once by `ScaleBenchmark build`
#                         into .build-bench/revert-book-Q-A-COMMIT and copied for each run)
#        READERS, READ_RATE, SAVERS, SAVE_RATE   the background people and requests a second each
#                         (default 3 at 20/s, 2 at 10/s)
#        QUIET, TAIL      seconds of load before the first revert (later rounds: at least 1.2 x the
#                         longest revert so far) and after each (default 15, 3)
#        CHECK=0          skip `quotebook check` (a replay of the whole journal) after the run
#        REVISION         a commit to measure instead of the working tree (e.g. HEAD, while someone
#                         edits Sources/): exported with `git archive` to .build-bench/src-COMMIT
#                         and built there, its own Templates/ served
# Output: Benchmarks/revert-results/run-<UTC time>/{result.json, setup.json, round*.json,
#         round*-samples.tsv, server.*, check.txt, summary.md}; summary.md copied to
#         Benchmarks/revert-results/latest.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${1:-3}
QUOTES=${QUOTES:-100000}
ACTIONS=${ACTIONS:-300000}
export PATH=/opt/swift/usr/bin:$PATH

started=$(date +%s)
package=$root scratch=$root/.build-bench commit=worktree
if [ -n "${REVISION:-}" ]; then
    commit=$(git -C "$root" rev-parse --verify "$REVISION^{commit}")
    package=$root/.build-bench/src-${commit:0:12} scratch=$root/.build-bench/src-${commit:0:12}/.build
    if [ ! -f "$package/Package.swift" ]; then
        mkdir -p "$package.tmp" && git -C "$root" archive "$commit" | tar -x -C "$package.tmp" && mv "$package.tmp" "$package"
    fi
    revision="$(git -C "$root" rev-parse --short "$commit") (REVISION=$REVISION, built from git archive)"
else
    revision="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- Sources Templates Package.swift || echo ' with uncommitted changes to Sources/Templates')"
fi
(cd "$package" && timeout 1800 swift build -c release --scratch-path "$scratch" --product quotebook >&2 &&
    timeout 1800 swift build -c release --scratch-path "$scratch" --product ScaleBenchmark >&2)
app=$scratch/release/quotebook
tool=$scratch/release/ScaleBenchmark
source "$here/tools/quotebook_server.sh"

# The book as the ScaleBenchmark of the commit measured writes it (REVISION's, else the working tree's).
book=$root/.build-bench/revert-book-$QUOTES-$ACTIONS-${commit:0:12}
if [ ! -f "$book/quotebook.sqlite3" ]; then
    rm -rf "$book"
    "$tool" build "$book" --quotes "$QUOTES" --actions "$ACTIONS" >&2
fi
run=$here/revert-results/run-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
work=$(mktemp -d /tmp/quotebook-revert.XXXXXX)
server_pid=
trap 'stop_quotebook || true; rm -rf "$work"' EXIT
cp -r "$book" "$work/data"
data=$work/data
chmod 700 "$data"

echo "accounts: mod, vandal1..$ROUNDS, other1..$((${READERS:-3} + ${SAVERS:-2}))" >&2
password='revert benchmark password'  # revert_bench.py's PASSWORD
for name in mod $(seq -f 'vandal%g' 1 "$ROUNDS") $(seq -f 'other%g' 1 $((${READERS:-3} + ${SAVERS:-2}))); do
    printf '%s\n' "$password" | "$app" user add "$name" --data "$data" >/dev/null
done
"$app" user role mod moderator --data "$data" >/dev/null
size_before=$(stat -c %s "$data/quotebook.sqlite3")

start_quotebook "$run/server" --port 0 --host 127.0.0.1 --data "$data" --root "$package" --log-level warning
echo "server $listening (pid $server_pid)" >&2
python3 "$here/tools/revert_bench.py" --port "${listening##*:}" --data "$data" --out "$run" --rounds "$ROUNDS" \
    --edits "${EDITS:-5000}" --own "${OWN:-50}" --readers "${READERS:-3}" --read-rate "${READ_RATE:-20}" \
    --savers "${SAVERS:-2}" --save-rate "${SAVE_RATE:-10}" --quiet "${QUIET:-15}" --tail "${TAIL:-3}" \
    --server-pid "$server_pid" >"$run/result.json"
stop_quotebook || true
size_after=$(stat -c %s "$data/quotebook.sqlite3")
if [ "${CHECK:-1}" != 0 ]; then
    "$app" check --data "$data" >"$run/check.txt" 2>&1 && echo "check: ok" >>"$run/check.txt" || echo "check: FAILED ($?)" >>"$run/check.txt"
fi

{
    echo "# Revert a person who edited ${EDITS:-5000} quotes of a $QUOTES-quote book"
    echo
    echo "$(basename "$run"): commit $revision,"
    echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores, load average at the end $(cut -d' ' -f1-3 /proc/loadavg),"
    echo "$ROUNDS rounds, $(($(date +%s) - started)) s in all (build, book, set-up and rounds)."
    echo "Book: \`ScaleBenchmark build --quotes $QUOTES --actions $ACTIONS\`; background: ${READERS:-3} readers at ${READ_RATE:-20}/s"
    echo "and ${SAVERS:-2} savers at ${SAVE_RATE:-10}/s, each a signed-in person on one keep-alive connection."
    echo "Database file (after each clean close, WAL checkpointed): $size_before bytes before the vandals, $size_after after the run."
    echo "\`quotebook check\` afterwards: $(tail -1 "$run/check.txt" 2>/dev/null || echo skipped)."
    echo
    python3 "$here/tools/revert_bench.py" --summarize "$run"
} >"$run/summary.md"
cp "$run/summary.md" "$here/revert-results/latest.md"
cat "$run/summary.md"
