/*
 * The MPI-level runner of rabred's plans (DESIGN.md, "Plan, then run",
 * the fourth runner): the same prepared schedule the executor walks
 * (plan/rabred_schedule.h), run with MPI_Irecv / MPI_Isend / MPI_Waitall
 * and MPI_Reduce_local instead of Open MPI's PML.  It needs nothing but
 * the MPI standard, so the plans run unchanged under SimGrid's SMPI on
 * simulated clusters of thousands of ranks, beside the peers' algorithms
 * (bench/scale/).
 *
 * Limits: contiguous datatypes (extent == size: addresses are
 * base + off * extent and copies are memcpy); the buffers are given
 * whole (no MPI_IN_PLACE aliasing beyond INPUT == ACC, which the plan
 * handles).  SMPI charges no simulated time for MPI_Reduce_local, so the
 * caller may charge the reduction's time itself (charge_reduce).
 */
#ifndef RABRED_MPI_RUNNER_H
#define RABRED_MPI_RUNNER_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "select/rabred_prepared.h"

typedef struct {
    char *base[RABRED_NBUFS]; /* element 0 of INPUT, ACC, TMP, TMP2 (NULL: unused) */
    size_t extent;            /* bytes per element */
    MPI_Datatype dtype;
    MPI_Op op;
    int commutative;
    MPI_Comm comm;
    int tag;
    /* called after each local reduction of `elements` elements (NULL: none) */
    void (*charge_reduce)(void *ctx, int64_t elements);
    void *ctx;
} rabred_mpi_call_t;

/* Runs `ready` (built for this rank) on `call`.  MPI_SUCCESS or the first
 * MPI error; on error the requests still posted are cancelled and freed. */
int rabred_mpi_run(const rabred_ready_plan_t *ready, const rabred_mpi_call_t *call);

#endif /* RABRED_MPI_RUNNER_H */
