/* Writing memory the peer has just read (rank 0 sends `buf`, above the
 * eager limit, so vader's single copy has rank 1 read it) against writing
 * memory only rank 0 touched, three ways: an MPI receive (single copy),
 * MPI_Reduce_local (the calibration's measure: reads each line first) and
 * memcpy.  Rank 0's time of the write alone; median [min-max] of 15
 * samples of 20 writes.
 *   mpicc -O2 probe.c -o probe
 *   mpirun -np 2 --bind-to core --mca coll basic,libnbc,self ./probe */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me; MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int sizes[] = {65536, 131072, 262144};
    for (int si = 0; si < 3; si++) {
        int bytes = sizes[si], n = bytes / 8;
        char *buf = malloc(bytes), *own = malloc(bytes), *src = malloc(bytes), *peer = malloc(bytes);
        memset(buf, 1, bytes); memset(own, 1, bytes); memset(src, 1, bytes); memset(peer, 1, bytes);
        enum { S = 15, IT = 20 };
        double t[6][S];
        for (int s = 0; s < S; s++) {
            for (int kind = 0; kind < 6; kind++) {
                double sum = 0;
                for (int i = 0; i < IT; i++) {
                    /* kind 0: recv into buf the peer just read; 1: recv into own;
                       2, 4: reduce into buf the peer read, into own;
                       3, 5: memcpy into buf the peer read, into own */
                    if (0 == me) {
                        MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                        MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        double t0 = MPI_Wtime();
                        if (kind < 2) MPI_Recv(kind == 0 ? buf : own, bytes, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        else if (kind == 2) MPI_Reduce_local(src, buf, n, MPI_DOUBLE, MPI_SUM);
                        else if (kind == 4) MPI_Reduce_local(src, own, n, MPI_DOUBLE, MPI_SUM);
                        else if (kind == 3) memcpy(buf, src, bytes);
                        else memcpy(own, src, bytes);
                        sum += MPI_Wtime() - t0;
                        if (kind < 2) memset(own, 1, 64); /* keep own ours */
                    } else {
                        MPI_Recv(peer, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
                        if (kind < 2) MPI_Send(peer, bytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
                    }
                }
                t[kind][s] = sum / IT * 1e6;
            }
        }
        if (0 == me) {
            printf("%7d B:", bytes);
            const char *nm[] = {"recv into peer-read", "recv into own", "reduce into peer-read", "memcpy into peer-read", "reduce into own", "memcpy into own"};
            for (int k = 0; k < 6; k++) { qsort(t[k], S, sizeof(double), cmp); printf("  %s %.2f [%.2f-%.2f]", nm[k], t[k][S/2], t[k][0], t[k][S-1]); }
            printf("\n");
        }
        free(buf); free(own); free(src); free(peer);
    }
    MPI_Finalize();
    return 0;
}
