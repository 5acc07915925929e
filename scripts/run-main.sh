#!/bin/bash
# The main job: build rabred and compare its MPI_Allreduce/MPI_Reduce with
# Open MPI's coll/tuned.
#
# Where it can (root, network namespaces, tc, and the emulated cluster not
# in use by someone else), it runs the quick cluster comparison,
# bench/compare/compare.sh --quick: p = 2, 5, 8 hosts joined by 100 Mbit/s
# links, one rank per host, tuned:default, rabred:auto and every rabred and
# coll/tuned algorithm, and prints the ratio tables (results in
# bench/results/quick-DATE/).  Otherwise it says why and falls back to the
# one-machine comparison over shared memory (bench/rabred_bench, p = 2).
#
# Environment:
#   RABRED_BENCH_CLUSTER  0: skip the cluster, always use shared memory
#   RABRED_COMPARE_ARGS   extra compare.sh arguments, e.g. "--repeats 5"
#   RABRED_BENCH_NP       shared memory: number of processes (default 2)
#   RABRED_BENCH_ARGS     shared memory: rabred_bench arguments, e.g. "-r 9 -m 1M"
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh

why=''
if [ "${RABRED_BENCH_CLUSTER:-1}" = 0 ]; then
    why="RABRED_BENCH_CLUSTER=0"
elif ! why=$(bash bench/compare/compare.sh --can-run 2>&1); then
    why=${why#compare.sh: cannot use the emulated cluster: }
else
    why=''
    cat <<TXT

rabred benchmark on the emulated cluster (bench/cluster/): quick mode,
p = 2, 5, 8 hosts, one rank each, 100 Mbit/s links, Open MPI's TCP BTL.
All hosts share this machine's $(nproc) cores: small messages measure the
CPU scheduler as much as the network (bench/compare/README.md).
TXT
    rc=0
    # shellcheck disable=SC2086  # RABRED_COMPARE_ARGS is meant to split
    bash bench/compare/compare.sh --quick --no-build ${RABRED_COMPARE_ARGS:-} || rc=$?
    if [ $rc -ne 3 ]; then
        exit $rc
    fi
    why="the cluster became unavailable (see above)"
fi

np=${RABRED_BENCH_NP:-2}
cores=$(nproc 2>/dev/null || echo "?")
cat <<TXT

No cluster comparison: $why.
Falling back to one machine: p = $np on $(hostname), $cores cores, shared
memory (btl vader).  This is a smoke comparison: it shows that every variant
runs and gives correct results and roughly how they compare over shared
memory.  "tuned:default" = Open MPI's stock coll/tuned decision (the
component below rabred); "rabred:auto" = rabred's own choice; then each
rabred and each coll/tuned algorithm forced.
TXT

# tuned below rabred, so rabred's "previous" is Open MPI's default choice;
# dynamic rules on, so the bench can force each tuned algorithm.
# shellcheck disable=SC2086  # RABRED_BENCH_ARGS is meant to split
RABRED_COLL=rabred,tuned,basic,libnbc \
    bash scripts/mpirun-rabred.sh -np "$np" --mca coll_tuned_use_dynamic_rules 1 \
    bench/rabred_bench ${RABRED_BENCH_ARGS:-}
