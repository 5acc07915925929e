#!/bin/bash
# Does TCP's restart of an idle connection's window (Linux
# net.ipv4.tcp_slow_start_after_idle, per network namespace, default 1)
# explain the plans that run slower than priced on the emulated cluster?
# Each case: the same rabred_bench run alternated with the sysctl at 1 and
# at 0 in every host namespace, A B A B, on a cluster otherwise idle.
# Usage: run.sh OUTDIR
set -u
top=/work/main; out=$1; cl=$top/bench/cluster/cluster.sh
. $top/bench/compare/param-args.sh
ssai() { for ns in $(ip netns list | awk '/^rabred-h/{print $1}'); do
           ip netns exec $ns sysctl -qw net.ipv4.tcp_slow_start_after_idle=$1; done; }
case_run() { # name hosts slots np conf bench-args...
  local name=$1 hosts=$2 slots=$3 np=$4 conf=$5; shift 5
  $cl up $hosts --rate 100mbit --slots $slots >/dev/null
  param_args_from $conf
  for rep in 1 2; do for s in 1 0; do
    ssai $s
    echo "== $name ssai=$s rep=$rep $(date +%T)" >> $out/$name.md
    RABRED_COLL=rabred,tuned,basic,libnbc $cl run -np $np --map-by node \
      --mca coll rabred,tuned,basic,libnbc "${param_args[@]}" \
      $top/bench/rabred_bench "$@" --csv $out/$name-ssai$s-rep$rep.csv >> $out/$name.md 2>>$out/$name.err
  done; done
  $cl down >/dev/null
}
cal=$top/bench/results/calibrate-20261207b/median.conf
case_run reduce-p13-4m 13 1 13 $cal -c reduce -s 4M -r 3 \
  --variants tuned:default,rabred:auto,rabred:pairwise_gather,rabred:binomial,tuned:binomial
case_run allreduce-p5-4m 5 1 5 $cal -c allreduce -s 4M -r 3 \
  --variants tuned:default,rabred:auto,rabred:bruck,rabred:neighbor_ring,tuned:ring
case_run allreduce-8x2-cyclic-4m 8 2 16 $top/bench/results/calibrate-8x2-20261206/rabred-calibration.conf \
  -c allreduce -s 4M -r 3 \
  --variants tuned:default,rabred:auto,rabred:bruck,rabred:node_lanes_ring,tuned:ring
