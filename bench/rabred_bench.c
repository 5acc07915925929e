/*
 * rabred_bench: MPI_Allreduce and MPI_Reduce latency, side by side, of
 *   - "previous": the coll component below rabred (Open MPI's stock coll/tuned
 *     decision when run with --mca coll rabred,tuned,basic,libnbc),
 *   - "auto":     rabred's own choice,
 *   - every rabred algorithm, forced,
 * for MPI_DOUBLE / MPI_SUM, 8 B to 4 MiB, in one run.
 *
 * Why one run, interleaved and repeated: machine noise (other jobs, clock
 * frequency, page cache) drifts over seconds.  Measuring all variants of one
 * size back to back, for several rounds with a rotating start, and reporting
 * the median, exposes every variant to the same conditions.
 *
 * How variants are switched: rabred registers coll_rabred_allreduce_algorithm
 * and coll_rabred_reduce_algorithm as enum MCA parameters, which Open MPI
 * exposes as MPI_T control variables.  The enum items (names and values) are
 * read at run time, so the bench never repeats the algorithm table.  Every
 * rank writes the same value, then a barrier, so no collective call ever
 * mixes algorithms across ranks.
 *
 * Every variant's result is checked on every size before it is timed; a
 * wrong result aborts the run, since a fast wrong answer is not a result.
 *
 * Usage: rabred_bench [-r rounds] [-t target_ms] [-m max_bytes]
 *                     [-c allreduce|reduce|both]
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_VARIANTS = 32, NAME_LEN = 128, MAX_SIZES = 32 };

/* Iteration bounds per measurement: at least 3 so one outlier cannot be the
 * whole sample; at most 10^6 so an absurd calibration cannot hang a run. */
enum { MIN_ITERS = 3, MAX_ITERS = 1000000 };

typedef enum { COLL_ALLREDUCE, COLL_REDUCE } coll_kind_t;

typedef struct {
    int value;               /* enum value written to the cvar */
    char name[NAME_LEN];     /* enum item name, e.g. "rabenseifner" */
    int iters;               /* calibrated iterations for the current size */
} variant_t;

/* One collective under test and the cvar that selects its algorithm.
 * Variants are ordered: previous, auto, then the algorithms in enum order. */
typedef struct {
    coll_kind_t kind;
    const char *label;
    const char *cvar_name;
    MPI_T_cvar_handle handle;
    variant_t v[MAX_VARIANTS];
    int nv;
} coll_t;

typedef struct {
    int rounds;
    double target_s;         /* wanted duration of one measurement */
    size_t max_bytes;
    int run_allreduce;
    int run_reduce;
} options_t;

static int g_rank, g_size;

/* Leave cleanly on a setup error that every rank detects identically. */
static void fail_all(const char *msg, const char *detail)
{
    if (0 == g_rank) {
        fprintf(stderr, "rabred_bench: error: %s%s%s\n", msg,
                detail ? ": " : "", detail ? detail : "");
    }
    MPI_T_finalize();
    MPI_Finalize();
    exit(1);
}

static void usage_exit(void)
{
    if (0 == g_rank) {
        fprintf(stderr, "usage: rabred_bench [-r rounds] [-t target_ms] "
                        "[-m max_bytes] [-c allreduce|reduce|both]\n");
    }
    MPI_Finalize();
    exit(1);
}

static long parse_long(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || '\0' != *end || v < lo || v > hi) {
        usage_exit();
    }
    return v;
}

static options_t parse_options(int argc, char **argv)
{
    options_t o = { 5, 0.020, (size_t) 4 << 20, 1, 1 };
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) {
            usage_exit();
        }
        const char *val = argv[++i];
        if (0 == strcmp(argv[i - 1], "-r")) {
            o.rounds = (int) parse_long(val, 1, 101);
        } else if (0 == strcmp(argv[i - 1], "-t")) {
            o.target_s = parse_long(val, 1, 10000) / 1000.0;
        } else if (0 == strcmp(argv[i - 1], "-m")) {
            o.max_bytes = (size_t) parse_long(val, 8, 1L << 30);
        } else if (0 == strcmp(argv[i - 1], "-c")) {
            o.run_allreduce = 0 != strcmp(val, "reduce");
            o.run_reduce = 0 != strcmp(val, "allreduce");
            if (strcmp(val, "reduce") && strcmp(val, "allreduce") && strcmp(val, "both")) {
                usage_exit();
            }
        } else {
            usage_exit();
        }
    }
    return o;
}

