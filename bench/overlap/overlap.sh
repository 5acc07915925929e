#!/bin/bash
# Overlap of nonblocking reductions on the emulated cluster (bench/cluster/),
# rabred against libnbc, measured as OSU's osu_iallreduce does
# (bench/rabred_overlap.c says how): for each p, p hosts with one rank each
# at 100 Mbit/s, every variant interleaved in one run, rounds repeated;
# then bench/overlap/summarize.py writes the medians into summary.md.
#
#   bench/overlap/overlap.sh [--p-list "4 8"] [--sizes 64K,256K,1M,4M]
#                            [--variants libnbc,auto,...] [--rounds R]
#                            [--iters N] [--probes K] [--compute spin|sleep]
#                            [--name NAME]
#
# --compute sleep: the overlapped computation sleeps instead of spinning
# (bench/rabred_overlap.c): p busy ranks on this machine's 2 cores take
# the CPU the emulated network's packets need, so a busy loop measures the
# scheduler from p = 8; a sleeping rank stands for one with its own core.
#
# The model parameters are this cluster's calibration
# (bench/profiles/emulated-100mbit.conf), as bench/compare/compare.sh uses.
# Needs root and a quiet machine; the cluster is taken down at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cluster=$top/bench/cluster/cluster.sh
p_list="4 8" sizes=64K,256K,1M,4M variants=libnbc,auto,recursive_doubling,rabenseifner,neighbor_ring
rounds=3 iters=3 probes=16 compute=spin name=overlap-$(date +%Y%m%d)
while [ $# -gt 0 ]; do
    case $1 in
        --p-list) p_list=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --variants) variants=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --iters) iters=$2; shift 2 ;;
        --probes) probes=$2; shift 2 ;;
        --compute) compute=$2; shift 2 ;;
        --name) name=$2; shift 2 ;;
        *) echo "usage: see the header of $0" >&2; exit 2 ;;
    esac
done
# shellcheck source=bench/compare/param-args.sh
. "$top/bench/compare/param-args.sh"
param_args_from "$top/bench/profiles/emulated-100mbit.conf"
out=$top/bench/results/$name
mkdir -p "$out"
{
    echo "date: $(date -u +%FT%TZ)"
    echo "commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "machine: $(nproc) cores, $(uname -r)"
    echo "args: p_list='$p_list' sizes=$sizes variants=$variants rounds=$rounds iters=$iters probes=$probes compute=$compute"
} > "$out/meta.txt"
trap '"$cluster" down >/dev/null 2>&1 || true' EXIT
for p in $p_list; do
    echo "p=$p load_before: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/meta.txt"
    "$cluster" up "$p" --rate 100mbit --slots 1 >/dev/null
    RABRED_COLL=rabred,tuned,basic,libnbc "$cluster" run -np "$p" --map-by node \
        "${param_args[@]}" "$top/bench/rabred_overlap" --sizes "$sizes" \
        --variants "$variants" --rounds "$rounds" --iters "$iters" --probes "$probes" --compute "$compute" \
        > "$out/p$p.txt" 2> "$out/p$p.err"
    "$cluster" down >/dev/null
done
/usr/bin/python3 "$here/summarize.py" "$out"/p*.txt > "$out/summary.md"
cat "$out/summary.md"
