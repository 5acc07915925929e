/*
 * MPI_T helpers shared by the MPI tests that read rabred's counters.
 */
#ifndef RABRED_TEST_PVAR_H
#define RABRED_TEST_PVAR_H

#include <mpi.h>

/* The name of performance variable `index` (len bytes at most, with its
 * NUL); the tests find rabred's counters by name. */
static void pvar_name(int index, char *name, int len)
{
    char desc[8];
    int name_len = len, desc_len = sizeof(desc), verbosity, var_class, bind;
    int readonly, continuous, atomic;
    MPI_Datatype dt;
    MPI_T_enum et;
    name[0] = '\0';
    MPI_T_pvar_get_info(index, name, &name_len, &verbosity, &var_class, &dt, &et, desc,
                        &desc_len, &bind, &readonly, &continuous, &atomic);
}

/* MPI_Init and MPI_T_init_thread, then this rank and the size of
 * MPI_COMM_WORLD. */
static void init_mpi_and_mpi_t(int *argc, char ***argv, int *rank, int *size)
{
    int provided;
    MPI_Init(argc, argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}

#endif /* RABRED_TEST_PVAR_H */
