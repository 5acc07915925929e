#!/bin/bash
# rabred at scale on SimGrid's SMPI (bench/scale/README.md): rabred's
# algorithms and its decision (auto) beside SMPI's allreduce algorithms
# and selectors, on simulated platforms (bench/scale/platforms/), every
# result checked.
#
#   scripts/run-scale.sh --quick   a few minutes: p = 64 on three platforms,
#                                  three sizes (what CI runs)
#   scripts/run-scale.sh           the full grid: every platform, p = 64,
#                                  256, 1024, 8 B .. 64 MiB (hours)
#
# Installs libsimgrid-dev when smpicc is missing, builds bench/scale with
# smpicc, writes bench/results/scale-{quick,full}-DATE/ (raw.txt: every
# RESULT line with its platform; summary.md: the tables), and ends with
#   scale: auto within 1.05x of the best in N of M cells, worst R.RRx at CELL
# It fails (exit 1) when any result is wrong or a rabred run fails.
#
# Environment:
#   RABRED_SCALE_OUT        the results directory (default as above)
#   RABRED_SCALE_PLATFORMS  platforms as "name:ranks-per-node:group ..." (e.g.
#                           "crossbar:1:1 nodes16:16:16")
#   RABRED_SCALE_P          process counts ("256 1024")
#   RABRED_SCALE_SIZES      sizes in bytes per rank ("8,64K,2M")
#   RABRED_SCALE_SMPI       SMPI's algorithms to run (default: every one
#                           below); e.g. leave out rab1 and rab2, which do
#                           not finish at p = 256
#   RABRED_SCALE_LIMIT      seconds of wall time per smpirun (quick 300, full
#                           3600); an SMPI algorithm that takes longer is
#                           reported and left out (rab1 at p = 256 runs for
#                           more than 10 minutes here)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
top=$(pwd)
say() { echo "scale: $*"; }

mode=full
case "${1:-}" in
    --quick) mode=quick ;;
    "") ;;
    *) echo "usage: scripts/run-scale.sh [--quick]" >&2; exit 2 ;;
esac

ensure_simgrid() {
    command -v smpicc >/dev/null 2>&1 && return
    say "installing libsimgrid-dev (SimGrid's SMPI: smpicc, smpirun)"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq libsimgrid-dev >/dev/null
}

