#!/bin/bash
# SMPI's selector and rdb at p = 4096 on the torus, without the link measurement (they do not use rabred's model)
cd /work/main/bench/scale/build
out=/tmp/s4096; p=4096; f=hosts-torus-$p
for a in ${ALGS:-ompi rdb}; do
  echo "start $a $(date +%T)" >> $out/progress
  timeout 3000 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/torus.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:$a --log=root.thres:critical ./rabred_scale --variants mpi --sizes 8,64K --label smpi:$a --group 1 2>>$out/smpi.log | sed -u "s/^/platform=torus /" >> $out/raw.txt
  rc=${PIPESTATUS[0]}
  [ $rc = 124 ] && echo "scale: smpi:$a did not finish in 3000 s on torus p=$p" >> $out/raw.txt
  echo "end $a $(date +%T) rc=$rc" >> $out/progress
done
