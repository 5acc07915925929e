#!/bin/bash
# auto alone over bench/scale's grid, one rabred_scale binary (built from
# a commit with smpicc, bench/scale/README.md), --link measure:
#   run.sh BINARY OUTDIR
# before: rabred 16712d4; after: the commit that records this run (the
# model's shared_ports and wire_us, which --link measure now reads).
bin=$1; out=$2; mkdir -p "$out"; : > "$out/raw.txt"
sysctl -qw vm.max_map_count=1048576 # SMPI's shared buffers at p = 256, 64 MiB
cd "$(dirname "$0")/../../scale/build" || exit 1
cp "$bin" ./rs_run
one() { # platform ranks-per-node group p sizes
  local f=hosts-$1-$4; if [ "$2" -gt 1 ]; then for ((i=0;i<$4/$2;i++)); do echo node-$i:$2; done > $f; else for ((i=0;i<$4;i++)); do echo node-$i; done > $f; fi
  smpirun -np $4 -hostfile $PWD/$f -platform ../platforms/$1.xml -no-privatize \
    --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 \
    --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:default --log=root.thres:critical \
    ./rs_run --variants auto --sizes $5 --label x --group $3 --link measure \
    2>>"$out/smpi.log" | sed "s/^/platform=$1 /" >> "$out/raw.txt"
}
grid=(crossbar:1:1 fattree:1:16 fattree-4to1:1:16 torus:1:1 nodes16:16:16)
for p in 64 256; do for e in "${grid[@]}"; do IFS=: read -r pl ppn g <<<"$e"
  one $pl $ppn $g $p 8,64,512,4K,32K,64K,256K,2M,16M,64M; done; done
for e in "${grid[@]}"; do IFS=: read -r pl ppn g <<<"$e"; one $pl $ppn $g 1024 8,64,512,4K,32K,64K,256K; done
