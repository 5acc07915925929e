#!/bin/bash
# rabred's lg p candidates and auto, p = 1024, 8 B-4 KiB, the prices by count (scale-count-20261128)
# with the latency and shift lists measured (--link measure)
cd "$(dirname "$0")"/../../../scale/build
out=${OUT:-/tmp/scale-p1024-latency}; : > $out/raw.txt; : > $out/progress
p=1024
sim() { # platform variants group ppn
  local f=hosts-$1-$p; if [ "$4" -gt 1 ]; then for ((i=0;i<p/$4;i++)); do echo node-$i:$4; done > $f; else for ((i=0;i<p;i++)); do echo node-$i; done > $f; fi
  echo "start $1 $(date +%T)" >> $out/progress
  timeout 2400 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/$1.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:default --log=root.thres:critical ./rabred_scale --variants $2 --sizes 8,512,4K --label default --group $3 --link measure 2>>$out/smpi.log | sed "s/^/platform=$1 /" >> $out/raw.txt
  echo "end $1 $(date +%T) rc=${PIPESTATUS[0]}" >> $out/progress
}
sim crossbar auto,recursive_doubling,rabenseifner,binary_blocks 1 1
sim torus auto,recursive_doubling,rabenseifner,binary_blocks,bruck 1 1
for entry in fattree:16:1 fattree-4to1:16:1 nodes16:16:16; do
  IFS=: read -r plat group ppn <<<"$entry"
  sim $plat auto,recursive_doubling,rabenseifner,binary_blocks,bruck $group $ppn
done
