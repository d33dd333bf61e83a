#!/usr/bin/env bash
# Builds the three fuzzers (libFuzzer + AddressSanitizer) and fuzzes each in turn:
#   fuzz-request-parser  FuzzRequestParser.swift   the HTTP/1.1 request parser and the other decoders of client bytes
#   fuzz-multipart       FuzzMultipart.swift       the multipart/form-data parser and header parameters
#   fuzz-photo           FuzzPhotoProcessor.swift  the photo pipeline on libvips (Sources/Images), needs libvips-dev
# usage: Fuzz/run.sh [SECONDS [PHOTO_SECONDS]]
#   SECONDS for each parser (default 60), PHOTO_SECONDS for the photo pipeline (default: half of SECONDS);
#   the whole run takes about 2 x SECONDS + PHOTO_SECONDS plus the builds.
# Exit status: 0 when none found a crash, non-zero otherwise (crash inputs in Fuzz/.build/artifacts/).
# The seed corpora in Fuzz/corpus/, Fuzz/corpus-multipart/ and Fuzz/corpus-photo/ are read, never
# written; new inputs go to Fuzz/.build/corpus/, Fuzz/.build/corpus-multipart/ and Fuzz/.build/corpus-photo/.
set -euo pipefail
SECONDS_TO_RUN=${1:-60}
PHOTO_SECONDS=${2:-$(( (SECONDS_TO_RUN + 1) / 2 ))}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
src=$root/Sources/HTTPServer
basics=$root/Sources/Basics
out=$here/.build
mkdir -p "$out/corpus" "$out/corpus-multipart" "$out/corpus-photo" "$out/artifacts"
PATH=/opt/swift/usr/bin:$PATH

