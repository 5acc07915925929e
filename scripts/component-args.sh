# Sourced by scripts/mpirun-rabred.sh and bench/cluster/cluster.sh after the
# build tree's rabred-env.sh: sets the array rabred_component_args, the
# mpirun arguments that load rabred from the build tree (no install needed).
#
# - The component path names build/components, a directory holding only
#   mca_coll_rabred.so (a link into .libs): on Open MPI 5.0, PMIx scans the
#   same path for its own components and prints "bad prefix" for every
#   other file it finds there.
# - Open MPI's own component directory follows when it holds components
#   (4.1 builds them as separate files; Debian's 5.0 builds them into
#   libmpi, and its directory holds only a debugger library).
# - On 5.0, PMIx is given back its own component directory
#   (--pmixmca mca_base_component_path): mpirun hands Open MPI's path to
#   PMIx as well, and Debian's 5.0.7 mpirun would otherwise replace an
#   unset path with PMIx's (README, "Open MPI 5.0: the component path").
rabred_component_path="$RABRED_BUILDDIR/components"
if compgen -G "$OMPI_PKGLIBDIR/mca_*.so" >/dev/null; then
    rabred_component_path="$rabred_component_path:$OMPI_PKGLIBDIR"
fi
rabred_component_args=(--mca mca_base_component_path "$rabred_component_path")
if [ "${OMPI_SERIES:-}" = 5.0 ] && [ -n "${PMIX_COMPONENTDIR:-}" ]; then
    rabred_component_args+=(--pmixmca mca_base_component_path "$PMIX_COMPONENTDIR")
fi
