#!/bin/bash
# rabred rows only (all,auto) at p = 256 on the five platforms, run-scale.sh's flags
cd /work/main/bench/scale/build
out=/tmp/s256
: > $out/raw.txt
for entry in crossbar:1:1 fattree:1:16 fattree-4to1:1:16 torus:1:1 nodes16:16:16; do
  IFS=: read -r platform ppn group <<<"$entry"
  p=256; f=hosts-$platform-$p
  if [ $ppn -gt 1 ]; then for ((i=0;i<(p+ppn-1)/ppn;i++)); do echo "node-$i:$ppn"; done > $f; else for ((i=0;i<p;i++)); do echo node-$i; done > $f; fi
  echo "start $platform $(date +%T)" >> $out/progress
  timeout 3600 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/$platform.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:default --log=root.thres:critical ./rabred_scale --variants all,auto --sizes 8,64K,2M --label default --group $group --link measure 2>>$out/smpi.log | sed "s/^/platform=$platform /" >> $out/raw.txt
  echo "end $platform $(date +%T) rc=$?" >> $out/progress
done
