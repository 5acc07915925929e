/*
 * rabred compatibility header: ompi/mpi/fortran/base/fint_2_int.h
 *
 * Why this file exists: Open MPI's installed developer headers (for example
 * Debian's libopenmpi-dev for 4.1.x) ship ompi/op/op.h, which the
 * component needs for ompi_op_reduce(), but not the Fortran-binding header
 * that op.h includes.  This directory is placed on the include path only
 * when building mca_coll_rabred, so the #include in op.h resolves here.
 * Inside an Open MPI source tree the real header is used instead (this
 * directory is not on that build's include path); the #ifndef below only
 * guards against a definition that arrived by some other route.
 *
 * What op.h needs from it: only OMPI_INT_2_FINT, used in the inline
 * ompi_op_reduce() to hand a C int (count, datatype index) to a user
 * reduction written in Fortran, whose arguments are MPI_Fint.  MPI_Fint
 * comes from ompi_config.h/mpi.h, so a plain conversion is enough for any
 * Fortran INTEGER size Open MPI was configured with.  rabred never calls
 * Fortran callbacks itself; Open MPI's own op code does.
 */
#ifndef RABRED_COMPAT_FINT_2_INT_H
#define RABRED_COMPAT_FINT_2_INT_H

#ifndef OMPI_INT_2_FINT
#define OMPI_INT_2_FINT(a) ((MPI_Fint) (a))
#endif

#endif /* RABRED_COMPAT_FINT_2_INT_H */
