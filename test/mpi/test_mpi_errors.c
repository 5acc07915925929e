/*
 * rabred must return a real error, not crash, hang or hide it.
 *
 * Default mode: when it cannot get the temporary memory a call needs.  A
 * datatype whose extent is 2^40 bytes makes count = 2^20 elements span
 * 2^60 bytes: the temporary buffer cannot be allocated, so MPI_Allreduce
 * must return MPI_ERR_NO_MEM (the buffers are never touched: rabred allocates
 * before it copies or sends).  Every rank fails the same way, so nobody
 * waits for a peer.  Run with an algorithm and p for which every rank
 * needs a temporary (rabenseifner at p = 4, the ring at p = 4): with
 * others some ranks need none and would, as MPI allows, read the (here
 * fake) buffers.
 *
 * --truncate: an error inside a round.  Ranks 0 and 1 call MPI_Allreduce
 * with counts 15 and 16 (an erroneous program), so rank 0's receive is
 * truncated.  Run with coll_rabred_allreduce_algorithm recursive_doubling:
 * at p = 2 it is a single exchange, so both ranks finish.  Rank 0 must get
 * the request's own error class, MPI_ERR_TRUNCATE (Open MPI's wait_all
 * reports MPI_ERR_IN_STATUS and leaves the failed request to the caller).
 *
 * --truncate --reduce: the same with MPI_Reduce to rank 0.  Run with
 * coll_rabred_reduce_algorithm binomial: at p = 2 each rank's call is one
 * transfer, which the blocking walk runs with the PML's blocking send and
 * receive; the root's truncated receive must give the same error class.
 *
 * --count: a negative count (INT_MIN, -1) with Open MPI's argument checks
 * off (run with --mca mpi_param_check 0): rabred must answer MPI_ERR_COUNT
 * itself, for MPI_Allreduce and MPI_Reduce, before choosing an algorithm;
 * handed to the component below, such a call hangs the next one.
 *
 * --nonblocking (after the mode, or alone for the default mode): the
 * failing call is MPI_Iallreduce, whose request must complete with the
 * same error, returned by MPI_Wait.
 *
 * Exits 0 when every rank got the error it should and the communicator
 * still works afterwards.
 */
#include <mpi.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static int nonblocking; /* --nonblocking: the failing calls are MPI_Iallreduce */
static int use_reduce;  /* --reduce: the truncated call is MPI_Reduce to rank 0 */

