#!/usr/bin/env bash
# Fails when the build uses a system library that the README's set-up (deploy/dev.sh) does not
# install: every `.apt([...])` provider in Package.swift, every header a Sources/C*/shim.h
# includes, every library a module map links and every pkg-config module Package.swift asks for
# must come from a package `deploy/dev.sh packages` lists. A header is traced to its package with
# dpkg -S; one in the Swift toolchain's own clang headers belongs to the toolchain. Run it after
# the set-up (the headers must be there to be traced).
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t allowed < <(deploy/dev.sh packages)
failures=0
checked=0
is_allowed() {
    local package
    for package in "${allowed[@]}"; do [ "$package" = "$1" ] && return 0; done
    return 1
}
# The package owning `path` (a file, or a symlink such as a -dev package's libX.so), or nothing.
owner() {
    local path=$1 alternative
    dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1 && return 0
    case "$path" in
        /usr/lib/*) alternative=${path#/usr} ;;
        /lib/*) alternative=/usr$path ;;
        *) return 0 ;;
    esac
    dpkg -S "$alternative" 2>/dev/null | head -1 | cut -d: -f1 || true
}
require() { # what, package
    checked=$((checked + 1))
    if [ -z "$2" ]; then
        echo "system libraries: $1 comes from no installed Debian package" >&2
        failures=$((failures + 1))
    elif ! is_allowed "$2"; then
        echo "system libraries: $1 comes from $2, which deploy/dev.sh does not install" >&2
        failures=$((failures + 1))
    fi
}

# 1. Package.swift's providers.
for package in $(grep -o '\.apt(\[[^]]*\])' Package.swift | grep -o '"[^"]*"' | tr -d '"'); do
    require "Package.swift's provider $package" "$package"
done

# 2. Headers the shims include.
# The clang headers Swift's own compiler brings (stddef.h, …), found from the compiler itself
# (not from `command -v swift`, which may be a toolchain manager's proxy).
resources=$(swiftc -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')
toolchain_headers=$resources/clang/include
multiarch=$(gcc -print-multiarch)
for shim in Sources/C*/shim.h; do
    for header in $(grep -oE '^#include <[^>]+>' "$shim" | sed -E 's/#include <(.*)>/\1/'); do
        if [ -f "$toolchain_headers/$header" ]; then
            checked=$((checked + 1))
            continue
        fi
        found=""
        for directory in /usr/include/"$multiarch" /usr/include; do
            if [ -f "$directory/$header" ]; then found="$directory/$header"; break; fi
        done
        require "$shim's <$header>" "$( [ -n "$found" ] && owner "$found" )"
    done
done

# 3. Libraries the module maps link.
for map in Sources/C*/module.modulemap; do
    for library in $(grep -oE '^\s*link "[^"]+"' "$map" | grep -oE '"[^"]+"' | tr -d '"'); do
        path=$(realpath -s "$(gcc -print-file-name="lib$library.so")")
        require "$map's link \"$library\" ($path)" "$( [ -f "$path" ] && owner "$path" )"
    done
done

# 4. pkg-config modules, and pkg-config itself.
require "pkg-config" "$(owner "$(command -v pkg-config || echo /usr/bin/pkg-config)")"
for module in $(grep -oE 'pkgConfig: "[^"]+"' Package.swift | grep -oE '"[^"]+"' | tr -d '"'); do
    pc=$(pkg-config --path "$module" 2>/dev/null || true)
    require "Package.swift's pkgConfig \"$module\" ($pc)" "$( [ -n "$pc" ] && owner "$(realpath -s "$pc")" )"
done

if [ "$failures" -gt 0 ]; then
    echo "system libraries: $failures of $checked uses come from packages deploy/dev.sh does not install" >&2
    exit 1
fi
echo "system libraries: all $checked uses come from packages deploy/dev.sh installs"
