/*
 * Ranks that do not agree on rabred's settings (coll_rabred_agree.c).
 *
 *   test_mpi_agree agree    every call is served by rabred (none handed
 *                           down), as with settings alike everywhere;
 *   test_mpi_agree differ   every call is handed to the component below
 *                           rabred, on every rank: run it with a rules file
 *                           or a coll_rabred_* value given to some ranks
 *                           only (test/mpi/env-on-rank.sh).
 *
 * The calls: MPI_Allreduce (also in place) and MPI_Reduce to a moving
 * root, sizes from 1 to 64 Ki + 3 doubles, on MPI_COMM_WORLD and on a
 * duplicate (each communicator is checked on its own).  Without the check,
 * ranks that decide differently run plans that do not match: the run
 * hangs or a result is wrong.  Every result is checked exactly (small
 * integers), and the calls are counted with rabred's MPI_T counters
 * (coll_rabred_<coll>_<alg>_calls; "previous" is the component below).
 * Exit 0 when all checks pass.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rabred_mpit.h"

static int rank, size, failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "test_mpi_agree rank %d: FAILED: %s\n", rank, what);
    }
}

/* ---- rabred's call counters ------------------------------------------ */

#define MAX_COUNTERS 64
static MPI_T_pvar_session session;
static rabred_mpit_pvar_t counters[MAX_COUNTERS];
static int is_previous[MAX_COUNTERS], ncounters;

static int is_call_counter(const char *name)
{
    size_t n = strlen(name);
    return (0 == strncmp(name, "coll_rabred_allreduce_", 22) ||
            0 == strncmp(name, "coll_rabred_reduce_", 19)) &&
           n > 6 && 0 == strcmp(name + n - 6, "_calls");
}

static void open_counters(void)
{
    int num = 0, previous = 0;
    MPI_T_pvar_get_num(&num);
    MPI_T_pvar_session_create(&session);
    for (int i = 0; i < num && ncounters < MAX_COUNTERS; i++) {
        char name[256];
        rabred_mpit_pvar_describe(i, name, sizeof(name), &counters[ncounters]);
        if (is_call_counter(name) &&
            MPI_SUCCESS == rabred_mpit_pvar_open(session, &counters[ncounters])) {
            is_previous[ncounters] = NULL != strstr(name, "_previous_calls");
            previous += is_previous[ncounters];
            ncounters++;
        }
    }
    check(2 == previous && ncounters > 2, "rabred's call counters exist (is rabred loaded?)");
}

/* Calls counted so far: all, and those handed to the component below. */
static void read_counters(unsigned long long *all, unsigned long long *handed_down)
{
    *all = *handed_down = 0;
    for (int i = 0; i < ncounters; i++) {
        unsigned long long v = 0;
        rabred_mpit_pvar_read_counter(&counters[i], &v);
        *all += v;
        *handed_down += is_previous[i] ? v : 0;
    }
}

/* ---- the calls -------------------------------------------------------- */

static double value(int r, int i) { return (double)((r + 1) * (i % 7 + 1)); }

/* sum over ranks of value(r, i) */
static double expected(int i) { return (double)(size * (size + 1) / 2 * (i % 7 + 1)); }

static int all_right(const double *v, int count)
{
    for (int i = 0; i < count; i++) {
        if (v[i] != expected(i)) {
            return 0;
        }
    }
    return 1;
}

/* Three calls per count; returns how many calls it made. */
static int calls_on(MPI_Comm comm, const char *comm_name, double *in, double *out)
{
    static const int counts[] = {1, 7, 1000, 65536 + 3};
    char what[160];
    int made = 0;
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        int count = counts[k], root = (int)k % size;
        for (int i = 0; i < count; i++) {
            in[i] = value(rank, i);
            out[i] = -1;
        }
        snprintf(what, sizeof(what), "MPI_Allreduce of %d doubles on %s", count, comm_name);
        check(MPI_SUCCESS == MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm) &&
                  all_right(out, count),
              what);
        memcpy(out, in, (size_t)count * sizeof(double));
        snprintf(what, sizeof(what), "MPI_Allreduce in place of %d doubles on %s", count,
                 comm_name);
        check(MPI_SUCCESS == MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_DOUBLE, MPI_SUM, comm) &&
                  all_right(out, count),
              what);
        out[0] = -1;
        snprintf(what, sizeof(what), "MPI_Reduce of %d doubles to %d on %s", count, root,
                 comm_name);
        check(MPI_SUCCESS == MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_SUM, root, comm) &&
                  (rank != root || all_right(out, count)),
              what);
        made += 3;
    }
    return made;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int differ = argc > 1 && 0 == strcmp(argv[1], "differ");
    if (argc != 2 || (!differ && 0 != strcmp(argv[1], "agree"))) {
        if (0 == rank) {
            fprintf(stderr, "usage: test_mpi_agree agree|differ\n");
        }
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    open_counters();

    double *in = malloc((65536 + 3) * sizeof(double)), *out = malloc((65536 + 3) * sizeof(double));
    if (NULL == in || NULL == out) {
        fprintf(stderr, "test_mpi_agree rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    unsigned long long all0, down0, all1, down1;
    read_counters(&all0, &down0);
    int made = calls_on(MPI_COMM_WORLD, "MPI_COMM_WORLD", in, out);
    made += calls_on(dup, "a duplicate of MPI_COMM_WORLD", in, out);
    read_counters(&all1, &down1);

    /* Handed down, an MPI_Allreduce may come back as an MPI_Reduce (coll/
     * basic's allreduce is a reduce through the communicator's table, i.e.
     * rabred, then a broadcast): rabred then counts more calls than were
     * made, every one of them handed down. */
    char what[200];
    unsigned long long all = all1 - all0, down = down1 - down0;
    snprintf(what, sizeof(what), "rabred counted %llu calls, %llu handed down, of %d made", all,
             down, made);
    check(differ ? all >= (unsigned long long)made && down == all
                 : all == (unsigned long long)made && 0 == down,
          what);

    MPI_Comm_free(&dup);
    free(in);
    free(out);
    for (int i = 0; i < ncounters; i++) {
        rabred_mpit_pvar_close(&counters[i]);
    }
    MPI_T_pvar_session_free(&session);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("test_mpi_agree (%s, p = %d): %d calls per rank, %s\n", argv[1], size, made,
               0 == total ? "all checks passed" : "FAILED");
    }
    MPI_T_finalize();
    MPI_Finalize();
    return 0 == total ? 0 : 1;
}
