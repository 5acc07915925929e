/*
 * rabred_netmodel: measures a link the way Rabenseifner 2004 sec. 2.1 models it
 * (alpha/beta/gamma and the one-way factors), per size, on the machine and
 * transport it runs on: the emulated cluster's link check and the tables of
 * bench/cluster/README.md.  rabred's own cost model has more terms and its
 * own tool: rabred-calibrate (docs/decision.md, "The cost model").
 *
 * The model and what is measured:
 *   - an exchange (both partners send n bytes to each other at once, as in
 *     recursive doubling or a halving step) costs        alpha + n beta,
 *   - a one-way message (a tree step) costs   alpha_uni + n beta_uni
 *                                           = f_alpha alpha + n f_beta beta,
 *   - reducing n bytes locally costs                     n gamma.
 *   alpha_uni  half the round trip of a small ping-pong (-s bytes, default 8),
 *   beta_uni   slope of the one-way time between the small and the large
 *              ping-pong (-n bytes, default 4 MiB),
 *   alpha      time of a small MPI_Sendrecv exchange with the SAME peer,
 *   beta       slope of the exchange time, small to large,
 *   f_alpha = alpha_uni / alpha,  f_beta = beta_uni / beta
 *              (Rabenseifner 2004: 0.5 for a simplex network, 1.0 for full duplex),
 *   gamma      seconds per byte of MPI_Reduce_local, MPI_DOUBLE, MPI_SUM,
 *              on -g bytes (default 1 MiB), rank 0 alone; the same on all
 *              ranks at once is printed too (what a collective sees when
 *              every rank reduces; larger when ranks share cores).
 * Also printed, because two numbers cannot describe TCP: the exchange
 * factor (same-peer exchange / one-way) per size, and with p >= 3 the ring
 * exchange (every rank sends to r+1 and receives from r-1 at once:
 * DIFFERENT peers) over the one-way time.  Over Open MPI's TCP BTL these
 * factors depend on the size (bench/cluster/README.md has measurements).
 *
 * Table: one row per size (-s, 1 KiB .. 1 MiB, -n), the median time of each
 * operation, the factors, and the row's spread, (max - min) / median of the
 * noisiest operation: a large spread means the machine was busy.
 *
 * Pair: rank 0 and the first rank on another host (by
 * MPI_Get_processor_name), else rank 1.  The other ranks only join the ring
 * and the barriers.  Every number is the median of -r samples; a sample
 * repeats the operation for about -t ms (default 50, at least once).  At
 * 100 Mbit/s one 4 MiB round trip takes 0.7 s; a full run there takes
 * about 20 s (2 ranks) to 30 s (3 ranks).
 *
 * Usage: rabred_netmodel [-q] [-v] [-r repeats] [-t target_ms] [-s small_bytes]
 *                        [-n large_bytes] [-g gamma_bytes]
 *   -q  quick: only the large one-way ping-pong, printed as
 *       "one-way bandwidth <MB/s> MB/s (<Mbit/s> Mbit/s)" (cluster.sh check).
 *   -v  also print every sample (microseconds per operation, in time order),
 *       to see whether a large spread is noise or two different behaviours.
 * Uses only <mpi.h>.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SIZES = 8, MAX_REPEATS = 101, MAX_ITERS = 1000000 };

typedef enum { K_PINGPONG, K_EXCHANGE, K_RING, K_NKINDS } kind_t;

static const char *const kind_label[K_NKINDS] = {
    "one-way (ping-pong/2)", "exchange, same peer", "ring exchange"
};

typedef struct {
    int repeats;
    double target_s;
    long small;
    long large;
    long gamma_bytes;
    int quick;
    int verbose;
} options_t;

static int g_rank, g_size, g_partner;
static char *g_sbuf, *g_rbuf;

static void usage_exit(void)
{
    if (0 == g_rank) {
        fprintf(stderr, "usage: rabred_netmodel [-q] [-v] [-r repeats] [-t target_ms] "
                        "[-s small_bytes] [-n large_bytes] [-g gamma_bytes]\n");
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
    options_t o = { 7, 0.050, 8, 4L << 20, 1L << 20, 0, 0 };
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "-q")) {
            o.quick = 1;
            o.repeats = 3;
            continue;
        }
        if (0 == strcmp(argv[i], "-v")) {
            o.verbose = 1;
            continue;
        }
        if (i + 1 >= argc) {
            usage_exit();
        }
        const char *val = argv[++i];
        const char *opt = argv[i - 1];
        if (0 == strcmp(opt, "-r")) {
            o.repeats = (int) parse_long(val, 1, MAX_REPEATS);
        } else if (0 == strcmp(opt, "-t")) {
            o.target_s = parse_long(val, 1, 100000) / 1000.0;
        } else if (0 == strcmp(opt, "-s")) {
            o.small = parse_long(val, 0, 1L << 20);
        } else if (0 == strcmp(opt, "-n")) {
            o.large = parse_long(val, 1024, 1L << 30);
        } else if (0 == strcmp(opt, "-g")) {
            o.gamma_bytes = parse_long(val, 8, 1L << 30);
        } else {
            usage_exit();
        }
    }
    if (o.small >= o.large) {
        usage_exit();
    }
    return o;
}

/* ---- the operations ------------------------------------------------------ */