# Only pure files: the parsers and the message types they build; nothing that imports Glibc.
request_sources=(
    "$src"/HTTP1/ASCII.swift "$src"/HTTP1/HTTPLimits.swift "$src"/HTTP1/HTTPRejection.swift
    "$src"/HTTP1/HTTPRequestHead.swift "$src"/HTTP1/HTTPRequestParser.swift
    "$src"/HTTP1/HTTPRequestParser+Head.swift "$src"/HTTP1/HTTPRequestParser+Chunked.swift
    "$src"/HTTP1/HTTPDate.swift "$basics"/Codecs/CivilDate.swift "$src"/Files/StaticPath.swift
    "$basics"/Codecs/Hex.swift "$basics"/Codecs/PercentEncoding.swift "$basics"/Text/String+UTF8InPlace.swift
    "$src"/Message/HTTPMethod.swift "$src"/Message/HTTPVersion.swift "$src"/Message/HTTPStatus.swift
    "$src"/Message/HTTPHeaders.swift "$src"/Message/HTTPRequest.swift "$src"/Message/URLEncodedForm.swift
    "$src"/Message/HTTPCookies.swift "$src"/Server/IPAddress.swift "$src"/Message/SpooledBody.swift "$basics"/System/SystemCall+Glibc.swift
    "$here"/FuzzRequestParser.swift
)
multipart_sources=(
    "$src"/HTTP1/ASCII.swift "$src"/Message/HTTPHeaders.swift "$src"/Message/HeaderParameters.swift
    "$src"/Message/MultipartError.swift "$src"/Message/MultipartForm.swift "$src"/Message/MultipartForm+Parsing.swift
    "$src"/Message/SpooledBody.swift "$basics"/System/SystemCall+Glibc.swift "$basics"/Text/String+UTF8InPlace.swift
    "$here"/FuzzMultipart.swift
)
# The whole Images target (it only wraps libvips) and its bridge, Sources/CVips, which loads
# Debian's libvips when the first input arrives; GLib and GObject linked. GLib's headers are where
# pkg-config says (the target in Package.swift asks the same). The bridge is compiled here, with a
# module map of its own, as SwiftPM does for a C target.
mkdir -p "$out/cvips"
glib_cflags=($(pkg-config --cflags gobject-2.0))
clang -c -O1 -g "${glib_cflags[@]}" -I "$root/Sources/CVips/include" "$root/Sources/CVips/cvips.c" -o "$out/cvips/cvips.o"
printf 'module CVips {\n    header "%s"\n    export *\n}\n' "$root/Sources/CVips/include/cvips.h" > "$out/cvips/module.modulemap"
photo_sources=("$root"/Sources/Images/*.swift "$here"/FuzzPhotoProcessor.swift)
photo_flags=(-I "$out/cvips" "$out/cvips/cvips.o" -lgobject-2.0 -lglib-2.0)
for flag in "${glib_cflags[@]}"; do photo_flags+=(-Xcc "$flag"); done

# build NAME MODULE SOURCES... [FLAGS...]: the sources are compiled as one module, so their imports of the
# package's own Basics (whose codecs are among the sources) are dropped from copies of them.
build() {
    local name=$1 module=$2
    shift 2
    echo "building $out/$name" >&2
    local copies=$out/sources-$name file
    rm -rf "$copies" && mkdir -p "$copies"
    local sources=() flags=()
    for file in "$@"; do
        # Arguments that are not Swift files (the photo fuzzer's -I, -l and -Xcc flags and its bridge's
        # object file) go to swiftc as they are.
        if [[ $file != *.swift ]]; then flags+=("$file"); continue; fi
        sed -E '/^(package |public )?import Basics$/d' "$file" > "$copies/$(basename "$file")"
        sources+=("$copies/$(basename "$file")")
    done
    swiftc -swift-version 6 -parse-as-library -sanitize=fuzzer,address -O -g \
        -package-name quotebook -module-name "$module" \
        -enable-upcoming-feature ExistentialAny \
        "${sources[@]}" "${flags[@]}" -o "$out/$name"
}
build fuzz-request-parser RequestParserFuzz "${request_sources[@]}"
build fuzz-multipart MultipartFuzz "${multipart_sources[@]}"
build fuzz-photo PhotoFuzz "${photo_sources[@]}" "${photo_flags[@]}"

# fuzz NAME SEED_CORPUS SECONDS [LIBFUZZER_OPTIONS...]: runs one fuzzer for SECONDS; returns its exit status.
fuzz() {
    local name=$1 seeds=$2 seconds=$3
    shift 3
    echo "fuzzing $name for ${seconds}s" >&2
    # SWIFT_BACKTRACE=enable=no: on a Swift trap let libFuzzer's handler print the stack and save the
    # input; the Swift backtracer would run first and trip ASan with its own memory reads.
    local status=0
    SWIFT_BACKTRACE=enable=no "$out/$name" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/artifacts/$name-" "$@" \
        "$out/$(basename "$seeds")" "$seeds" || status=$?
    if [ "$status" -ne 0 ]; then
        echo "fuzz: $name failed (exit $status); the input is in $out/artifacts/ (above: 'Test unit written to')." >&2
        echo "fuzz: replay it with: $out/$name $out/artifacts/<file>" >&2
    fi
    return "$status"
}

# All run even if one fails; the exit status is the first failure's. Images need more room than
# 4 KB (a later -max_len wins); the photo fuzzer's own limits keep an execution to milliseconds.
status=0
fuzz fuzz-request-parser "$here/corpus" "$SECONDS_TO_RUN" || status=$?
multipart_status=0
fuzz fuzz-multipart "$here/corpus-multipart" "$SECONDS_TO_RUN" -dict="$here/multipart.dict" || multipart_status=$?
if [ "$status" -eq 0 ]; then status=$multipart_status; fi
photo_status=0
fuzz fuzz-photo "$here/corpus-photo" "$PHOTO_SECONDS" -max_len=16384 || photo_status=$?
if [ "$status" -eq 0 ]; then status=$photo_status; fi
exit "$status"
