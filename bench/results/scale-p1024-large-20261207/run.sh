#!/bin/bash
# p = 1024, 256 KiB-64 MiB, the five platforms: rabred's large-message
# candidates and auto in one smpirun, then SMPI's Open MPI selector and its
# large-message algorithms, each its own smpirun (run-scale.sh's flags).
# Usage: run.sh OUT PLATFORM:PPN:GROUP:SIZES ...  (one chain; two ran at once)
top=/work/main
out=$1; shift
cd $top/bench/scale/build || exit 1
p=1024
sim() { # platform ppn group sizes allreduce-algorithm variants label
  local f=hosts-$1-$p
  if [ "$2" -gt 1 ]; then for ((i=0;i<p/$2;i++)); do echo node-$i:$2; done > $f
  else for ((i=0;i<p;i++)); do echo node-$i; done > $f; fi
  echo "start $1 $5 $(date +%T)" >> $out/progress
  timeout 1500 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/$1.xml -no-privatize \
    --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 \
    --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:$5 --log=root.thres:critical \
    ./rabred_scale --variants $6 --sizes $4 --label $7 --group $3 --link measure --mem-bytes 2G \
    2>>$out/smpi-$1.log | sed "s/^/platform=$1 /" >> $out/raw-$1.txt
  local rc=${PIPESTATUS[0]}
  [ $rc = 124 ] && echo "scale: $7 did not finish in 1500 s on $1 p=$p" >> $out/raw-$1.txt
  echo "end $1 $5 $(date +%T) rc=$rc" >> $out/progress
}
for entry in "$@"; do
  IFS=: read -r plat ppn group sizes <<<"$entry"
  rab=auto,rabenseifner,neighbor_ring
  smpi="ompi lr rab_rdb rab1"
  [ "$ppn" -gt 1 ] && { rab=$rab,node_lanes_ring,node_lanes; smpi="$smpi mvapich2_two_level smp_rsag_lr"; }
  sim $plat $ppn $group $sizes default $rab default
  for a in $smpi; do sim $plat $ppn $group $sizes $a mpi smpi:$a; done
done
