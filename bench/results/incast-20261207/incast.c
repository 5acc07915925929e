/* k senders (ranks 1..k) each send m bytes to rank 0 at once (rank 0 posts
 * all receives first); each sender times its MPI_Send; rank 0 its Waitall.
 * Prints, per (k, m), the median over reps of the senders' mean send time
 * and of the root's time, in ms. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &p);
    long sizes[] = {262144, 524288, 1048576, 2097152};
    int reps = 7;
    char *buf = malloc(2097152L * p);
    memset(buf, 1, 2097152L * p);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * p);
    int ks[] = {1, 2, 4, 7, 12, 15};
    for (int ki = 0; ki < 6 && ks[ki] < p; ki++) {
        int k = ks[ki];
        for (int si = 0; si < 4; si++) {
            long m = sizes[si];
            double snd[32], root[32];
            for (int r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime(), mine = 0;
                if (rank == 0) {
                    for (int s = 1; s <= k; s++) MPI_Irecv(buf + (s - 1) * m, (int)m, MPI_BYTE, s, 7, MPI_COMM_WORLD, &rq[s - 1]);
                    MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
                } else if (rank <= k) {
                    MPI_Send(buf, (int)m, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
                    mine = MPI_Wtime() - t0;
                }
                double tr = MPI_Wtime() - t0, sum = 0;
                MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
                snd[r] = sum / k; root[r] = tr;
                MPI_Barrier(MPI_COMM_WORLD);
            }
            if (rank == 0) {
                qsort(snd, reps, sizeof(double), cmp); qsort(root, reps, sizeof(double), cmp);
                printf("k=%2d m=%8ld sender_ms=%8.1f root_ms=%8.1f wire_ms(k*m/B at 11.52MB/s)=%8.1f min_sender=%8.1f max_sender=%8.1f\n",
                       k, m, 1e3 * snd[reps / 2], 1e3 * root[reps / 2], 1e3 * k * m / 11.52e6, 1e3 * snd[0], 1e3 * snd[reps - 1]);
                fflush(stdout);
            }
        }
    }
    MPI_Finalize();
    return 0;
}
