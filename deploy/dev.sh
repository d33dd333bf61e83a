#!/usr/bin/env bash
# Sets up a Debian machine for Quotebook (the Swift toolchain is assumed), then runs it or its tests.
#
#   deploy/dev.sh run [OPTION...]   installs what is missing, then: swift run quotebook OPTION...
#   deploy/dev.sh test [ARG...]     installs what is missing, then: swift test ARG...
#   deploy/dev.sh install           only installs what is missing
#   deploy/dev.sh packages          prints the Debian packages it installs, one a line
#
# Once they are installed, `swift run quotebook` and `swift test` work alone; this script only
# adds the set-up. It installs Debian packages with apt-get (through sudo when not root) and
# nothing from PyPI: the tests need no Python packages. .ci/run checks that every system library
# the build uses comes from a package listed here (.ci/system-libraries.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# What the build and the tests use from the system, beside the toolchain:
packages=(
    libsqlite3-dev  # Sources/CSQLite: the SQLite book
    libcrypt-dev    # Sources/CCrypt: yescrypt password hashes
    libpq-dev       # Sources/CPostgres: the PostgreSQL backend
    libssl-dev      # Sources/CTLS: TLS to the mail relay (STARTTLS)
    libvips-dev     # Sources/CLibVips, CVips: photos (JPEG, PNG, WebP, GIF and HEIC through libvips, loaded on first use)
    libglib2.0-dev  # Sources/CLibVips: GLib and GObject, which libvips is built on and the bridge calls
    pkgconf         # Package.swift asks pkg-config for GLib's include paths (CLibVips)
    libc6-dev       # Sources/CLinuxEvents and the shims: epoll, eventfd, malloc
)

missing() {
    local package
    for package in "${packages[@]}"; do
        if [ "$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)" != installed ]; then
            echo "$package"
        fi
    done
}

install_missing() {
    local needed
    needed=$(missing)
    [ -n "$needed" ] || return 0
    local as_root=()
    if [ "$(id -u)" -ne 0 ]; then
        if ! command -v sudo >/dev/null; then
            echo "deploy/dev.sh: as root, run: apt-get install $(echo $needed)" >&2
            exit 1
        fi
        as_root=(sudo)
    fi
    echo "deploy/dev.sh: installing $(echo $needed) with apt-get" >&2
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086 # one word a package
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $needed >/dev/null
    needed=$(missing)
    if [ -n "$needed" ]; then
        echo "deploy/dev.sh: apt-get did not install $(echo $needed)" >&2
        exit 1
    fi
}

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
    run) install_missing && exec swift run quotebook "$@" ;;
    test) install_missing && exec swift test "$@" ;;
    install) install_missing ;;
    packages) printf '%s\n' "${packages[@]}" ;;
    *)
        sed -n '2,8s/^# \{0,1\}//p' "$0" >&2
        exit 2
        ;;
esac
