#!/bin/bash
# k ranks send m bytes each to rank 0 at once (rank 0 posts every receive
# first), on the emulated cluster, p = 13 hosts; then the same forced
# plans as model-residuals-20261207 questions, side by side.
# Usage: run.sh OUTDIR (from the repository's top)
set -u
out=$1; cl=bench/cluster/cluster.sh
mpicc -O2 -Wall -o $out/incast $out/incast.c
$cl up 13 --rate 100mbit --slots 1 >/dev/null
for rep in 1 2; do
  $cl run -np 13 --map-by node --mca coll tuned,basic,libnbc $out/incast > $out/incast-rep$rep.txt 2>&1
done
. bench/compare/param-args.sh; param_args_from bench/results/calibrate-20261207b/median.conf
$cl run -np 13 --map-by node --mca coll rabred,tuned,basic,libnbc "${param_args[@]}" \
  bench/rabred_bench -c both -s 4M -r 5 \
  --variants tuned:default,rabred:auto,rabred:neighbor_ring,rabred:pairwise_ring,rabred:bruck,rabred:pairwise_gather,rabred:binomial,rabred:rabenseifner \
  --csv $out/plans-p13-4m.csv > $out/plans-p13-4m.md 2>&1
$cl down >/dev/null
