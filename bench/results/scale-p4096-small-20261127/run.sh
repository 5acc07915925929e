#!/bin/bash
# p = 4096 on the torus (all of it), 8 B to 4 KiB, the runner's start fixed (f2413e7): rabred's auto
# and lg p algorithms with the link measured, then SMPI's selector, rdb and rab_rdb without it
cd /work/main/bench/scale/build
out=${OUT:-/tmp/s4096fix}; : > $out/raw.txt; : > $out/progress
p=4096; f=hosts-torus-$p; for ((i=0;i<p;i++)); do echo node-$i; done > $f
sim() {
  echo "start $1 $(date +%T)" >> $out/progress
  timeout 4000 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/torus.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:$1 --log=root.thres:critical ./rabred_scale --variants $2 --sizes 8,512,4K --label $3 --group 1 --link measure 2>>$out/smpi.log | sed -u "s/^/platform=torus /" >> $out/raw.txt
  rc=${PIPESTATUS[0]}
  [ $rc = 124 ] && echo "scale: $3 did not finish in 4000 s on torus p=$p" >> $out/raw.txt
  echo "end $1 $(date +%T) rc=$rc" >> $out/progress
}
sim default auto,rabenseifner,recursive_doubling,binary_blocks,bruck default
sim2() { # SMPI's algorithm, without the link measurement (its runs do not use rabred's model)
  echo "start $1 $(date +%T)" >> $out/progress
  timeout 3000 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/torus.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:$1 --log=root.thres:critical ./rabred_scale --variants mpi --sizes 8,512,4K --label smpi:$1 --group 1 2>>$out/smpi.log | sed -u "s/^/platform=torus /" >> $out/raw.txt
  rc=${PIPESTATUS[0]}
  [ $rc = 124 ] && echo "scale: smpi:$1 did not finish in 3000 s on torus p=$p" >> $out/raw.txt
  echo "end $1 $(date +%T) rc=$rc" >> $out/progress
}
for a in ${ALGS:-ompi rdb rab_rdb}; do sim2 $a; done