build=bench/scale/build
build() {
    mkdir -p "$build"
    local core=(ompi/mca/coll/rabred/{plan,algorithms,sim,select}/*.c)
    smpicc -O2 -Wall -Wextra -Werror -I ompi/mca/coll/rabred -I bench/scale -I tools \
        bench/scale/rabred_scale.c bench/scale/rabred_mpi_runner.c tools/rabred_calibrate_fit.c \
        "${core[@]}" -lm \
        -o "$build/rabred_scale" 2>"$build/smpicc.log" || {
        cat "$build/smpicc.log" >&2; return 1; }
}

# SMPI's allreduce algorithms and selectors (smpirun --cfg=smpi/allreduce:X).
# Its `mpich` selector is not MPICH's decision: it sends commutative ops to
# mvapich2_two_level.
smpi_algorithms=(lr rab1 rab2 rab_rdb rdb redbcast ompi_ring_segmented smp_rsag smp_rsag_lr
                 smp_rsag_rab smp_rdb smp_binomial mvapich2_two_level ompi mpich mvapich2 impi)

# platform:ranks-per-node:group, the group being the ranks that share one
# link out (a node's 16 ranks; a leaf switch's 16 hosts), from the header
# of the platform file: the decision's model is told that much of the
# machine, and measures the rest (rabred_scale --link measure).
if [ $mode = quick ]; then
    platforms=(crossbar:1:1 fattree-4to1:1:16 nodes16:16:16)
    plist=(64)
    sizes=8,64K,2M
    limit=300
else
    platforms=(crossbar:1:1 fattree:1:16 fattree-4to1:1:16 torus:1:1 nodes16:16:16)
    plist=(64 256 1024)
    sizes=8,64,512,4K,32K,256K,2M,16M,64M
    limit=3600
fi

# Parts of the grid may be set from outside (a run at one p, say).
[ -n "${RABRED_SCALE_PLATFORMS:-}" ] && read -r -a platforms <<<"$RABRED_SCALE_PLATFORMS"
[ -n "${RABRED_SCALE_P:-}" ] && read -r -a plist <<<"$RABRED_SCALE_P"
sizes=${RABRED_SCALE_SIZES:-$sizes}
[ -n "${RABRED_SCALE_SMPI:-}" ] && read -r -a smpi_algorithms <<<"$RABRED_SCALE_SMPI"
limit=${RABRED_SCALE_LIMIT:-$limit} # seconds per smpirun

hostfile() { # platform ppn p
    local f=$build/hosts-$1-$3
    if [ "$2" -gt 1 ]; then
        for ((i = 0; i < ($3 + $2 - 1) / $2; i++)); do echo "node-$i:$2"; done >"$f"
    else
        for ((i = 0; i < $3; i++)); do echo "node-$i"; done >"$f"
    fi
    echo "$f"
}

# One smpirun: the network is the platform's links as written (SMPI's
# bandwidth and latency factors 1, no TCP acknowledgement traffic), no
# simulated computation (SMPI charges its own reductions nothing; rabred's
# runner charges none either, so the comparison is the network alone).
simulate() { # platform ppn group p label algorithm variants
    local hosts; hosts=$(hostfile "$1" "$2" "$4")
    # smpirun unrolls the hostfile into a temporary file in the current
    # directory: run it in the build directory
    (cd "$build" && timeout $limit smpirun -np "$4" -hostfile "$top/$hosts" \
        -platform "$top/bench/scale/platforms/$1.xml" -no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 \
        --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:"$6" \
        --log=root.thres:critical \
        ./rabred_scale --variants "$7" --sizes $sizes --label "$5" --group "$3" \
        --link measure) 2>>"$out/smpi.log" | sed "s/^/platform=$1 /"
}

# SMPI folds every rank's SMPI_SHARED_MALLOC buffer onto one file, one
# mapping per 1 MiB block (smpi/shared-malloc-blocksize): at p = 256 and
# 64 MiB that is some 65 000 mappings, Linux's default vm.max_map_count,
# and the run aborts ("Could not map folded virtual memory").  Raise the
# limit where we may, else say so.
ensure_map_count() {
    local want=1048576 have
    have=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo "$want")
    [ "$have" -ge "$want" ] && return
    if [ "$(id -u)" -eq 0 ] && sysctl -qw vm.max_map_count=$want 2>/dev/null; then
        say "raised vm.max_map_count from $have to $want (SMPI's shared buffers)"
    else
        say "vm.max_map_count is $have: runs with p x size above about 16 GiB may abort" \
            "(as root: sysctl -w vm.max_map_count=$want)"
    fi
}

ensure_simgrid
ensure_map_count
build
out=${RABRED_SCALE_OUT:-bench/results/scale-$mode-$(date +%Y%m%d)}
mkdir -p "$out"
: >"$out/raw.txt"
: >"$out/smpi.log"
{
    echo "machine: $(nproc) cores, $(uname -sr), $(smpirun -version 2>/dev/null | head -1)"
    echo "command: scripts/run-scale.sh ${1:-}"
    echo "grid: platforms ${platforms[*]}; p ${plist[*]}; sizes $sizes; $limit s per smpirun"
    echo "smpi: ${smpi_algorithms[*]}"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "date: $(date -u +%FT%TZ)"
} >"$out/meta.txt"
failed=0
start=$(date +%s)
for entry in "${platforms[@]}"; do
    IFS=: read -r platform ppn group <<<"$entry"
    for p in "${plist[@]}"; do
        say "$platform p=$p: rabred"
        simulate "$platform" "$ppn" "$group" "$p" rabred default all,auto \
            >>"$out/raw.txt" || { say "rabred run FAILED ($platform p=$p)"; failed=1; }
        for a in "${smpi_algorithms[@]}"; do
            # exits 1 on a wrong result (SMPI's smp_rsag* at count < p): summarize.py
            # reports those; anything else is in smpi.log
            rc=0
            simulate "$platform" "$ppn" "$group" "$p" "smpi:$a" "$a" mpi >>"$out/raw.txt" || rc=$?
            if [ $rc -eq 124 ]; then
                say "smpi:$a did not finish in $limit s on $platform p=$p" | tee -a "$out/raw.txt"
            fi
        done
    done
done
say "simulated in $(( $(date +%s) - start )) s; results in $out"
# Debian's python3 has matplotlib for the plot (a pyenv or venv python3
# earlier in PATH may not); summarize.py leaves the plot out without it.
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
$py bench/scale/summarize.py "$out/raw.txt" "$out/summary.md" || failed=1
exit $failed
