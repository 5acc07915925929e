/*
 * rabred_exchange: does the order in which an exchange is posted matter?
 * Every rank exchanges `bytes` with rank ^ distance (all pairs at once),
 * posting the receive first (what rabred's executor does), or the send
 * first (what libnbc does), or sends one way only (rank with the bit set
 * receives), for reference.  Each time is the slowest rank's mean over 5
 * exchanges after a barrier; rounds interleave the three modes.
 *
 *   rabred_exchange [distance]      one line per (round, size, mode)
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ITERS = 5, ROUNDS = 3, MAX_BYTES = 1 << 20 };

static void exchange(int mode, char *s, char *r, int n, int me, int peer)
{
    MPI_Request q[2];
    if (0 == mode) {
        MPI_Irecv(r, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(s, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    } else if (1 == mode) {
        MPI_Isend(s, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q[1]);
        MPI_Irecv(r, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q[0]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    } else if (me > peer) {
        MPI_Recv(r, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(s, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    static const char *const modes[3] = {"recv-first", "send-first", "one-way"};
    const int sizes[3] = {65536, 262144, MAX_BYTES};
    int me, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int distance = argc > 1 ? atoi(argv[1]) : 1, peer = me ^ distance;
    if (distance < 1 || p % (2 * distance) != 0) {
        if (0 == me) {
            fprintf(stderr, "rabred_exchange: p must be a multiple of 2 * distance\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *s = malloc(MAX_BYTES), *r = malloc(MAX_BYTES);
    memset(s, 1, MAX_BYTES);
    for (int round = 0; round < ROUNDS; round++) {
        for (int si = 0; si < 3; si++) {
            for (int mode = 0; mode < 3; mode++) {
                double t = 0, worst;
                for (int it = 0; it < ITERS; it++) {
                    MPI_Barrier(MPI_COMM_WORLD);
                    double t0 = MPI_Wtime();
                    exchange(mode, s, r, sizes[si], me, peer);
                    t += MPI_Wtime() - t0;
                }
                MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                if (0 == me) {
                    printf("round=%d p=%d distance=%d bytes=%d mode=%s ms=%.2f\n", round, p,
                           distance, sizes[si], modes[mode], worst / ITERS * 1e3);
                }
            }
        }
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
