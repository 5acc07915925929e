/*
 * rabred_overlap: how much of a nonblocking reduction hides behind
 * computation, measured the way OSU's osu_iallreduce does, with every
 * variant interleaved in one run.
 *
 * For each round, size and variant (the algorithm forced through MPI_T,
 * `libnbc` = rabred's `previous`, i.e. the component below):
 *   blocking    MPI_Allreduce (MPI_Reduce), mean over --iters calls
 *   pure        MPI_Iallreduce + MPI_Wait, nothing between
 *   overlapped  MPI_Iallreduce, compute for `pure` seconds, MPI_Wait;
 *               the computation is a busy loop in --probes slices with an
 *               MPI_Test after each (0: no MPI call until the wait);
 *               with --compute sleep each slice sleeps instead: the
 *               computation of a rank that has a core of its own, which
 *               the emulated cluster (many ranks and the kernel's network
 *               on 2 cores) cannot give a busy loop
 *   overlap     100 * (1 - (overlapped - compute) / pure), in [0, 100]:
 *               the share of the communication the computation hid
 * Every call starts after a barrier; a time is the slowest rank's.  One
 * line per measurement:
 *   RESULT round= coll= p= bytes= variant= blocking_s= pure_s= compute_s=
 *          overlapped_s= overlap_pct= probes=
 *
 *   rabred_overlap [--sizes 65536,262144,...] [--variants libnbc,auto,...]
 *                  [--iters N] [--rounds R] [--probes K] [--coll allreduce|reduce]
 *                  [--compute spin|sleep]
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rabred_mpit.h"

#define MAX_LIST 32

typedef struct {
    long sizes[MAX_LIST];
    int nsizes;
    char variants[MAX_LIST][64];
    int nvariants;
    int iters, rounds, probes, reduce;
    int sleep; /* --compute sleep */
} options_t;

static int rank, nprocs;

static void die(const char *what)
{
    if (0 == rank) {
        fprintf(stderr, "rabred_overlap: %s\n", what);
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if ('K' == *end || 'k' == *end) {
        v <<= 10;
    } else if ('M' == *end || 'm' == *end) {
        v <<= 20;
    }
    return v;
}

static void parse(int argc, char **argv, options_t *o)
{
    const char *sizes = "65536,262144,1048576,4194304", *variants = "libnbc,auto";
    o->iters = 5;
    o->rounds = 3;
    o->probes = 16;
    o->reduce = 0;
    o->sleep = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--variants")) variants = argv[i + 1];
        else if (!strcmp(argv[i], "--iters")) o->iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds")) o->rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--probes")) o->probes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--coll")) o->reduce = !strcmp(argv[i + 1], "reduce");
        else if (!strcmp(argv[i], "--compute")) o->sleep = !strcmp(argv[i + 1], "sleep");
        else die("unknown option (see the header of bench/rabred_overlap.c)");
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", sizes);
    o->nsizes = 0;
    for (char *t = strtok(buf, ","); t && o->nsizes < MAX_LIST; t = strtok(NULL, ",")) {
        o->sizes[o->nsizes++] = parse_size(t);
    }
    snprintf(buf, sizeof buf, "%s", variants);
    o->nvariants = 0;
    for (char *t = strtok(buf, ","); t && o->nvariants < MAX_LIST; t = strtok(NULL, ",")) {
        snprintf(o->variants[o->nvariants++], 64, "%s", t);
    }
    if (o->iters < 1 || o->rounds < 1 || o->probes < 0 || 0 == o->nsizes) {
        die("bad --iters, --rounds, --probes or --sizes");
    }
}

/* Force `variant` for the collective (libnbc: rabred hands the call to
 * the component below). */
static void force(const options_t *o, const char *variant)
{
    rabred_mpit_cvar_t cv;
    const char *name = o->reduce ? "coll_rabred_reduce_algorithm" : "coll_rabred_allreduce_algorithm";
    const char *item = !strcmp(variant, "libnbc") ? "previous" : variant;
    if (MPI_SUCCESS != rabred_mpit_cvar_find(name, &cv) || cv.index < 0 ||
        MPI_SUCCESS != rabred_mpit_cvar_open(&cv)) {
        die("rabred is not loaded (no coll_rabred_*_algorithm control variable)");
    }
    int value = rabred_mpit_enum_value(cv.enumtype, item);
    if (value < 0 || MPI_SUCCESS != rabred_mpit_cvar_write_int(&cv, value)) {
        die("a variant is not an item of coll_rabred_*_algorithm");
    }
    rabred_mpit_cvar_close(&cv);
}

