/*
 * rabred_nb_latency: the cost of a small reduction, blocking against
 * nonblocking: 20000 back-to-back MPI_Allreduce of one double, then as
 * many MPI_Iallreduce + MPI_Wait, 5 interleaved rounds, rank 0's mean per
 * call.  bench/overlap/nb-latency.sh runs it under rabred and under the
 * stock components, to compare rabred's nonblocking path with libnbc's.
 */
#include <mpi.h>

#include <stdio.h>

enum { CALLS = 20000, ROUNDS = 5 };

int main(int argc, char **argv)
{
    int me;
    double a, b;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    a = me;
    for (int round = 0; round < ROUNDS; round++) {
        for (int nonblocking = 0; nonblocking < 2; nonblocking++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < CALLS; i++) {
                if (nonblocking) {
                    MPI_Request r;
                    MPI_Iallreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
                    MPI_Wait(&r, MPI_STATUS_IGNORE);
                } else {
                    MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                }
            }
            double us = (MPI_Wtime() - t0) / CALLS * 1e6;
            if (0 == me) {
                printf("round=%d call=%s us=%.3f\n", round,
                       nonblocking ? "iallreduce" : "allreduce", us);
            }
        }
    }
    MPI_Finalize();
    return 0;
}
