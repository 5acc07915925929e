#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
/*
 * two-way: does a host link shared by several ranks' flows deliver its
 * bandwidth?  2 hosts x K ranks in block order (ranks 0..K-1 on host A,
 * K..2K-1 on B).  For flows = 1..K, the first `flows` ranks of A send
 * BYTES to their partner on B at once (one-way), then exchange BYTES with
 * it (two-way: both directions at once); the slowest rank's time of each
 * of REPS repetitions, ms.
 *
 *   mpicc -O2 -o two-way two-way.c
 *   bench/cluster/cluster.sh up 2 --rate 100mbit --slots 4
 *   bench/cluster/cluster.sh run -np 8 --map-by slot ./two-way BYTES REPS
 */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int k = size / 2;
    int bytes = atoi(argv[1]), reps = atoi(argv[2]);
    char *a = calloc(bytes, 1), *b = calloc(bytes, 1);
    for (int ex = 0; ex < 2; ex++)
    for (int flows = 1; flows <= k; flows++) {
        double best[16];
        for (int r = 0; r < reps; r++) {
            int local = rank % k, onA = rank < k, partner = onA ? rank + k : rank - k;
            int active = local < flows;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (active) {
                MPI_Request q[2];
                int n = 0;
                if (ex || onA) MPI_Isend(a, bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &q[n++]);
                if (ex || !onA) MPI_Irecv(b, bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &q[n++]);
                MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
            }
            double t = MPI_Wtime() - t0, mx;
            MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            best[r] = mx;
        }
        if (0 == rank) {
            printf("%s bytes=%d flows=%d:", ex ? "exchange" : "oneway", bytes, flows);
            for (int r = 0; r < reps; r++) printf(" %.1f", best[r] * 1e3);
            printf(" ms\n");
        }
    }
    MPI_Finalize();
    return 0;
}