/* Busy (or asleep) for `seconds`, in `probes` slices with an MPI_Test
 * after each. */
static void compute(double seconds, int probes, int sleep, MPI_Request *req)
{
    int slices = probes > 0 ? probes : 1;
    for (int s = 0; s < slices; s++) {
        double until = MPI_Wtime() + seconds / slices;
        for (double now = MPI_Wtime(); now < until; now = MPI_Wtime()) {
            if (sleep) {
                double left = until - now;
                struct timespec ts = {(time_t)left, (long)((left - (time_t)left) * 1e9)};
                nanosleep(&ts, NULL);
            }
        }
        if (probes > 0) {
            int flag;
            MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        }
    }
}

typedef struct {
    const options_t *o;
    double *in, *out;
    int count;
} call_t;

static void start(const call_t *c, MPI_Request *req)
{
    if (c->o->reduce) {
        MPI_Ireduce(c->in, c->out, c->count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, req);
    } else {
        MPI_Iallreduce(c->in, c->out, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, req);
    }
}

/* Mean seconds of one form over --iters calls: 0 blocking, 1 pure,
 * 2 overlapped with `busy` seconds of computation. */
static double measure(const call_t *c, int form, double busy)
{
    double total = 0;
    for (int i = 0; i < c->o->iters; i++) {
        MPI_Request req = MPI_REQUEST_NULL;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (0 == form) {
            if (c->o->reduce) {
                MPI_Reduce(c->in, c->out, c->count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            } else {
                MPI_Allreduce(c->in, c->out, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            }
        } else {
            start(c, &req);
            if (2 == form) {
                compute(busy, c->o->probes, c->o->sleep, &req);
            }
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        total += MPI_Wtime() - t0;
    }
    return total / c->o->iters;
}

/* The slowest rank's value, on every rank (gathered: MPI_Gather and
 * MPI_Bcast are not rabred's, so they do not disturb the counters). */
static double slowest(double t)
{
    double *all = malloc((size_t)nprocs * sizeof(double)), worst = 0;
    MPI_Gather(&t, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int r = 0; 0 == rank && r < nprocs; r++) {
        worst = all[r] > worst ? all[r] : worst;
    }
    MPI_Bcast(&worst, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(all);
    return worst;
}

static void one(const options_t *o, int round, long bytes, const char *variant, double *in,
                double *out)
{
    call_t c = {o, in, out, (int)(bytes / (long)sizeof(double))};
    force(o, variant);
    measure(&c, 1, 0); /* warm-up: prepares the call, allocates */
    double blocking = slowest(measure(&c, 0, 0));
    double pure = slowest(measure(&c, 1, 0));
    double overlapped = slowest(measure(&c, 2, pure));
    double overlap = 100.0 * (1.0 - (overlapped - pure) / pure);
    overlap = overlap < 0 ? 0 : overlap > 100 ? 100 : overlap;
    if (0 == rank) {
        printf("RESULT round=%d coll=%s p=%d bytes=%ld variant=%s blocking_s=%.6f pure_s=%.6f "
               "compute_s=%.6f overlapped_s=%.6f overlap_pct=%.1f probes=%d compute=%s\n",
               round, o->reduce ? "reduce" : "allreduce", nprocs, bytes, variant, blocking, pure,
               pure, overlapped, overlap, o->probes, o->sleep ? "sleep" : "spin");
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    int provided;
    options_t o;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    parse(argc, argv, &o);
    long most = 0;
    for (int s = 0; s < o.nsizes; s++) {
        most = o.sizes[s] > most ? o.sizes[s] : most;
    }
    double *in = malloc((size_t)most), *out = malloc((size_t)most);
    if (NULL == in || NULL == out) {
        die("out of memory");
    }
    for (long i = 0; i < most / (long)sizeof(double); i++) {
        in[i] = (double)(rank + i % 7);
    }
    for (int round = 0; round < o.rounds; round++) {
        for (int s = 0; s < o.nsizes; s++) {
            for (int v = 0; v < o.nvariants; v++) {
                one(&o, round, o.sizes[s], o.variants[v], in, out);
            }
        }
    }
    free(in);
    free(out);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
