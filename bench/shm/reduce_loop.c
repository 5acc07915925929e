/*
 * MPI_Reduce of one double to rank 0, CALLS times back to back: the loop
 * bench/shm/call-instructions.sh runs under callgrind to count what one
 * small call costs each rank in instructions (deterministic, unlike a
 * timing on a shared machine).  Prints the result so that a wrong one
 * shows.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, calls = argc > 1 ? atoi(argv[1]) : 20000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double in = rank + 1, out = 0;
    for (int i = 0; i < calls; i++) {
        MPI_Reduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    int ok = 0 != rank || out == size * (size + 1) / 2.0;
    if (0 == rank) {
        printf("reduce_loop: %d calls, result %g (%s)\n", calls, out, ok ? "right" : "WRONG");
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