/* MPI_Allreduce, or MPI_Iallreduce and MPI_Wait; the error either gives. */
static int allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm)
{
    if (!nonblocking) {
        return MPI_Allreduce(in, out, count, type, op, comm);
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_Iallreduce(in, out, count, type, op, comm, &req);
    return MPI_SUCCESS != rc ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* The truncated call: allreduce(), or MPI_Reduce (MPI_Ireduce and
 * MPI_Wait) to rank 0 with --reduce. */
static int truncating_call(const void *in, void *out, int count, MPI_Comm comm)
{
    if (!use_reduce) {
        return allreduce(in, out, count, MPI_INT, MPI_SUM, comm);
    }
    if (!nonblocking) {
        return MPI_Reduce(in, out, count, MPI_INT, MPI_SUM, 0, comm);
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_Ireduce(in, out, count, MPI_INT, MPI_SUM, 0, comm, &req);
    return MPI_SUCCESS != rc ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* never called: the call fails before any reduction */
static void sum_ints(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

/* Ranks 0 and 1 only (the others sit out on their own communicator). */
static int truncated_round(int rank)
{
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : 1, rank, &pair);
    MPI_Comm_set_errhandler(pair, MPI_ERRORS_RETURN);
    int failures = 0;
    if (rank < 2) {
        int in[16], out[16];
        for (int i = 0; i < 16; i++) {
            in[i] = i;
            out[i] = -1;
        }
        int rc = truncating_call(in, out, 0 == rank ? 15 : 16, pair);
        int eclass = MPI_SUCCESS;
        MPI_Error_class(rc, &eclass);
        if (0 == rank && MPI_ERR_TRUNCATE != eclass) {
            fprintf(stderr, "rank 0: want error class MPI_ERR_TRUNCATE (%d), got %d (rc %d)\n",
                    MPI_ERR_TRUNCATE, eclass, rc);
            failures++;
        }
        int one = 1, two = 0;
        rc = MPI_Allreduce(&one, &two, 1, MPI_INT, MPI_SUM, pair);
        if (MPI_SUCCESS != rc || 2 != two) {
            fprintf(stderr, "rank %d: allreduce after the error: rc=%d sum=%d\n", rank, rc, two);
            failures++;
        }
        if (0 == rank) {
            printf("test_mpi_errors --truncate%s: error class %d (MPI_ERR_TRUNCATE is %d), %s\n",
                   use_reduce ? " --reduce" : "", eclass, MPI_ERR_TRUNCATE,
                   failures ? "FAILED" : "ok");
        }
    }
    MPI_Comm_free(&pair);
    return failures;
}

/* One negative-count call: MPI_ERR_COUNT, and the buffers untouched. */
static int negative_count(int rank, int reduce, int count)
{
    int in = rank, out = -1;
    int rc = reduce ? MPI_Reduce(&in, &out, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD)
                    : MPI_Allreduce(&in, &out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int eclass = MPI_SUCCESS;
    MPI_Error_class(rc, &eclass);
    if (MPI_ERR_COUNT != eclass || -1 != out) {
        fprintf(stderr, "rank %d: %s count %d: want MPI_ERR_COUNT (%d), got class %d, out=%d\n",
                rank, reduce ? "MPI_Reduce" : "MPI_Allreduce", count, MPI_ERR_COUNT, eclass,
                out);
        return 1;
    }
    return 0;
}

static int negative_counts(int rank, int size)
{
    int failures = 0, counts[] = {INT_MIN, -1};
    for (int k = 0; k < 2; k++) {
        for (int reduce = 0; reduce < 2; reduce++) {
            failures += negative_count(rank, reduce, counts[k]);
        }
    }
    int in = rank, out = -1; /* the communicator still works, nothing hangs */
    int rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (MPI_SUCCESS != rc || out != size * (size - 1) / 2) {
        fprintf(stderr, "rank %d: allreduce after the errors: rc=%d out=%d\n", rank, rc, out);
        failures++;
    }
    if (0 == rank) {
        printf("test_mpi_errors --count p=%d: MPI_ERR_COUNT for counts INT_MIN and -1, %s\n",
               size, failures ? "FAILED" : "ok");
    }
    return failures;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, failures = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 1; i < argc; i++) {
        nonblocking |= 0 == strcmp(argv[i], "--nonblocking");
        use_reduce |= 0 == strcmp(argv[i], "--reduce");
    }
    if (argc > 1 && 0 == strcmp(argv[1], "--truncate")) {
        failures = size >= 2 ? truncated_round(rank) : 1;
        MPI_Finalize();
        return failures ? 1 : 0;
    }
    if (argc > 1 && 0 == strcmp(argv[1], "--count")) {
        failures = negative_counts(rank, size);
        MPI_Finalize();
        return failures ? 1 : 0;
    }

    MPI_Datatype huge;
    MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)1 << 40, &huge);
    MPI_Type_commit(&huge);
    MPI_Op user_sum; /* Open MPI refuses predefined ops on derived types */
    MPI_Op_create(sum_ints, 1, &user_sum);
    int in = rank, out = -1;
    int rc = allreduce(&in, &out, 1 << 20, huge, user_sum, MPI_COMM_WORLD);
    int eclass = MPI_SUCCESS;
    MPI_Error_class(rc, &eclass);
    if (MPI_ERR_NO_MEM != eclass || -1 != out) {
        fprintf(stderr, "rank %d: expected MPI_ERR_NO_MEM (%d), got class %d (rc=%d), out=%d\n",
                rank, MPI_ERR_NO_MEM, eclass, rc, out);
        failures++;
    }
    /* the communicator must still work after the failed call */
    rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (MPI_SUCCESS != rc || out != size * (size - 1) / 2) {
        fprintf(stderr, "rank %d: allreduce after the error: rc=%d out=%d\n", rank, rc, out);
        failures++;
    }
    if (0 == rank) {
        char name[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(eclass, name, &len);
        printf("test_mpi_errors p=%d%s: error class %d (%s), %s\n", size,
               nonblocking ? " (nonblocking)" : "", eclass, name, failures ? "FAILED" : "ok");
    }
    MPI_Op_free(&user_sum);
    MPI_Type_free(&huge);
    MPI_Finalize();
    return failures ? 1 : 0;
}
