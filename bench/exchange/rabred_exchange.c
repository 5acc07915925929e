/*
 * rabred_exchange: does the order in which an exchange is posted matter?
 * Every rank exchanges `bytes` with rank ^ distance (all pairs at once),
 * posting the receive first (what rabred's executor does), or the send
 * first (what libnbc does), or sends one way only (rank with the bit set
 * receives), for reference.  Each time is the slowest rank's mean over 5
 * exchanges after a barrier; rounds interleave the three modes.
 *
 *   rabred_exchange [distance [largest]]   one line per (round, size, mode);
 *   sizes 64 KiB, 256 KiB, 1 MiB (default) or 4^k times 64 KiB up to largest
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ITERS = 5, ROUNDS = 3, MAX_SIZES = 8 };

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
    int sizes[MAX_SIZES], nsizes = 0, me, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int distance = argc > 1 ? atoi(argv[1]) : 1, peer = me ^ distance;
    long largest = argc > 2 ? atol(argv[2]) : 1 << 20;
    for (long b = 65536; b <= largest && b <= (1L << 30) && nsizes < MAX_SIZES; b *= 4) {
        sizes[nsizes++] = (int)b;
    }
    if (distance < 1 || p % (2 * distance) != 0 || 0 == nsizes) {
        if (0 == me) {
            fprintf(stderr, "rabred_exchange: p must be a multiple of 2 * distance, largest "
                            ">= 65536\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t most = (size_t)sizes[nsizes - 1];
    char *s = malloc(most), *r = malloc(most);
    memset(s, 1, most);
    for (int round = 0; round < ROUNDS; round++) {
        for (int si = 0; si < nsizes; si++) {
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
