#!/bin/bash
# p = 1024, the runner's start fixed (f2413e7): rabred's lg p candidates and auto,
# then SMPI's rdb, rab_rdb and Open MPI selector, on the fat trees and nodes of 16
# (and Bruck on the torus)
cd /work/main/bench/scale/build
out=${OUT:-/tmp/s1024b}; : > $out/raw.txt; : > $out/progress
p=1024
sim() { # platform allreduce-algorithm variants label group ppn
  local f=hosts-$1-$p; if [ "$6" -gt 1 ]; then for ((i=0;i<p/$6;i++)); do echo node-$i:$6; done > $f; else for ((i=0;i<p;i++)); do echo node-$i; done > $f; fi
  echo "start $1 $2 $(date +%T)" >> $out/progress
  timeout 2400 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/$1.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:$2 --log=root.thres:critical ./rabred_scale --variants $3 --sizes 8,512,4K --label $4 --group $5 --link measure 2>>$out/smpi.log | sed "s/^/platform=$1 /" >> $out/raw.txt
  rc=${PIPESTATUS[0]}
  [ $rc = 124 ] && echo "scale: smpi:$2 did not finish in 2400 s on $1 p=$p" >> $out/raw.txt
  echo "end $1 $2 $(date +%T) rc=$rc" >> $out/progress
}
for entry in fattree:16:1 fattree-4to1:16:1 nodes16:16:16; do
  IFS=: read -r plat group ppn <<<"$entry"
  sim $plat default auto,recursive_doubling,rabenseifner,binary_blocks,bruck default $group $ppn
  for a in rdb rab_rdb ompi; do sim $plat $a mpi smpi:$a $group $ppn; done
done
sim torus default bruck default 1 1
