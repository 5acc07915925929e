#!/bin/bash
# The model's price of every candidate (coll_rabred_verbose 3) for the
# node runs' cells: 16 ranks as 8 hosts x 2 and 4 hosts x 4, both
# placements, the calibration the runs used.  Writes prices.txt here.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=bench/results/nodes-prices-20261206/prices.txt
. bench/compare/param-args.sh
param_args_from bench/results/calibrate-8x2-20261206/rabred-calibration.conf
: >"$out"
for shape in 8x2 4x4; do
    hosts=${shape%x*} ppn=${shape#*x}
    bench/cluster/cluster.sh down >/dev/null 2>&1 || true
    bench/cluster/cluster.sh up "$hosts" --rate 100mbit --slots "$ppn" >/dev/null
    for placement in cyclic block; do
        map=node; [ $placement = block ] && map=slot
        RABRED_COLL=rabred,tuned,basic,libnbc timeout 300 bench/cluster/cluster.sh run -np 16 \
            --map-by $map "${param_args[@]}" --mca coll_rabred_verbose 3 bench/rabred_bench \
            -s 64K,1M,4M -c allreduce -r 1 -t 1 --variants rabred:auto 2>&1 |
            grep -o "allreduce p=16 bytes=[0-9]* prices: .*" | sort -u |
            sed "s/^/$shape-$placement /" >>"$out"
    done
done
bench/cluster/cluster.sh down >/dev/null 2>&1
