#!/bin/bash
# p = 1024, the runner's start fixed (f2413e7): rabred's lg p candidates and auto,
# then SMPI's rdb, rab_rdb and Open MPI selector, on the crossbar and the torus
cd /work/main/bench/scale/build
out=${OUT:-/tmp/s1024fix}; : > $out/raw.txt; : > $out/progress
p=1024
sim() { # platform allreduce-algorithm variants label
  local f=hosts-$1-$p; for ((i=0;i<p;i++)); do echo node-$i; done > $f
  echo "start $1 $2 $(date +%T)" >> $out/progress
  timeout 2400 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/$1.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:$2 --log=root.thres:critical ./rabred_scale --variants $3 --sizes 8,512,4K --label $4 --group 1 --link measure 2>>$out/smpi.log | sed "s/^/platform=$1 /" >> $out/raw.txt
  rc=${PIPESTATUS[0]}
  [ $rc = 124 ] && echo "scale: smpi:$2 did not finish in 2400 s on $1 p=$p" >> $out/raw.txt
  echo "end $1 $2 $(date +%T) rc=$rc" >> $out/progress
}
for plat in crossbar torus; do
  sim $plat default auto,recursive_doubling,rabenseifner,binary_blocks default
  for a in rdb rab_rdb ompi; do sim $plat $a mpi smpi:$a; done
done
