#!/bin/bash
# What rabred's look-up and executor cost a call: bench/rabred_call_cost
# (MPI_Allreduce of one double on MPI_COMM_SELF, best of 15 blocks of
# 200000 calls) with and without rabred, in separate processes, alternated
# for --rounds rounds:
#   without  --mca coll tuned,basic,libnbc: coll/basic serves MPI_COMM_SELF
#            (coll/tuned declines one-rank communicators), a copy
#   rabred   rabred first, running its own plan (one local copy)
# rabred set to `previous` is no third point here: coll/basic's allreduce
# calls MPI_Reduce, which comes back to rabred.  Prints one table row per
# round (ns) and the medians.  Needs a quiet machine; one rank bound to a
# core.
#
#   bench/shm/call-cost.sh [--rounds N] [--no-build]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rounds=5 build=yes
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=${2:?}; shift 2 ;;
        --no-build) build=no; shift ;;
        *) echo "usage: $0 [--rounds N] [--no-build]" >&2; exit 2 ;;
    esac
done
[ "$build" = yes ] && bash scripts/setup.sh >/dev/null
prog=bench/rabred_call_cost
[ -x "$prog" ] || make -s bench/rabred_call_cost >/dev/null
one() { # coll list, extra mpirun args...
    local coll=$1
    shift
    RABRED_COLL=$coll bash scripts/mpirun-rabred.sh -np 1 --bind-to core "$@" "$prog" | tail -1
}
echo "| round | without rabred (ns) | rabred (ns) |"
echo "|---:|---:|---:|"
t=() r=()
for k in $(seq "$rounds"); do
    t+=("$(one tuned,basic,libnbc)")
    r+=("$(one rabred,tuned,basic,libnbc)")
    echo "| $k | ${t[-1]} | ${r[-1]} |"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "| median | $(median "${t[@]}") | $(median "${r[@]}") |"
