#!/bin/bash
# p = 4096 on the torus (all of it), the lg p algorithms: rabred's auto, rabenseifner, recursive doubling; SMPI's selector and rdb
cd /work/main/bench/scale/build
out=/tmp/s4096; : > $out/raw.txt; : > $out/progress
p=4096; f=hosts-torus-$p; for ((i=0;i<p;i++)); do echo node-$i; done > $f
sim() {
  echo "start $1 $(date +%T)" >> $out/progress
  timeout 4000 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/torus.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:$1 --log=root.thres:critical ./rabred_scale --variants $2 --sizes 8,64K --label $3 --group 1 --link measure 2>>$out/smpi.log | sed -u "s/^/platform=torus /" >> $out/raw.txt
  rc=${PIPESTATUS[0]}
  [ $rc = 124 ] && echo "scale: $3 did not finish in 4000 s on torus p=$p" >> $out/raw.txt
  echo "end $1 $(date +%T) rc=$rc" >> $out/progress
}
sim default auto,rabenseifner,recursive_doubling default
for a in ompi rdb; do sim $a mpi smpi:$a; done
