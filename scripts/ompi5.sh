#!/bin/bash
# Build, test or run rabred against Open MPI 5.0 on a Debian 12 machine.
#
# Debian 12 ships Open MPI 4.1 only, and Debian 13's 5.0.7 cannot be
# installed beside it (it would replace the C library), so this script keeps
# a Debian 13 (trixie) root file system with Open MPI 5.0 and rabred's build
# dependencies, made by mmdebstrap from Debian's mirror, and runs rabred's
# scripts inside it with chroot: the same source tree, built against 5.0.
#
#   scripts/ompi5.sh root            make the root file system if it is
#                                    missing or not current; print its path
#   scripts/ompi5.sh test [ARGS]     copy the source tree in afresh and run
#                                    scripts/run-tests.sh ARGS inside
#                                    (default: --ompi5, the checks CI runs
#                                    on 5.0); its last line is "N passed,
#                                    M failed"
#   scripts/ompi5.sh run CMD...      update the copy (keeping its build) and
#                                    run CMD inside it, e.g.
#                                    scripts/ompi5.sh run bash scripts/run-main.sh
#
# The root file system is reused while it is current: built from this
# script's package list (a stamp file inside records it) and its Open MPI
# answers `ompi_info --version` with 5.0.x.  Anything else rebuilds it
# (3-4 minutes here).  /proc, /sys, /dev (and /run, for the emulated
# cluster's namespaces) are bound into it for the duration of a command.
#
# Needs root (chroot, mounts) and mmdebstrap (installed when missing).
# A user with Open MPI 5 on their own machine does not need any of this:
# `bash scripts/setup.sh --install` builds against the mpicc on PATH.
#
# Environment:
#   RABRED_OMPI5_ROOT    where the root file system lives
#                        (default /var/cache/rabred/trixie-ompi5)
#   RABRED_OMPI5_MIRROR  Debian mirror for mmdebstrap (default: its own)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$PWD
root=${RABRED_OMPI5_ROOT:-/var/cache/rabred/trixie-ompi5}
suite=trixie
# What scripts/setup.sh installs, plus PMIx's headers (Open MPI 5's include
# its) and what the emulated cluster's scripts call inside (ip, nsenter).
packages=(openmpi-bin libopenmpi-dev libpmix-dev autoconf automake libtool libhwloc-dev
          pkg-config make gcc iproute2 util-linux mount procps python3)
stamp_text="rabred root file system: suite=$suite packages=${packages[*]}"
say() { echo "ompi5: $*" >&2; }

need_root() {
    if [ "$(id -u)" -ne 0 ]; then
        say "needs root (mmdebstrap, chroot and bind mounts); run it as root or with sudo," \
            "or skip Open MPI 5.0 with RABRED_OMPI5=0"
        exit 2
    fi
}

is_current() {
    [ -f "$root/.rabred-stamp" ] && [ "$(cat "$root/.rabred-stamp")" = "$stamp_text" ] &&
        chroot "$root" ompi_info --version 2>/dev/null | grep -q '^Open MPI v5\.0\.'
}

ensure_mmdebstrap() {
    command -v mmdebstrap >/dev/null 2>&1 && return 0
    say "installing mmdebstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        mmdebstrap >&2 || { apt-get update -q >&2 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
            mmdebstrap >&2; }
}

# rm -rf of a root file system with /dev or /sys still bound into it would
# empty the machine's own: refuse when anything is mounted below it.
assert_unmounted() {
    if awk -v r="$root/" 'index($2 "/", r) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
        say "something is still mounted below $root; not removing it (umount -R it first)"
        exit 1
    fi
}

# Builds into a sibling directory and renames it, so an interrupted build is
# never mistaken for a current one.
build_root() {
    ensure_mmdebstrap
    local tmp=$root.new
    rm -rf "$tmp"
    mkdir -p "$(dirname "$root")"
    local includes
    includes=$(IFS=,; echo "${packages[*]}")
    say "building the $suite root file system in $root (3-4 minutes)"
    local start=$SECONDS
    # shellcheck disable=SC2086  # the mirror is optional
    mmdebstrap --variant=apt --include="$includes" "$suite" "$tmp" \
        ${RABRED_OMPI5_MIRROR:-} >&2
    echo "$stamp_text" >"$tmp/.rabred-stamp"
    assert_unmounted
    rm -rf "$root"
    mv "$tmp" "$root"
    say "root file system ready in $((SECONDS - start)) s"
}