/* Sizes 8 B, then powers of 4 from 16 B up to max_bytes (4 MiB by default):
 * one double is the latency case, 4 MiB is well into the bandwidth regime. */
static int make_sizes(size_t max_bytes, size_t *sizes)
{
    int n = 0;
    sizes[n++] = 8;
    for (size_t b = 16; b <= max_bytes && n < MAX_SIZES; b *= 4) {
        sizes[n++] = b;
    }
    return n;
}

/* ---- MPI_T: discover the algorithm enum and switch it ------------------ */

static void add_variant(coll_t *c, int pos, int value, const char *name)
{
    memmove(&c->v[pos + 1], &c->v[pos], (size_t) (c->nv - pos) * sizeof(c->v[0]));
    c->v[pos].value = value;
    snprintf(c->v[pos].name, NAME_LEN, "%s", name);
    c->nv++;
}

/* Reads the enum items; "previous" goes first and "auto" second so the
 * table's first columns are the baseline and rabred's default. */
static void load_variants(coll_t *c, MPI_T_enum et)
{
    int nitems, len = NAME_LEN, have_prev = 0, have_auto = 0;
    char ename[NAME_LEN];
    if (MPI_SUCCESS != MPI_T_enum_get_info(et, &nitems, ename, &len)) {
        fail_all("MPI_T_enum_get_info failed for", c->cvar_name);
    }
    c->nv = 0;
    for (int i = 0; i < nitems && c->nv < MAX_VARIANTS; i++) {
        char name[NAME_LEN];
        int value;
        len = NAME_LEN;
        if (MPI_SUCCESS != MPI_T_enum_get_item(et, i, &value, name, &len)) {
            fail_all("MPI_T_enum_get_item failed for", c->cvar_name);
        }
        if (0 == strcmp(name, "previous")) {
            add_variant(c, 0, value, name);
            have_prev = 1;
        } else if (0 == strcmp(name, "auto")) {
            add_variant(c, have_prev, value, name);
            have_auto = 1;
        } else {
            add_variant(c, c->nv, value, name);
        }
    }
    if (!have_prev || !have_auto) {
        fail_all("enum items \"previous\" and \"auto\" are required in", c->cvar_name);
    }
}

static void open_cvar(coll_t *c)
{
    int idx, len = NAME_LEN, dlen = 0, verb, bind, scope, count;
    char name[NAME_LEN];
    MPI_Datatype dt;
    MPI_T_enum et;

    if (MPI_SUCCESS != MPI_T_cvar_get_index(c->cvar_name, &idx)) {
        fail_all("control variable not found (is the rabred component loaded? "
                 "run through scripts/mpirun-rabred.sh, or pass "
                 "--mca coll rabred,tuned,basic,libnbc with rabred on "
                 "mca_base_component_path)", c->cvar_name);
    }
    if (MPI_SUCCESS != MPI_T_cvar_get_info(idx, name, &len, &verb, &dt, &et,
                                           NULL, &dlen, &bind, &scope)) {
        fail_all("MPI_T_cvar_get_info failed for", c->cvar_name);
    }
    if (MPI_T_ENUM_NULL == et || MPI_INT != dt) {
        fail_all("control variable is not an integer enum", c->cvar_name);
    }
    /* Open MPI refuses writes to CONSTANT/READONLY variables and to variables
     * registered without MCA_BASE_VAR_FLAG_SETTABLE. */
    if (MPI_T_SCOPE_CONSTANT == scope || MPI_T_SCOPE_READONLY == scope) {
        fail_all("control variable is read-only (register it settable)", c->cvar_name);
    }
    if (MPI_SUCCESS != MPI_T_cvar_handle_alloc(idx, NULL, &c->handle, &count) || 1 != count) {
        fail_all("MPI_T_cvar_handle_alloc failed for", c->cvar_name);
    }
    load_variants(c, et);
}

