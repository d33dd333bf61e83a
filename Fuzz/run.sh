#!/usr/bin/env bash
# Builds the request-parser fuzzer (libFuzzer + AddressSanitizer) and fuzzes for SECONDS.
# usage: Fuzz/run.sh [SECONDS]        (default 60)
# Exit status: 0 when no crash was found, non-zero otherwise (crash inputs in Fuzz/.build/artifacts/).
# The seed corpus in Fuzz/corpus/ is read, never written; new inputs go to Fuzz/.build/corpus/.
set -euo pipefail
SECONDS_TO_RUN=${1:-60}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
src=$root/Sources/HTTPServer
out=$here/.build
mkdir -p "$out/corpus" "$out/artifacts"
PATH=/opt/swift/usr/bin:$PATH

# Only pure files: the parser and the message types it builds; nothing that imports Glibc.
sources=(
    "$src"/HTTP1/ASCII.swift "$src"/HTTP1/HTTPLimits.swift "$src"/HTTP1/HTTPRejection.swift
    "$src"/HTTP1/HTTPRequestHead.swift "$src"/HTTP1/HTTPRequestParser.swift
    "$src"/HTTP1/HTTPRequestParser+Head.swift "$src"/HTTP1/HTTPRequestParser+Chunked.swift
    "$src"/HTTP1/HTTPDate.swift "$src"/Files/StaticPath.swift
    "$src"/Message/HTTPMethod.swift "$src"/Message/HTTPVersion.swift "$src"/Message/HTTPStatus.swift
    "$src"/Message/HTTPHeaders.swift "$src"/Message/HTTPRequest.swift "$src"/Message/URLEncodedForm.swift
    "$here"/FuzzRequestParser.swift
)
echo "building $out/fuzz-request-parser" >&2
swiftc -swift-version 6 -parse-as-library -sanitize=fuzzer,address -O -g \
    -package-name quotebook -module-name RequestParserFuzz \
    -enable-upcoming-feature ExistentialAny \
    "${sources[@]}" -o "$out/fuzz-request-parser"

echo "fuzzing for ${SECONDS_TO_RUN}s" >&2
# SWIFT_BACKTRACE=enable=no: on a Swift trap let libFuzzer's handler print the stack and save the
# input; the Swift backtracer would run first and trip ASan with its own memory reads.
status=0
SWIFT_BACKTRACE=enable=no "$out/fuzz-request-parser" -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/artifacts/" "$out/corpus" "$here/corpus" || status=$?
if [ "$status" -ne 0 ]; then
    echo "fuzz: the fuzzer failed (exit $status); the input is in $out/artifacts/ (above: 'Test unit written to')." >&2
    echo "fuzz: replay it with: $out/fuzz-request-parser $out/artifacts/<file>" >&2
fi
exit "$status"
