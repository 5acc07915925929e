#!/bin/bash
# Run an MPI program (or ompi_info) with the rabred component taken straight
# from the build tree, no install needed.
#
#   scripts/mpirun-rabred.sh -np N [more mpirun args] prog [args]
#   scripts/mpirun-rabred.sh --ompi-info [ompi_info args]
#
# Adds to mpirun:
#   --allow-run-as-root          only when running as root (CI containers)
#   --oversubscribe              tests use more ranks than cores
#   --mca mpi_yield_when_idle 1  oversubscribed ranks must not busy-poll
#   --mca btl self,vader         one node: shared memory only
#   --mca mca_base_component_path BUILD/components[:SYSTEM_COMPONENT_DIR]
#                                (and on 5.0 PMIx's own path; component-args.sh)
#   --mca coll $RABRED_COLL      default rabred,basic,libnbc
# (each --mca one skipped when the caller passes its own value)
# Environment:
#   RABRED_COLL  coll component list (e.g. rabred,tuned,basic,libnbc)
#   RABRED_ENV   path of the rabred-env.sh written by configure (default: the
#                one in the source tree, i.e. an in-tree build)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
env_file=${RABRED_ENV:-$here/../rabred-env.sh}
if [ ! -f "$env_file" ]; then
    echo "mpirun-rabred.sh: $env_file not found: run ./configure first" \
         "(or set RABRED_ENV to the build tree's rabred-env.sh)" >&2
    exit 2
fi
# shellcheck source=/dev/null
. "$env_file"

# shellcheck source=scripts/component-args.sh
. "$here/component-args.sh"
if [ ! -e "$RABRED_BUILDDIR/components/mca_coll_rabred.so" ]; then
    echo "mpirun-rabred.sh: warning: $RABRED_BUILDDIR/components/mca_coll_rabred.so" \
         "does not exist: run make first" >&2
fi

# ompi_info does not take --mca for the component path; only the environment
# variable reaches its component search.
if [ "${1:-}" = "--ompi-info" ]; then
    shift
    export OMPI_MCA_mca_base_component_path="$rabred_component_path"
    exec "$OMPI_INFO" "$@"
fi

# Which MCA parameters the caller sets: those are not added below.
caller_sets=" "
prev=
for a in "$@"; do
    if [ "$prev" = "--mca" ] || [ "$prev" = "-mca" ]; then
        caller_sets="$caller_sets$a "
    fi
    prev=$a
done
sets() { [[ $caller_sets == *" $1 "* ]]; }

args=()
if [ "$(id -u)" -eq 0 ]; then
    args+=(--allow-run-as-root)
fi
args+=(--oversubscribe "${rabred_component_args[@]}")
# a latency measurement passes mpi_yield_when_idle 0: two ranks on two
# cores must poll, not yield
sets mpi_yield_when_idle || args+=(--mca mpi_yield_when_idle 1)
# shellcheck disable=SC2054  # "self,vader" is one argument, not two
sets btl || args+=(--mca btl self,vader)
sets coll || args+=(--mca coll "${RABRED_COLL:-rabred,basic,libnbc}")

exec "$MPIRUN" "${args[@]}" "$@"
