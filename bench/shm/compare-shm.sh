#!/bin/bash
# Compare rabred with Open MPI's coll/tuned over shared memory, the way a
# user would meet it: two ranks on one node, bound to cores, rabred's cost
# model calibrated first by rabred-calibrate (the step after install), then
# bench/rabred_bench in latency mode (back-to-back calls, the best of -r
# interleaved blocks) with every variant: tuned:default, rabred:auto, each
# rabred and each coll/tuned algorithm forced.  Results, tables and plots
# (bench/compare/analyze.py) go to bench/results/NAME/.
#
#   bench/shm/compare-shm.sh [options]
#
# Options:
#   --params FILE|calibrate|none  the cost model: an MCA parameter file,
#                      a fresh rabred-calibrate run (default; its files land
#                      in raw/), or the built-in defaults
#   --sizes LIST       bytes, comma separated, K/M suffixes
#                      (default 8,64,512,4K,16K,64K,256K,1M,4M,16M)
#   --repeats R        interleaved blocks per size, best reported (default 7)
#   --coll C           allreduce, reduce or both (default both)
#   --name NAME        output directory bench/results/NAME (default shm-DATE)
#   --fresh-input      every rank rewrites its input before each call, as an
#                      application computes what it reduces (rabred_bench
#                      --fresh-input 1: the rewrite alone is timed and taken
#                      out); by default the loop resends an unchanged input
#   --no-build         do not run scripts/setup.sh first
#
# Timing needs a quiet machine: run nothing else meanwhile.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
prog=compare-shm.sh
orig_args="$*"
die() { echo "$prog: error: $*" >&2; exit 2; }

params=calibrate sizes=8,64,512,4K,16K,64K,256K,1M,4M,16M repeats=7 coll=both name='' build=yes
fresh=0
while [ $# -gt 0 ]; do
    case $1 in
        --params) params=${2:?}; shift 2 ;;
        --sizes) sizes=${2:?}; shift 2 ;;
        --repeats) repeats=${2:?}; shift 2 ;;
        --coll) coll=${2:?}; shift 2 ;;
        --name) name=${2:?}; shift 2 ;;
        --no-build) build=no; shift ;;
        --fresh-input) fresh=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (--help)" ;;
    esac
done
[ "$(nproc)" -ge 2 ] || die "needs 2 cores (two ranks bound to cores)"
if [ $build = yes ]; then
    bash "$top/scripts/setup.sh" >/dev/null
fi
out=$top/bench/results/${name:-shm-$(date +%Y%m%d-%H%M)}
mkdir -p "$out/raw"
bind=(-np 2 --bind-to core --mca mpi_yield_when_idle 0)
run() { bash "$top/scripts/mpirun-rabred.sh" "${bind[@]}" "$@"; }

if [ "$params" = calibrate ]; then
    echo "$prog: rabred-calibrate (two ranks, bound)"
    run "$top/tools/rabred-calibrate" --out "$out/raw" 2>/dev/null
    params=$out/raw/rabred-calibration.conf
fi
# shellcheck source=bench/compare/param-args.sh
. "$top/bench/compare/param-args.sh"
param_args=()
if [ "$params" != none ]; then
    [ -r "$params" ] || die "cannot read --params $params"
    param_args_from "$params"
fi
{
    echo "command: bench/shm/compare-shm.sh $orig_args"
    echo "argv_resolved: sizes=$sizes repeats=$repeats coll=$coll params=$params fresh_input=$fresh"
    [ "$params" != none ] && grep -v '^#' "$params" | sed 's/^/params_file: /'
    echo "started: $(date -u +%FT%TZ)"
    echo "host: $(hostname)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
    echo "kernel: $(uname -r)"
    echo "openmpi: $(ompi_info --version 2>/dev/null | head -1)"
    echo "rabred: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$top" diff --quiet 2>/dev/null || echo ' (modified)')"
    echo "load_before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/raw/meta.txt"
echo "$prog: rabred_bench --mode latency -s $sizes -r $repeats -c $coll"
RABRED_COLL=rabred,tuned,basic,libnbc run --mca coll_tuned_use_dynamic_rules 1 \
    "${param_args[@]}" "$top/bench/rabred_bench" --mode latency -s "$sizes" -r "$repeats" \
    -c "$coll" --fresh-input "$fresh" --csv "$out/raw/p2.csv" >"$out/raw/p2.md" 2>"$out/raw/p2.err"
echo "finished: $(date -u +%FT%TZ) load_after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/raw/meta.txt"
python3 "$top/bench/compare/analyze.py" "$out"
echo "$prog: results in ${out#"$top"/}"
