#!/bin/bash
# rabred's simulator against SMPI on the contention-free crossbar, every
# algorithm `all` runs, p = 16, 64, 256 (8 B, 64 KiB, 2 MiB) and 1024 (8 B
# and 64 KiB): each RESULT line's time_s is SMPI's, sim_s rabred's
# simulator's in its flow-level mode (latency overlapped but for the
# measured per-message overhead, ports shared fairly, sends below 64 KiB
# detached).  Run from the repository's top directory after
# scripts/run-scale.sh --quick has built bench/scale/build/rabred_scale.
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)
top=$(pwd)
cd bench/scale/build
: >"$out/raw.txt"
for p in 16 64 256 1024; do
    for ((i = 0; i < p; i++)); do echo "node-$i"; done >hosts.crosscheck
    sizes=8,64K,2M
    if [ "$p" = 1024 ]; then
        sizes=8,64K
    fi
    smpirun -np "$p" -hostfile hosts.crosscheck -platform "$top/bench/scale/platforms/crossbar.xml" \
        -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 \
        --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --log=root.thres:critical \
        ./rabred_scale --variants all --sizes "$sizes" --label x --link measure 2>/dev/null |
        grep '^RESULT' >>"$out/raw.txt"
done
rm -f hosts.crosscheck
# SMPI / simulator - 1, per line
awk '{split($6, a, "="); split($9, b, "="); printf "%s %s %s %+.2f%%\n", $2, $4, $5, 100 * (a[2] / b[2] - 1)}' \
    "$out/raw.txt" >"$out/deviation.txt"
