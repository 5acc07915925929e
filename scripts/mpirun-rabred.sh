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
#   --mca coll $RABRED_COLL      default rabred,basic,libnbc; skipped when the
#                                caller passes its own --mca coll
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

args=()
if [ "$(id -u)" -eq 0 ]; then
    args+=(--allow-run-as-root)
fi
# shellcheck disable=SC2054  # "self,vader" is one argument, not two
args+=(--oversubscribe
       --mca mpi_yield_when_idle 1
       --mca btl self,vader
       "${rabred_component_args[@]}")

# Respect a coll list given on the command line.
caller_sets_coll=no
prev=
for a in "$@"; do
    if [ "$prev" = "--mca" ] || [ "$prev" = "-mca" ]; then
        [ "$a" = "coll" ] && caller_sets_coll=yes
    fi
    prev=$a
done
if [ "$caller_sets_coll" = no ]; then
    args+=(--mca coll "${RABRED_COLL:-rabred,basic,libnbc}")
fi

exec "$MPIRUN" "${args[@]}" "$@"