static void select_variant(const coll_t *c, const variant_t *v)
{
    int rc = MPI_T_cvar_write(c->handle, &v->value);
    if (MPI_SUCCESS != rc) {
        fprintf(stderr, "rabred_bench: rank %d: MPI_T_cvar_write(%s = %s) failed "
                "(error %d; is the variable registered MCA_BASE_VAR_FLAG_SETTABLE?)\n",
                g_rank, c->cvar_name, v->name, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- the measured operation and its check ------------------------------ */

static void run_coll(const coll_t *c, const double *sbuf, double *rbuf, int count)
{
    if (COLL_ALLREDUCE == c->kind) {
        MPI_Allreduce(sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Reduce(sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    }
}

/* Input rank + i: the sum over ranks is p*i + p(p-1)/2, an integer far below
 * 2^53 for every size here, so each variant must match it exactly whatever
 * order it adds in. */
static void fill_input(double *sbuf, int count)
{
    for (int i = 0; i < count; i++) {
        sbuf[i] = (double) g_rank + (double) i;
    }
}

static void verify(const coll_t *c, const variant_t *v, const double *sbuf,
                   double *rbuf, int count)
{
    const double base = (double) g_size * (g_size - 1) / 2.0;
    for (int i = 0; i < count; i++) {
        rbuf[i] = -1.0;
    }
    run_coll(c, sbuf, rbuf, count);
    if (COLL_REDUCE == c->kind && 0 != g_rank) {
        return;
    }
    for (int i = 0; i < count; i++) {
        double want = (double) g_size * i + base;
        if (rbuf[i] != want) {
            fprintf(stderr, "rabred_bench: rank %d: WRONG RESULT: %s with %s, "
                    "count %d: element %d is %.17g, expected %.17g\n",
                    g_rank, c->label, v->name, count, i, rbuf[i], want);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

/* Seconds per call of the slowest rank.  The max is taken with Allgather, a
 * collective rabred does not provide, so the bookkeeping never depends on the
 * algorithm under test. */
static double time_calls(const coll_t *c, const double *sbuf, double *rbuf,
                         int count, int iters)
{
    double all[g_size];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        run_coll(c, sbuf, rbuf, count);
    }
    double t = (MPI_Wtime() - t0) / iters;
    MPI_Allgather(&t, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    double max = all[0];
    for (int r = 1; r < g_size; r++) {
        max = all[r] > max ? all[r] : max;
    }
    return max;
}

/* Grows the iteration count until a run lasts a tenth of the target, then
 * scales to the target.  All ranks see the same max time, so they agree. */
static int calibrate(const coll_t *c, const double *sbuf, double *rbuf,
                     int count, double target_s)
{
    int iters = 1;
    double t = time_calls(c, sbuf, rbuf, count, iters);
    while (t * iters < target_s / 10 && iters < MAX_ITERS / 8) {
        iters *= 8;
        t = time_calls(c, sbuf, rbuf, count, iters);
    }
    double want = t > 0 ? target_s / t : MAX_ITERS;
    if (want < MIN_ITERS) {
        return MIN_ITERS;
    }
    return want > MAX_ITERS ? MAX_ITERS : (int) want;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *x, int n)
{
    qsort(x, (size_t) n, sizeof(x[0]), cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* One size: check every variant, calibrate each, then `rounds` interleaved
 * rounds; round r starts at variant r so no variant always runs first.
 * Writes the median microseconds per variant into us[]. */
static void bench_size(coll_t *c, const options_t *o, size_t bytes,
                       double *sbuf, double *rbuf, double *us)
{
    const int count = (int) (bytes / sizeof(double));
    double samples[MAX_VARIANTS][101];

    fill_input(sbuf, count);
    for (int k = 0; k < c->nv; k++) {
        select_variant(c, &c->v[k]);
        verify(c, &c->v[k], sbuf, rbuf, count);
        c->v[k].iters = calibrate(c, sbuf, rbuf, count, o->target_s);
    }
    for (int r = 0; r < o->rounds; r++) {
        for (int j = 0; j < c->nv; j++) {
            int k = (r + j) % c->nv;
            select_variant(c, &c->v[k]);
            samples[k][r] = time_calls(c, sbuf, rbuf, count, c->v[k].iters);
        }
    }
    for (int k = 0; k < c->nv; k++) {
        us[k] = 1e6 * median(samples[k], o->rounds);
    }
}

/* ---- output ------------------------------------------------------------ */

static void print_header(const coll_t *c, const options_t *o)
{
    printf("\n## MPI_%s%s, MPI_DOUBLE, MPI_SUM, p = %d\n\n",
           COLL_ALLREDUCE == c->kind ? "Allreduce" : "Reduce",
           COLL_REDUCE == c->kind ? " (root 0)" : "", g_size);
    printf("back-to-back calls; median of %d rounds of about %.0f ms each; "
           "time per call of the slowest rank\n\n", o->rounds, o->target_s * 1e3);
    printf("| bytes | tuned default (us) | rabred auto (us) |");
    for (int k = 2; k < c->nv; k++) {
        printf(" %s (us) |", c->v[k].name);
    }
    printf(" speedup auto vs tuned |\n|------:|------:|------:|");
    for (int k = 2; k < c->nv; k++) {
        printf("------:|");
    }
    printf("------:|\n");
}

static void print_row(const coll_t *c, size_t bytes, const double *us)
{
    printf("| %zu |", bytes);
    for (int k = 0; k < c->nv; k++) {
        printf(" %.2f |", us[k]);
    }
    printf(" %.2fx |\n", us[1] > 0 ? us[0] / us[1] : 0.0);
    fflush(stdout);
}

static void bench_coll(coll_t *c, const options_t *o, double *sbuf, double *rbuf)
{
    size_t sizes[MAX_SIZES];
    int nsizes = make_sizes(o->max_bytes, sizes);
    double us[MAX_VARIANTS];

    open_cvar(c);
    if (0 == g_rank) {
        print_header(c, o);
    }
    for (int s = 0; s < nsizes; s++) {
        bench_size(c, o, sizes[s], sbuf, rbuf, us);
        if (0 == g_rank) {
            print_row(c, sizes[s], us);
        }
    }
    /* Leave rabred on its own choice for whatever runs next. */
    select_variant(c, &c->v[1]);
    MPI_T_cvar_handle_free(&c->handle);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    options_t o = parse_options(argc, argv);
    if (MPI_SUCCESS != MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)) {
        fail_all("MPI_T_init_thread failed", NULL);
    }

    double *sbuf = malloc(o.max_bytes), *rbuf = malloc(o.max_bytes);
    if (NULL == sbuf || NULL == rbuf) {
        fail_all("out of memory for the message buffers", NULL);
    }
    if (0 == g_rank) {
        printf("# rabred_bench: p = %d; \"tuned default\" is the coll component "
               "below rabred (coll/tuned when run with --mca coll "
               "rabred,tuned,basic,libnbc)\n", g_size);
    }

    coll_t allreduce = { COLL_ALLREDUCE, "allreduce", "coll_rabred_allreduce_algorithm",
                         MPI_T_CVAR_HANDLE_NULL, { { 0, "", 0 } }, 0 };
    coll_t reduce = { COLL_REDUCE, "reduce", "coll_rabred_reduce_algorithm",
                      MPI_T_CVAR_HANDLE_NULL, { { 0, "", 0 } }, 0 };
    if (o.run_allreduce) {
        bench_coll(&allreduce, &o, sbuf, rbuf);
    }
    if (o.run_reduce) {
        bench_coll(&reduce, &o, sbuf, rbuf);
    }

    free(sbuf);
    free(rbuf);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
