#!/usr/bin/env bash
# Builds the two fuzzers (libFuzzer + AddressSanitizer) and fuzzes each for SECONDS, one after the other:
#   fuzz-request-parser  FuzzRequestParser.swift  the HTTP/1.1 request parser and the other decoders of client bytes
#   fuzz-multipart       FuzzMultipart.swift      the multipart/form-data parser and header parameters
# usage: Fuzz/run.sh [SECONDS]        (default 60; the whole run takes about 2 x SECONDS plus the builds)
# Exit status: 0 when neither found a crash, non-zero otherwise (crash inputs in Fuzz/.build/artifacts/).
# The seed corpora in Fuzz/corpus/ and Fuzz/corpus-multipart/ are read, never written; new inputs go
# to Fuzz/.build/corpus/ and Fuzz/.build/corpus-multipart/.
set -euo pipefail
SECONDS_TO_RUN=${1:-60}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
src=$root/Sources/HTTPServer
basics=$root/Sources/Basics
out=$here/.build
mkdir -p "$out/corpus" "$out/corpus-multipart" "$out/artifacts"
PATH=/opt/swift/usr/bin:$PATH

# Only pure files: the parsers and the message types they build; nothing that imports Glibc.
request_sources=(
    "$src"/HTTP1/ASCII.swift "$src"/HTTP1/HTTPLimits.swift "$src"/HTTP1/HTTPRejection.swift
    "$src"/HTTP1/HTTPRequestHead.swift "$src"/HTTP1/HTTPRequestParser.swift
    "$src"/HTTP1/HTTPRequestParser+Head.swift "$src"/HTTP1/HTTPRequestParser+Chunked.swift
    "$src"/HTTP1/HTTPDate.swift "$basics"/Codecs/CivilDate.swift "$src"/Files/StaticPath.swift
    "$basics"/Codecs/Hex.swift "$basics"/Codecs/PercentEncoding.swift
    "$src"/Message/HTTPMethod.swift "$src"/Message/HTTPVersion.swift "$src"/Message/HTTPStatus.swift
    "$src"/Message/HTTPHeaders.swift "$src"/Message/HTTPRequest.swift "$src"/Message/URLEncodedForm.swift
    "$src"/Server/IPAddress.swift "$here"/FuzzRequestParser.swift
)
multipart_sources=(
    "$src"/HTTP1/ASCII.swift "$src"/Message/HTTPHeaders.swift "$src"/Message/HeaderParameters.swift
    "$src"/Message/MultipartError.swift "$src"/Message/MultipartForm.swift "$src"/Message/MultipartForm+Parsing.swift
    "$here"/FuzzMultipart.swift
)

# build NAME MODULE SOURCES...: the sources are compiled as one module, so their imports of the
# package's own Basics (whose codecs are among the sources) are dropped from copies of them.
build() {
    local name=$1 module=$2
    shift 2
    echo "building $out/$name" >&2
    local copies=$out/sources-$name file
    rm -rf "$copies" && mkdir -p "$copies"
    local sources=()
    for file in "$@"; do
        sed -E '/^(package |public )?import Basics$/d' "$file" > "$copies/$(basename "$file")"
        sources+=("$copies/$(basename "$file")")
    done
    swiftc -swift-version 6 -parse-as-library -sanitize=fuzzer,address -O -g \
        -package-name quotebook -module-name "$module" \
        -enable-upcoming-feature ExistentialAny \
        "${sources[@]}" -o "$out/$name"
}
build fuzz-request-parser RequestParserFuzz "${request_sources[@]}"
build fuzz-multipart MultipartFuzz "${multipart_sources[@]}"

# fuzz NAME SEED_CORPUS [LIBFUZZER_OPTIONS...]: runs one fuzzer for SECONDS; returns its exit status.
fuzz() {
    local name=$1 seeds=$2
    shift 2
    echo "fuzzing $name for ${SECONDS_TO_RUN}s" >&2
    # SWIFT_BACKTRACE=enable=no: on a Swift trap let libFuzzer's handler print the stack and save the
    # input; the Swift backtracer would run first and trip ASan with its own memory reads.
    local status=0
    SWIFT_BACKTRACE=enable=no "$out/$name" -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/artifacts/$name-" "$@" \
        "$out/$(basename "$seeds")" "$seeds" || status=$?
    if [ "$status" -ne 0 ]; then
        echo "fuzz: $name failed (exit $status); the input is in $out/artifacts/ (above: 'Test unit written to')." >&2
        echo "fuzz: replay it with: $out/$name $out/artifacts/<file>" >&2
    fi
    return "$status"
}

# Both run even if the first fails; the exit status is the first failure's.
status=0
fuzz fuzz-request-parser "$here/corpus" || status=$?
multipart_status=0
fuzz fuzz-multipart "$here/corpus-multipart" -dict="$here/multipart.dict" || multipart_status=$?
if [ "$status" -eq 0 ]; then status=$multipart_status; fi
exit "$status"
