#!/bin/bash
# The cost of a small reduction over shared memory, blocking against
# nonblocking (bench/overlap/rabred_nb_latency.c), under each of several
# component sets, runs alternated: two ranks bound to cores, vader.
#
#   bench/overlap/nb-latency.sh [--runs N] [--baseline DIR] [--name NAME]
#
# Variants, one mpirun each, in turn, N times (default 3):
#   rabred    this build's rabred (MPI_Iallreduce: rabred; MPI_Allreduce: rabred)
#   baseline  the rabred of another build tree DIR (e.g. a git worktree of an
#             older commit, configured and built): what a change gained
#   stock     coll/tuned and libnbc, no rabred
# libnbc and rabred cannot both serve MPI_Iallreduce in one process, so the
# runs alternate instead of interleaving inside one.  Writes
# bench/results/NAME/{meta.txt,<variant>-<run>.txt,summary.md}.
# Needs a quiet machine: nothing else running.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
runs=3 baseline= name=nb-latency-$(date +%Y%m%d)
while [ $# -gt 0 ]; do
    case $1 in
        --runs) runs=$2; shift 2 ;;
        --baseline) baseline=$(cd "$2" && pwd); shift 2 ;;
        --name) name=$2; shift 2 ;;
        *) echo "usage: see the header of $0" >&2; exit 2 ;;
    esac
done
out=$top/bench/results/$name
mkdir -p "$out"
prog=$(mktemp -d)/rabred_nb_latency
mpicc -O2 -o "$prog" "$here/rabred_nb_latency.c"

common=(-np 2 --bind-to core --mca btl self,vader)
run_variant() { # variant run
    local v=$1 k=$2
    case $v in
        rabred) RABRED_COLL=rabred,tuned,basic,libnbc \
                    bash "$top/scripts/mpirun-rabred.sh" "${common[@]}" "$prog" ;;
        baseline) RABRED_COLL=rabred,tuned,basic,libnbc RABRED_ENV=$baseline/rabred-env.sh \
                    bash "$baseline/scripts/mpirun-rabred.sh" "${common[@]}" "$prog" ;;
        stock) RABRED_COLL=tuned,basic,libnbc \
                    bash "$top/scripts/mpirun-rabred.sh" "${common[@]}" "$prog" ;;
    esac >"$out/$v-$k.txt"
}

variants=(rabred stock)
[ -n "$baseline" ] && variants=(rabred baseline stock)
{
    echo "date: $(date -u +%FT%TZ)"
    echo "commit: $(git -C "$top" rev-parse --short HEAD)"
    [ -n "$baseline" ] && echo "baseline: $baseline ($(git -C "$baseline" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo "machine: $(nproc) cores, $(uname -r), $(ompi_info --version 2>/dev/null | head -1)"
    echo "load_before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "runs: $runs, variants: ${variants[*]}, alternated"
} >"$out/meta.txt"
for k in $(seq 1 "$runs"); do
    for v in "${variants[@]}"; do
        echo "nb-latency: run $k of $runs, $v" >&2
        run_variant "$v" "$k"
    done
done

# Per variant and call: every round's us per call, and the median.
/usr/bin/python3 - "$out" "${variants[@]}" >"$out/summary.md" <<'EOF'
import glob, re, statistics, sys
out, variants = sys.argv[1], sys.argv[2:]
print("| variant | call | median us | every round (us) |")
print("|---|---|---:|---|")
for v in variants:
    for call in ("allreduce", "iallreduce"):
        xs = []
        for f in sorted(glob.glob(f"{out}/{v}-*.txt")):
            xs += [float(m.group(1)) for m in
                   re.finditer(rf"call={call} us=([0-9.]+)", open(f).read())]
        if xs:
            print(f"| {v} | {call} | {statistics.median(xs):.3f} | "
                  + " ".join(f"{x:.3f}" for x in xs) + " |")
EOF
cat "$out/summary.md"
