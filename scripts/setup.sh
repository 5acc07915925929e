#!/bin/bash
# Prepare a machine and build rabred: install missing Debian packages, then
# autogen/configure/make.  Idempotent: each step runs only when needed, so
# run-main.sh and run-tests.sh call it every time.
#
# Environment:
#   RABRED_CONFIGURE_FLAGS  extra ./configure arguments (first configure only)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { echo "setup: $*"; }

packages=(openmpi-bin libopenmpi-dev autoconf automake libtool libhwloc-dev
          pkg-config make gcc)

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
    for p in "${packages[@]}"; do
        status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        if [ "$status" != "install ok installed" ]; then
            missing+=("$p")
        fi
    done
else
    say "dpkg-query not found: not a Debian system, assuming the build" \
        "tools and Open MPI 4.1 (with developer headers) are installed"
fi

if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        sudo=()
    elif command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        say "missing packages: ${missing[*]}; not root and no sudo:" \
            "install them and re-run" >&2
        exit 1
    fi
    say "installing missing packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    say "apt-get update"
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
    say "all required packages are installed"
fi

if [ ! -x configure ]; then
    say "./autogen.sh (no configure script yet)"
    ./autogen.sh
fi
if [ ! -f Makefile ]; then
    say "./configure ${RABRED_CONFIGURE_FLAGS:-}"
    # shellcheck disable=SC2086  # flags are meant to split into words
    ./configure ${RABRED_CONFIGURE_FLAGS:-}
fi
say "make -j2"
make -j2
say "build ready"
