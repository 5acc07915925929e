#!/bin/bash
# The main job: build rabred and compare its MPI_Allreduce/MPI_Reduce with
# Open MPI's stock coll/tuned, side by side in one run (bench/rabred_bench).
#
# Environment:
#   RABRED_BENCH_NP    number of processes (default 2)
#   RABRED_BENCH_ARGS  extra rabred_bench arguments, e.g. "-r 9 -t 50"
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh

np=${RABRED_BENCH_NP:-2}
cores=$(nproc 2>/dev/null || echo "?")
cat <<TXT

rabred benchmark: p = $np on $(hostname), $cores cores, shared memory (btl vader).
On one small machine this is a smoke comparison: it shows that every variant
runs and gives correct results and roughly how they compare over shared
memory.  The cluster benchmark (many nodes, real network) is separate.
"tuned default" = Open MPI's stock coll/tuned decision (the component below
rabred); "rabred auto" = rabred's own choice; then each algorithm forced.
TXT

# tuned below rabred, so rabred's "previous" is Open MPI's default choice.
# shellcheck disable=SC2086  # RABRED_BENCH_ARGS is meant to split
RABRED_COLL=rabred,tuned,basic,libnbc \
    bash scripts/mpirun-rabred.sh -np "$np" bench/rabred_bench \
    ${RABRED_BENCH_ARGS:-}
