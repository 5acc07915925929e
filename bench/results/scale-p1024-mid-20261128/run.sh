#!/bin/bash
# p = 1024 at 32 KiB and 256 KiB on every platform: rabred's lg p
# candidates and auto (its rings, two million messages a size, left out
# unless auto takes one), and SMPI's algorithms and selectors but its rings
# (lr, ompi_ring_segmented, smp_rsag*) and rab1/rab2 (they do not finish
# at p = 256), each smpirun limited to LIMIT seconds (SMPI's impi selector
# to IMPI_LIMIT: at p = 1024 it runs past 25 min a platform).
cd "$(dirname "$0")"/../../scale/build
out=${OUT:-/tmp/scale-p1024-mid}; mkdir -p $out; : > $out/raw.txt; : > $out/progress
p=1024; sizes=${SIZES:-32K,256K}; limit=${LIMIT:-1800}
smpi=(rdb rab_rdb redbcast smp_rdb smp_binomial mvapich2_two_level ompi mpich mvapich2 impi)
sim() { # platform group ppn label smpi-algorithm variants [limit]
  local limit=${7:-$limit}
  local f=hosts-$1-$p
  if [ "$3" -gt 1 ]; then for ((i=0;i<p/$3;i++)); do echo node-$i:$3; done > $f; else for ((i=0;i<p;i++)); do echo node-$i; done > $f; fi
  echo "start $1 $4 $(date +%T)" >> $out/progress
  timeout $limit smpirun -np $p -hostfile $PWD/$f -platform ../platforms/$1.xml -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:$5 --log=root.thres:critical ./rabred_scale --variants $6 --sizes $sizes --label $4 --group $2 --link measure 2>>$out/smpi.log | sed "s/^/platform=$1 /" >> $out/raw.txt
  local rc=${PIPESTATUS[0]}
  echo "end $1 $4 $(date +%T) rc=$rc" >> $out/progress
  [ $rc -eq 124 ] && echo "platform=$1 scale: $4 did not finish in $limit s on $1 p=$p" >> $out/raw.txt
}
for entry in ${PLATS:-crossbar:1:1 fattree:16:1 fattree-4to1:16:1 torus:1:1 nodes16:16:16}; do
  IFS=: read -r plat group ppn <<<"$entry"
  lanes=""; [ $ppn -gt 1 ] && lanes=",node_leaders,node_lanes"
  sim $plat $group $ppn default default auto,recursive_doubling,rabenseifner,binary_blocks$lanes
  for a in "${smpi[@]}"; do
    sim $plat $group $ppn smpi:$a $a mpi $([ $a = impi ] && echo ${IMPI_LIMIT:-$limit})
  done
done
