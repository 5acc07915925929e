#!/bin/bash
# auto alone at p = 64 and 256 on every platform, 8 B-32 KiB (its forced algorithms and SMPI's rows do not change)
cd "$(dirname "$0")"/../../../scale/build
out=${OUT:-/tmp/scale-auto}; : > $out/raw.txt; : > $out/progress
sim() { # platform variants group ppn p
  local p=$5 f=hosts-$1-$5; if [ "$4" -gt 1 ]; then for ((i=0;i<p/$4;i++)); do echo node-$i:$4; done > $f; else for ((i=0;i<p;i++)); do echo node-$i; done > $f; fi
  echo "start $1 $p $(date +%T)" >> $out/progress
  timeout 2400 smpirun -np $p -hostfile $PWD/$f -platform ../platforms/$1.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:default --log=root.thres:critical ./rabred_scale --variants $2 --sizes ${SIZES:-8,64,512,4K,32K} --label default --group $3 --link measure 2>>$out/smpi.log | sed "s/^/platform=$1 /" >> $out/raw.txt
  echo "end $1 $p $(date +%T) rc=${PIPESTATUS[0]}" >> $out/progress
}
for p in ${PS:-64 256}; do
  for entry in ${PLATS:-crossbar:1:1 torus:1:1 fattree:16:1 fattree-4to1:16:1 nodes16:16:16}; do
    IFS=: read -r plat group ppn <<<"$entry"
    sim $plat ${VARIANTS:-auto} $group $ppn $p
  done
done
