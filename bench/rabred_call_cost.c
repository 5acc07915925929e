/*
 * The cost of a call that moves next to nothing: MPI_Allreduce of one
 * double on MPI_COMM_SELF (separate buffers, so Open MPI's binding does
 * not return early), the best of 15 blocks of 200000 calls, printed in
 * nanoseconds.  bench/shm/call-cost.sh runs it with and without rabred, in
 * separate processes (a component is loaded or not for a whole run): the
 * difference is what rabred's look-up and executor cost a call beyond
 * Open MPI's shortest path (on MPI_COMM_SELF that is coll/basic's, a copy:
 * coll/tuned declines communicators of one rank).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    enum { BLOCKS = 15, CALLS = 200000 };
    double in = 1.0, out = 0.0, best = 1e9;
    MPI_Init(&argc, &argv);
    for (int b = 0; b < BLOCKS; b++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < CALLS; i++) {
            if (MPI_SUCCESS !=
                MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF)) {
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        double t = (MPI_Wtime() - t0) / CALLS;
        best = t < best ? t : best;
    }
    if (1.0 != out) {
        fprintf(stderr, "rabred_call_cost: wrong result %g\n", out);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("%.1f\n", 1e9 * best);
    MPI_Finalize();
    return 0;
}
