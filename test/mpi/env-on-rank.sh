#!/bin/sh
# Run a program with extra environment variables on some ranks only:
#   env-on-rank.sh RANKS NAME=VALUE... -- PROGRAM [ARGS...]
# RANKS is a comma-separated list of MPI_COMM_WORLD ranks (Open MPI's
# launcher sets OMPI_COMM_WORLD_RANK before the program starts).  Tests use
# it to give an MCA parameter (OMPI_MCA_...) to some ranks and not the
# others, as a per-node configuration would.
set -eu
ranks=$1
shift
mine=no
case ",$ranks," in *",${OMPI_COMM_WORLD_RANK:?not started by Open MPI's mpirun},"*) mine=yes ;; esac
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    [ $mine = yes ] && export "$1"
    shift
done
[ $# -gt 1 ] || { echo "usage: env-on-rank.sh RANKS NAME=VALUE... -- PROGRAM [ARGS...]" >&2; exit 2; }
shift
exec "$@"