static int in_pair(void)
{
    return 0 == g_rank || g_partner == g_rank;
}

/* Runs `iters` operations of `kind` on `bytes`; returns this rank's seconds
 * per operation (0 for a rank that does not take part). */
static double run_kind(kind_t kind, long bytes, int iters)
{
    const int n = (int) bytes;
    const int peer = 0 == g_rank ? g_partner : 0;
    const int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
    double t0 = MPI_Wtime();

    switch (kind) {
    case K_PINGPONG:
        if (!in_pair()) {
            return 0.0;
        }
        for (int i = 0; i < iters; i++) {
            if (0 == g_rank) {
                MPI_Send(g_sbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(g_rbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(g_rbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(g_sbuf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            }
        }
        return (MPI_Wtime() - t0) / (2.0 * iters);
    case K_EXCHANGE:
        if (!in_pair()) {
            return 0.0;
        }
        for (int i = 0; i < iters; i++) {
            MPI_Sendrecv(g_sbuf, n, MPI_BYTE, peer, 2, g_rbuf, n, MPI_BYTE, peer, 2,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        return (MPI_Wtime() - t0) / iters;
    case K_RING:
        for (int i = 0; i < iters; i++) {
            MPI_Sendrecv(g_sbuf, n, MPI_BYTE, next, 3, g_rbuf, n, MPI_BYTE, prev, 3,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        return (MPI_Wtime() - t0) / iters;
    default:
        return 0.0;
    }
}

/* The slowest participant's seconds per operation.  Bookkeeping uses
 * MPI_Allgather, which rabred does not provide, so it never depends on the
 * component under study. */
static double slowest(double t)
{
    double all[g_size];
    MPI_Allgather(&t, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    double max = 0.0;
    for (int r = 0; r < g_size; r++) {
        max = all[r] > max ? all[r] : max;
    }
    return max;
}

static double sample(kind_t kind, long bytes, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    return slowest(run_kind(kind, bytes, iters));
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

/* Iterations for one sample of about target_s: all ranks compute the same
 * number from the same (allgathered) time, so they agree. */
static int iterations_for(double t_op, double target_s)
{
    if (t_op <= 0.0) {
        return MAX_ITERS;
    }
    double want = target_s / t_op;
    return want < 1.0 ? 1 : want > MAX_ITERS ? MAX_ITERS : (int) want;
}

/* Median seconds per operation of each of the first nk kinds on one size,
 * and the row's spread (largest (max - min) / median over the kinds).  Per
 * kind: one untimed operation (the TCP BTL opens connections lazily, on the
 * first message to a peer), then a calibration that grows the count 8x at a
 * time.  Then `repeats` rounds; round r starts at kind r, so machine noise
 * that drifts over seconds (other jobs on shared cores) hits every kind
 * alike and the factors between them stay fair. */
static void measure_row(const kind_t *kinds, int nk, long bytes, const options_t *o,
                        double *med, double *spread)
{
    double samples[K_NKINDS][MAX_REPEATS];
    int iters[K_NKINDS];

    for (int j = 0; j < nk; j++) {
        int it = 1;
        sample(kinds[j], bytes, 1);
        double t = sample(kinds[j], bytes, it);
        while (t * it < o->target_s / 10 && it < MAX_ITERS / 8) {
            it *= 8;
            t = sample(kinds[j], bytes, it);
        }
        iters[j] = iterations_for(t, o->target_s);
    }
    for (int r = 0; r < o->repeats; r++) {
        for (int i = 0; i < nk; i++) {
            int j = (r + i) % nk;
            samples[j][r] = sample(kinds[j], bytes, iters[j]);
        }
    }
    if (o->verbose && 0 == g_rank) {
        for (int j = 0; j < nk; j++) {
            printf("# samples %ld B %s, %d op(s) each (us):", bytes, kind_label[kinds[j]], iters[j]);
            for (int r = 0; r < o->repeats; r++) {
                printf(" %.1f", 1e6 * samples[j][r]);
            }
            printf("\n");
        }
        fflush(stdout);
    }
    *spread = 0.0;
    for (int j = 0; j < nk; j++) {
        med[j] = median(samples[j], o->repeats);   /* sorts samples[j] */
        double sp = med[j] > 0 ? (samples[j][o->repeats - 1] - samples[j][0]) / med[j] : 0.0;
        *spread = sp > *spread ? sp : *spread;
    }
}

/* gamma: seconds per byte of MPI_Reduce_local(MPI_DOUBLE, MPI_SUM), on rank 0
 * alone (all_ranks = 0) or on every rank at once (the slowest rank). */
static double measure_gamma(const options_t *o, int all_ranks)
{
    const int count = (int) (o->gamma_bytes / (long) sizeof(double));
    const double bytes = (double) count * sizeof(double);
    double *in = malloc((size_t) count * sizeof(double));
    double *inout = malloc((size_t) count * sizeof(double));
    double samples[MAX_REPEATS];
    int iters = 1;

    if (slowest(NULL == in || NULL == inout ? 1.0 : 0.0) > 0.0) {
        if (0 == g_rank) {
            fprintf(stderr, "rabred_netmodel: out of memory for the gamma buffers\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < count; i++) {
        in[i] = 1e-3 * (i % 1000);
        inout[i] = 0.0;
    }
    const int active = all_ranks || 0 == g_rank;
    for (int phase = 0; phase < 2 + o->repeats; phase++) {
        /* phase 0: warm-up, 1: calibration (one call), 2..: samples */
        MPI_Barrier(MPI_COMM_WORLD);
        double t = 0.0;
        if (active) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                MPI_Reduce_local(in, inout, count, MPI_DOUBLE, MPI_SUM);
            }
            t = (MPI_Wtime() - t0) / iters / bytes;
        }
        t = slowest(t);
        if (1 == phase) {               /* phase 0 only warmed the caches */
            iters = iterations_for(t * bytes, o->target_s);
        } else if (phase >= 2) {
            samples[phase - 2] = t;
        }
    }
    free(in);
    free(inout);
    return median(samples, o->repeats);
}

/* ---- hosts ------------------------------------------------------------------ */

static char (*g_names)[MPI_MAX_PROCESSOR_NAME];

/* Partner of rank 0: the first rank on another host, else rank 1.  Returns
 * the number of distinct hosts. */
static int find_hosts(void)
{
    char me[MPI_MAX_PROCESSOR_NAME] = { 0 };
    int len, nhosts = 0;
    MPI_Get_processor_name(me, &len);
    g_names = calloc((size_t) g_size, sizeof(*g_names));
    if (NULL == g_names) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, g_names, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    g_partner = 1;
    for (int r = g_size - 1; r >= 1; r--) {
        if (0 != strcmp(g_names[r], g_names[0])) {
            g_partner = r;
        }
    }
    for (int r = 0; r < g_size; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++) {
            seen = 0 == strcmp(g_names[q], g_names[r]);
        }
        nhosts += !seen;
    }
    return nhosts;
}

/* ---- output ----------------------------------------------------------------- */

static void report(const options_t *o, int nhosts, const long *sizes, int nsizes,
                   double t[][K_NKINDS], const double *spread, int have_ring,
                   double gamma, double gamma_all)
{
    const int lo = 0, hi = nsizes - 1;
    const double dn = (double) (sizes[hi] - sizes[lo]);
    const double alpha_uni = t[lo][K_PINGPONG];
    const double beta_uni = (t[hi][K_PINGPONG] - t[lo][K_PINGPONG]) / dn;
    const double alpha = t[lo][K_EXCHANGE];
    const double beta = (t[hi][K_EXCHANGE] - t[lo][K_EXCHANGE]) / dn;
    const double f_alpha = alpha_uni / alpha, f_beta = beta_uni / beta;

    printf("\n| bytes | %s (us) | %s (us) |", kind_label[K_PINGPONG], kind_label[K_EXCHANGE]);
    if (have_ring) {
        printf(" %s (us) |", kind_label[K_RING]);
    }
    printf(" exchange / one-way |");
    if (have_ring) {
        printf(" ring / one-way |");
    }
    printf(" one-way MB/s | spread |\n|---:|---:|---:|%s---:|%s---:|---:|\n",
           have_ring ? "---:|" : "", have_ring ? "---:|" : "");
    for (int s = 0; s < nsizes; s++) {
        printf("| %ld | %.2f | %.2f |", sizes[s], 1e6 * t[s][K_PINGPONG], 1e6 * t[s][K_EXCHANGE]);
        if (have_ring) {
            printf(" %.2f |", 1e6 * t[s][K_RING]);
        }
        printf(" %.2f |", t[s][K_EXCHANGE] / t[s][K_PINGPONG]);
        if (have_ring) {
            printf(" %.2f |", t[s][K_RING] / t[s][K_PINGPONG]);
        }
        printf(" %.2f | %.0f%% |\n", sizes[s] / t[s][K_PINGPONG] / 1e6, 100 * spread[s]);
    }
    if (!have_ring) {
        printf("\n(ring exchange not measured: with p = %d, r+1 and r-1 are the same "
               "peer; run with >= 3 processes)\n", g_size);
    }

    printf("\n| parameter | value | from |\n|---|---:|---|\n");
    printf("| alpha_uni | %.3e s | half round trip, %ld B |\n", alpha_uni, sizes[lo]);
    printf("| beta_uni | %.3e s/B (%.2f MB/s) | one-way slope %ld..%ld B |\n",
           beta_uni, 1e-6 / beta_uni, sizes[lo], sizes[hi]);
    printf("| alpha | %.3e s | same-peer MPI_Sendrecv, %ld B |\n", alpha, sizes[lo]);
    printf("| beta | %.3e s/B (%.2f MB/s each way) | exchange slope %ld..%ld B |\n",
           beta, 1e-6 / beta, sizes[lo], sizes[hi]);
    printf("| exchange factor | %.2f | same-peer exchange / one-way, %ld B |\n",
           t[hi][K_EXCHANGE] / t[hi][K_PINGPONG], sizes[hi]);
    if (have_ring) {
        printf("| ring factor | %.2f | ring exchange / one-way, %ld B, %d ranks on %d host(s) |\n",
               t[hi][K_RING] / t[hi][K_PINGPONG], sizes[hi], g_size, nhosts);
    }
    printf("| f_alpha | %.3f | alpha_uni / alpha |\n", f_alpha);
    printf("| f_beta | %.3f | beta_uni / beta |\n", f_beta);
    printf("| gamma | %.3e s/B (%.0f MB/s) | MPI_Reduce_local DOUBLE SUM, %ld B, rank 0 alone |\n",
           gamma, 1e-6 / gamma, o->gamma_bytes);
    printf("| gamma, all ranks at once | %.3e s/B (%.0f MB/s) | same, %d ranks, slowest |\n",
           gamma_all, 1e-6 / gamma_all, g_size);

    if (f_alpha < 0.5 || f_alpha > 1.0 || f_beta < 0.5 || f_beta > 1.0) {
        printf("\nnote: f_alpha or f_beta outside Rabenseifner's (2004) range 0.5..1.0; the values "
               "below are the measured ones\n");
    }
    printf("\n# rabred's cost model: measure it with rabred-calibrate\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    options_t o = parse_options(argc, argv);
    if (g_size < 2) {
        if (0 == g_rank) {
            fprintf(stderr, "rabred_netmodel: needs at least 2 processes\n");
        }
        MPI_Finalize();
        return 1;
    }
    int nhosts = find_hosts();

    g_sbuf = malloc((size_t) o.large);
    g_rbuf = malloc((size_t) o.large);
    if (NULL == g_sbuf || NULL == g_rbuf) {
        fprintf(stderr, "rabred_netmodel: rank %d: out of memory\n", g_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(g_sbuf, g_rank + 1, (size_t) o.large);
    memset(g_rbuf, 0, (size_t) o.large);

    if (0 == g_rank) {
        printf("# rabred_netmodel: p = %d on %d host(s); pair: rank 0 (%s) <-> rank %d (%s)%s\n",
               g_size, nhosts, g_names[0], g_partner, g_names[g_partner],
               0 == strcmp(g_names[0], g_names[g_partner]) ? ", same host" : "");
        printf("# median of %d samples of about %.0f ms each (at least one operation)\n",
               o.repeats, 1e3 * o.target_s);
        fflush(stdout);
    }

    if (o.quick) {
        const kind_t pp = K_PINGPONG;
        double t, spread;
        measure_row(&pp, 1, o.large, &o, &t, &spread);
        if (0 == g_rank) {
            printf("one-way bandwidth %.3f MB/s (%.1f Mbit/s), %ld B ping-pong, %.1f ms one way, "
                   "spread %.0f%%\n", o.large / t / 1e6, 8 * o.large / t / 1e6, o.large, 1e3 * t,
                   100 * spread);
        }
    } else {
        long sizes[MAX_SIZES];
        int nsizes = 0;
        /* 16 KiB and 64 KiB straddle the TCP BTL's eager limit (64 KiB). */
        const long mids[] = { 1024, 16384, 65536, 262144, 1L << 20 };
        sizes[nsizes++] = o.small;
        for (int i = 0; i < (int) (sizeof(mids) / sizeof(mids[0])); i++) {
            if (mids[i] > o.small && mids[i] < o.large) {
                sizes[nsizes++] = mids[i];
            }
        }
        sizes[nsizes++] = o.large;

        const int have_ring = g_size >= 3;
        const kind_t kinds[K_NKINDS] = { K_PINGPONG, K_EXCHANGE, K_RING };
        double t[MAX_SIZES][K_NKINDS], spread[MAX_SIZES];
        for (int s = 0; s < nsizes; s++) {
            t[s][K_RING] = 0.0;
            measure_row(kinds, have_ring ? 3 : 2, sizes[s], &o, t[s], &spread[s]);
        }
        double gamma = measure_gamma(&o, 0);
        double gamma_all = measure_gamma(&o, 1);
        if (0 == g_rank) {
            report(&o, nhosts, sizes, nsizes, t, spread, have_ring, gamma, gamma_all);
        }
    }

    free(g_sbuf);
    free(g_rbuf);
    free(g_names);
    MPI_Finalize();
    return 0;
}
