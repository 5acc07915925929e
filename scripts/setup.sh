#!/bin/bash
# Prepare a machine and build rabred: install missing Debian packages, then
# autogen/configure/make.  Idempotent: each step runs only when needed, so
# run-main.sh and run-tests.sh call it every time.
#
#   scripts/setup.sh            install what is missing, build
#   scripts/setup.sh --install  ... then make install, and print how to run
#                               with rabred on this Open MPI
#
# It builds against the Open MPI whose mpicc, ompi_info and mpirun come
# first on PATH, 4.1.x or 5.0.x: a user with Open MPI 5 (Debian 13, or a
# build of their own in /opt/openmpi-5) installs rabred into it with
#
#   PATH=/opt/openmpi-5/bin:$PATH bash scripts/setup.sh --install
#
# Environment:
#   RABRED_CONFIGURE_FLAGS  extra ./configure arguments (first configure only),
#                           e.g. --with-ompi-componentdir=$HOME/.openmpi/components
set -euo pipefail

install=no
if [ "${1:-}" = --install ]; then
    install=yes
elif [ $# -gt 0 ]; then
    echo "usage: scripts/setup.sh [--install]" >&2
    exit 2
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { echo "setup: $*"; }

packages=(openmpi-bin libopenmpi-dev autoconf automake libtool libhwloc-dev
          pkg-config make gcc groff-base python3)  # groff: the man pages; python3: analyze.py

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
if [ "$install" = no ]; then
    exit 0
fi
say "make install"
make install
# shellcheck source=/dev/null
. ./rabred-env.sh
say "installed $RABRED_COMPONENTDIR/mca_coll_rabred.so for Open MPI $OMPI_SERIES"
if [ "$OMPI_SERIES" = 5.0 ]; then
    # Open MPI's own directory too when its components are separate files
    path=$RABRED_COMPONENTDIR
    if [ "$OMPI_PKGLIBDIR" != "$path" ] && compgen -G "$OMPI_PKGLIBDIR/mca_*.so" >/dev/null; then
        path=$OMPI_PKGLIBDIR:$path
    fi
    # mpirun hands that path to PMIx too, which then names every file there
    # that is not one of its own; give PMIx back its own directory
    pmix_mca=() pmix_env=''
    if [ -n "$PMIX_COMPONENTDIR" ]; then
        pmix_mca=(--pmixmca mca_base_component_path "$PMIX_COMPONENTDIR")
        pmix_env=" PMIX_MCA_mca_base_component_path=$PMIX_COMPONENTDIR"
    fi
    cat <<TXT
setup: Open MPI 5.0's mpirun may set the component path of its ranks itself
setup: (Debian's 5.0.7 does), so name rabred's directory on every mpirun line:
setup:   mpirun --mca mca_base_component_path $path ${pmix_mca[*]} --mca coll rabred,tuned,basic,libnbc ...
setup: or once in your shell:
setup:   export OMPI_MCA_mca_base_component_path=$path$pmix_env
TXT
else
    echo "setup: Open MPI 4.1 finds it there: mpirun --mca coll rabred,tuned,basic,libnbc ..."
fi