ensure_root() {
    need_root
    if is_current; then
        return 0
    fi
    unmount_all
    build_root
    is_current || { say "the new root file system does not run Open MPI 5.0"; exit 1; }
}

mount_all() {
    # the root itself a mount point, as `ip netns add` (the emulated
    # cluster) wants of / when it makes its mounts private
    if ! mountpoint -q "$root"; then
        mount --bind "$root" "$root"
        mount --make-private "$root"
    fi
    for d in proc sys dev run; do
        mkdir -p "$root/$d"
        if ! mountpoint -q "$root/$d"; then
            mount --rbind "/$d" "$root/$d"
            mount --make-rslave "$root/$d"
        fi
    done
}
unmount_all() {
    for d in run dev sys proc; do
        if mountpoint -q "$root/$d" 2>/dev/null; then
            umount -R "$root/$d" 2>/dev/null || umount -l "$root/$d" || true
        fi
    done
    if mountpoint -q "$root" 2>/dev/null; then
        umount "$root" 2>/dev/null || umount -l "$root" || true
    fi
}

# The source files, without build products: git's list in a checkout
# (tracked and new files), else the whole tree cleaned inside.
copy_source() {
    local dest=$root/src/rabred fresh=$1
    if [ "$fresh" = 1 ]; then
        rm -rf "$dest"
    fi
    mkdir -p "$dest"
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$top" ls-files -z --cached --others --exclude-standard |
            (cd "$top" && tar --null -T - -cf - 2>/dev/null) | tar -xf - -C "$dest"
    else
        tar -C "$top" --exclude=.libs --exclude='*.o' --exclude='*.lo' --exclude=test-logs \
            -cf - . | tar -xf - -C "$dest"
        if [ "$fresh" = 1 ] && [ -f "$dest/Makefile" ]; then
            chroot "$root" make -C /src/rabred distclean >/dev/null 2>&1 || true
        fi
    fi
}

in_root() { # command...: run in the copy, as root, with a plain environment
    local commit
    commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
    git -C "$top" diff --quiet HEAD 2>/dev/null || commit="$commit (modified)"
    chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        TERM="${TERM:-dumb}" RABRED_OMPI5=0 RABRED_COMMIT="$commit" \
        ${RABRED_NP_LIST:+RABRED_NP_LIST="$RABRED_NP_LIST"} \
        ${RABRED_TIMEOUT:+RABRED_TIMEOUT="$RABRED_TIMEOUT"} \
        ${RABRED_BENCH_ARGS:+RABRED_BENCH_ARGS="$RABRED_BENCH_ARGS"} \
        ${RABRED_BENCH_CLUSTER:+RABRED_BENCH_CLUSTER="$RABRED_BENCH_CLUSTER"} \
        ${RABRED_COMPARE_ARGS:+RABRED_COMPARE_ARGS="$RABRED_COMPARE_ARGS"} \
        /bin/bash -c 'cd /src/rabred && exec "$@"' bash "$@"
}

cmd=${1:-}
shift || true
case $cmd in
    root)
        ensure_root
        echo "$root"
        ;;
    test)
        ensure_root
        trap unmount_all EXIT
        mount_all
        copy_source 1
        [ $# -gt 0 ] || set -- --ompi5
        rc=0
        in_root bash scripts/run-tests.sh "$@" || rc=$?
        # the logs beside the 4.1 run's, for whoever reads a failure
        rm -rf "$top/test-logs/ompi5"
        mkdir -p "$top/test-logs"
        cp -r "$root/src/rabred/test-logs" "$top/test-logs/ompi5" 2>/dev/null || true
        exit $rc
        ;;
    run)
        [ $# -gt 0 ] || { say "usage: scripts/ompi5.sh run CMD..."; exit 2; }
        ensure_root
        trap unmount_all EXIT
        mount_all
        copy_source 0
        rc=0
        in_root "$@" || rc=$?
        # benchmark runs land in the copy's bench/results: bring new ones back
        cp -rn "$root/src/rabred/bench/results/." "$top/bench/results/" 2>/dev/null || true
        exit $rc
        ;;
    *)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        [ "$cmd" = "-h" ] || [ "$cmd" = "--help" ]
        ;;
esac
