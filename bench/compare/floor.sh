#!/bin/bash
# The emulated cluster's own floor for allreduce: how close to the bandwidth
# bound 2(p-1)/p n/B can ANY algorithm get on this machine?
#
# A ring allreduce of n bytes is 2(p-1) steps in which every rank sends n/p
# bytes to its right neighbour and receives n/p from its left one, all links
# busy at once; with the reduction ~1000x cheaper than a 100 Mbit/s link it
# is at the bound exactly when one such step takes (n/p)/B.  For each p this
# script brings up p hosts, runs bench/rabred_netmodel (which times that
# step, "ring exchange", with plain MPI_Sendrecv and no collective at all,
# next to a two-host one-way ping-pong), takes the cluster down, and
# finally (floor.py) prints
#     floor(p, n) = t_ring(n/p) / ((n/p) / B)
# B being the two-host one-way bandwidth of a 4 MiB message, as in
# compare.sh's bound.  A floor above 1.10 means no algorithm can reach
# issue 5's "within 1.10x of the bound" on this emulation at that p and n.
#
#   bench/compare/floor.sh [--p-list "3 4 ..."] [--rate RATE] [--repeats R]
#                          [--name NAME]
# Output: bench/results/NAME/ (raw/pN.md: rabred_netmodel's tables;
# floor.md, floor.csv).  The cluster is taken down on exit, also on ^C.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cluster=$top/bench/cluster/cluster.sh
say() { echo "floor.sh: $*"; }
die() { echo "floor.sh: error: $*" >&2; exit 2; }

p_list="3 4 5 6 7 8 12 16" rate=100mbit repeats=7 name=floor-$(date -u +%Y%m%d)
while [ $# -gt 0 ]; do
    case $1 in
        --p-list) p_list=${2:?}; shift 2 ;;
        --rate) rate=${2:?}; shift 2 ;;
        --repeats) repeats=${2:?}; shift 2 ;;
        --name) name=${2:?}; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (--help)" ;;
    esac
done
for p in $p_list; do
    [[ $p =~ ^[0-9]+$ ]] && [ "$p" -ge 3 ] && [ "$p" -le 16 ] ||
        die "p must be 3..16 (the ring exchange needs 3 ranks): '$p'"
done
[ -x "$top/bench/rabred_netmodel" ] || die "bench/rabred_netmodel not built (scripts/setup.sh)"
[ ! -e /run/rabred-cluster/state ] || die "the emulated cluster is in use (bench/cluster/cluster.sh status)"

out=$top/bench/results/$name
mkdir -p "$out/raw"
{
    echo "command: bench/compare/floor.sh --p-list \"$p_list\" --rate $rate --repeats $repeats --name $name"
    echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "rabred: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
} > "$out/meta.txt"

owned=no
down() { if [ $owned = yes ]; then "$cluster" down >/dev/null 2>&1 || "$cluster" down || true; owned=no; fi; }
trap down EXIT
trap 'say interrupted; exit 130' INT TERM HUP

for p in $p_list; do
    say "p = $p: cluster up, rabred_netmodel -r $repeats"
    echo "p=$p load_before: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/meta.txt"
    owned=yes
    "$cluster" up "$p" --rate "$rate" --slots 1 >/dev/null || { owned=no; die "cluster.sh up $p failed"; }
    timeout 900 "$cluster" run -np "$p" --map-by node "$top/bench/rabred_netmodel" -r "$repeats" \
        > "$out/raw/p$p.md" 2> "$out/raw/p$p.err" || say "p = $p: rabred_netmodel failed (raw/p$p.err)"
    down
    echo "p=$p load_after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/meta.txt"
done
python3 "$here/floor.py" "$out"
