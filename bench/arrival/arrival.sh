#!/bin/bash
# Imbalanced arrival on the emulated cluster, in the shape of Proficz's (2018)
# Tables 3 and 4: for each arrival mode (one-late: rank 0 delayed by the max
# delay; rand-late: every rank by a uniform random delay up to it) and each
# max delay, bench/compare/compare.sh runs MPI_Allreduce with tuned's ring,
# rabred's balanced choice (auto with coll_rabred_arrival_aware 0), rabred's
# auto (arrival-aware), and the arrival-aware algorithms forced; then
# tables.py writes the average elapsed times and speedups.
#
#   bench/arrival/arrival.sh [--p-list "6 8"] [--sizes 1M,4M] [--delays "0 1 5 10 50 100"]
#                            [--modes "one-late rand-late"] [--repeats 5] [--name NAME]
#                            [--variants LIST] [--target-ms MS]
#
# --variants: compare.sh's list (tuned's and rabred's defaults always run);
# the default has every arrival-aware algorithm, forced.
# --target-ms: duration of one measurement (compare.sh's, default 30: from
# about 256 KiB one call per round; larger values average more calls).
#
# Output: bench/results/NAME/ (default arrival-DATE): one compare.sh run per
# mode and delay in MODE-DMS/, and tables.md / tables.csv over all of them.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
p_list="6 8" sizes=1M,4M delays="0 1 5 10 50 100" modes="one-late rand-late" repeats=5
name=arrival-$(date -u +%Y%m%d-%H%M)
variants=tuned:ring,rabred:balanced,rabred:prereduced_ring,rabred:prereduced_scatter,rabred:sorted_linear_tree
target_ms=30
while [ $# -gt 0 ]; do
    case $1 in
        --p-list) p_list=${2:?}; shift 2 ;;
        --sizes) sizes=${2:?}; shift 2 ;;
        --delays) delays=${2:?}; shift 2 ;;
        --modes) modes=${2:?}; shift 2 ;;
        --repeats) repeats=${2:?}; shift 2 ;;
        --name) name=${2:?}; shift 2 ;;
        --variants) variants=${2:?}; shift 2 ;;
        --target-ms) target_ms=${2:?}; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "arrival.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
failed=0
run() {   # run MODE DELAY_MS
    # skip-factor 0: every variant is timed, however slow (the tables
    # need every cell)
    "$top/bench/compare/compare.sh" --no-build --coll allreduce --p-list "$p_list" \
        --sizes "$sizes" --repeats "$repeats" --target-ms "$target_ms" \
        --mode "$1" ${2:+--max-delay "$2"} \
        --skip-factor 0 --variants "$variants" --name "$name/$1-${2:-0}ms" || failed=1
}
# A max delay of 0 is balanced arrival, the same for both modes: run once.
for d in $delays; do
    if [ "$d" = 0 ]; then run balanced; fi
done
for mode in $modes; do
    for d in $delays; do
        if [ "$d" != 0 ]; then run "$mode" "$d"; fi
    done
done
python3 "$here/tables.py" "$top/bench/results/$name"
exit $failed
