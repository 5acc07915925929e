#!/bin/bash
# p = 1024 on the torus: rabred's candidates and auto, then SMPI's best candidates and selector
cd /work/main/bench/scale/build
out=/tmp/s1024; : > $out/raw.txt; : > $out/progress
p=1024; f=hosts-torus-$p; for ((i=0;i<p;i++)); do echo node-$i; done > $f
sim() { # allreduce-algorithm variants
  echo "start $1 $2 $(date +%T)" >> $out/progress
  timeout 2400 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/torus.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:$1 --log=root.thres:critical ./rabred_scale --variants $2 --sizes 8,64K,2M --label $3 --group 1 --link measure 2>>$out/smpi.log | sed "s/^/platform=torus /" >> $out/raw.txt
  rc=${PIPESTATUS[0]}
  [ $rc = 124 ] && echo "scale: smpi:$1 did not finish in 2400 s on torus p=$p" >> $out/raw.txt
  echo "end $1 $(date +%T) rc=$rc" >> $out/progress
}
sim default auto,rabenseifner,binary_blocks,neighbor_ring,recursive_doubling default
for a in ompi lr rdb smp_rsag_lr rab_rdb ompi_ring_segmented; do sim $a mpi smpi:$a; done
