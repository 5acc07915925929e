/*
 * rabred-tune: find the fastest MPI_Allreduce / MPI_Reduce algorithm per
 * message size on this machine, under the user's own mpirun line, and write
 * rules files for rabred and for coll/tuned plus a speedup report.
 *
 *   mpirun -np 6 --mca coll rabred,tuned,basic,libnbc rabred-tune --out DIR
 *
 * What is measured.  Every item of the MPI_T enum control variables
 * coll_rabred_allreduce_algorithm / coll_rabred_reduce_algorithm except
 * "auto": each rabred algorithm forced, and "previous", the coll component
 * below rabred (coll/tuned's default decision with the line above), which is
 * the baseline ("tuned default") and may win too.  MPI_DOUBLE and MPI_SUM by
 * default; --noncommutative uses a user op that also adds but is declared
 * non-commutative, so only rank-order-keeping algorithms run and the rules
 * say commutative=no (rules measured with MPI_SUM say commutative=yes).  An
 * algorithm whose table restrictions the call violates (count < p',
 * commutative op needed) is skipped; an MPI_T call counter proves that each
 * measured call was served by the algorithm it is filed under.
 *
 * How an algorithm is switched: all ranks write the same value to the cvar
 * (and to coll_rabred_segment_size), then a barrier; rabred reads both at
 * every call, so no call mixes algorithms across ranks.
 *
 * How one size is measured: every variant is checked against the closed-form
 * sum (a wrong result aborts: a fast wrong answer is not a result), its
 * iteration count calibrated to --target-ms, then --repeats rounds measure
 * all variants interleaved with a rotating start, and the median round is
 * kept.  A round's time is the slowest rank's time per call, gathered with
 * MPI_Gather, which rabred does not provide.  Rank 0 computes the medians and
 * broadcasts them; every decision below is a function of broadcast numbers
 * and pure computation, so all ranks take the same branch.
 *
 * How the search is pruned (the allreduce survey, Vadhiyar and Dongarra's tuner): coarse
 * sizes first (min, min*F, min*F^2, ..., max; F = --coarse, 8 by default),
 * then an interval between neighbouring measured sizes is bisected (in powers
 * of two) only while its ends disagree on the winner, both among all
 * algorithms and among those coll/tuned has; otherwise the winner is taken to
 * hold across the interval.  Winners within --margin of each other count as
 * equal, so noise does not trigger bisection.  For an algorithm whose plan
 * depends on the segment size (found by building its plans with the table's
 * builder, not by name) and within 1.5x of the fastest at that size,
 * coll_rabred_segment_size is searched by hill climbing over powers of two,
 * from the best value at the next smaller size (else the current setting),
 * until no neighbour is faster by the margin; then all algorithms are
 * measured together again at the sizes found.
 *
 * Output (rank 0 writes; see tools/README.md):
 *   rules.txt        rabred's named format, comm_size=P, msg_size ranges,
 *                    alg=, segsize= for segmented algorithms, commutative=
 *   rules-tuned.txt  coll/tuned's classic format, best among algorithms that
 *                    the loaded coll/tuned knows (MPI_T enum of
 *                    coll_tuned_<coll>_algorithm), "previous" written as 0
 *   speedup.md       per collective: chosen algorithm, its time, tuned
 *                    default's time and the speedup per measured size, all
 *                    measured times, and the segment-size searches.
 *
 * Exit status: 0 done, 1 failure (rabred not loaded, output not writable),
 * 2 bad command line, 3 wrong result (MPI_Abort).
 */
#include <mpi.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plan/rabred_plan.h"
#include "select/rabred_rules_write.h"
#include "algorithms/rabred_table.h"
#include "rabred_mpit.h"

#define PROG "rabred-tune"
#ifndef PACKAGE_VERSION /* configure defines it */
#define PACKAGE_VERSION "?"
#endif
#define ELEM ((int64_t)sizeof(double))
#define MAX_MSG_BYTES ((int64_t)1 << 30) /* two buffers of this size per rank */
#define QUICK_MAX_BYTES ((int64_t)256 << 10)
#define DEFAULT_MAX_BYTES ((int64_t)16 << 20)

enum {
    MAX_ALGS = 32,     /* enum items per collective */
    MAX_ITEMS = RABRED_TABLE_MAX + 2, /* items an algorithm enum can have: + auto, previous */
    NAME_LEN = 64,
    MAX_POINTS = 64,   /* measured sizes per collective: every power of two fits */
    MAX_REPEATS = 101,
    MAX_TRIES = 48,    /* segment sizes measured at one size */
    MAX_SEGS = 64,     /* candidate segment sizes at one size */
    MAX_COMM_SIZES = 32 /* communicator sizes per run */
};

/* Iterations per timed round: at least one call, at most 10^6 so an absurd
 * calibration cannot hang the run. */
enum { MAX_ITERS = 1000000 };

enum { EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_WRONG = 3 };

/* The segment size of a segmented algorithm is searched only when its time
 * at the start segment size is within this factor of the fastest (a pruning
 * choice, see search_segments). */
#define SEG_SEARCH_WITHIN 1.5

typedef struct {
    const char *out_dir;
    int do_coll[RABRED_NCOLLS];
    int64_t min_bytes, max_bytes;
    int repeats, coarse, max_sizes, noncommutative, quiet, quick, help;
    double target_s, margin;
    int comm_sizes[MAX_COMM_SIZES]; /* ascending; none given: the whole job */
    int ncomm_sizes, packed;        /* packed: the first ranks, not spread over nodes */
} options_t;

/* One enum item of the algorithm cvar. */
typedef struct {
    char name[NAME_LEN];
    int value;               /* enum value = table id, or RABRED_ALG_PREVIOUS */
    const rabred_alg_t *alg; /* NULL for previous (or an item this build lacks) */
    int is_previous;
    int tuned_ok;            /* may appear in rules-tuned.txt */
    int has_pvar;
    rabred_mpit_pvar_t pvar; /* calls served by this item */
} alg_t;

/* One measurement of the segment-size search. */
typedef struct {
    int alg;
    int64_t seg; /* bytes */
    double us;
} seg_try_t;

/* One measured size. */
typedef struct {
    int64_t bytes;
    int refined;               /* measured by bisection, not on the coarse grid */
    double us[MAX_ALGS];       /* median microseconds per call; < 0 not measured */
    double lo[MAX_ALGS], hi[MAX_ALGS]; /* fastest and slowest round */
    const char *skip[MAX_ALGS]; /* why not measured */
    int64_t seg[MAX_ALGS];     /* segment bytes found by the search; 0 none */
    seg_try_t tries[MAX_TRIES];
    int ntries;
} point_t;

typedef struct {
    rabred_coll_t coll;
    const char *mpi_name;
    rabred_mpit_cvar_t cvar;
    int orig_value;
    alg_t a[MAX_ALGS];
    int na, prev;             /* prev: index of "previous" */
    int tuned_checked;        /* tuned's enum was readable */
    point_t pts[MAX_POINTS];  /* sorted by bytes when the search ends */
    int npts;
    int chosen[MAX_POINTS], chosen_tuned[MAX_POINTS];
} coll_state_t;

/* One communicator size measured: its ranks, where they sit, and the
 * communicator sizes its rules serve. */
typedef struct {
    int size, nodes, ppn_min, ppn_max;
    int comm_min, comm_max, comm_max_classic;
    coll_state_t *colls[RABRED_NCOLLS]; /* NULL: not measured */
} comm_run_t;

typedef struct {
    comm_run_t runs[MAX_COMM_SIZES]; /* ascending sizes */
    int nruns;
    rabred_coll_t colls[RABRED_NCOLLS];
    int ncolls;
} report_t;

static struct {
    MPI_Comm comm;            /* the communicator being measured */
    int rank, size;           /* in it */
    int world_rank, world_size;
    int *node_of, *local_of;  /* each world rank's node (0 = rank 0's) and index on it */
    int nodes;
    options_t opt;
    double *sbuf, *rbuf;
    double *gathered;         /* p values gathered to rank 0 */
    MPI_Op op;
    MPI_T_pvar_session session;
    int have_seg_cvar;
    rabred_mpit_cvar_t seg_cvar;
    int default_seg;          /* coll_rabred_segment_size at start */
    char coll_list[256];      /* the "coll" MCA selection, "" unknown */
    int prev_is_tuned;
    int tty;
    int done, planned;        /* progress, in measured sizes */
    double t_start;
    char *cmdline;
} g;

/* ---- small helpers ----------------------------------------------------- */

static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, PROG ": rank %d: ", g.rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

/* An error every rank detects identically: rank 0 says it, all leave. */
static void fail_all(int code, const char *fmt, ...)
{
    if (0 == g.rank) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, PROG ": error: ");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    MPI_Finalize();
    exit(code);
}

static const char *fmt_bytes(int64_t b, char *buf, size_t len)
{
    if (b >= ((int64_t)1 << 30) && 0 == b % ((int64_t)1 << 30)) {
        snprintf(buf, len, "%lld GiB", (long long)(b >> 30));
    } else if (b >= ((int64_t)1 << 20) && 0 == b % ((int64_t)1 << 20)) {
        snprintf(buf, len, "%lld MiB", (long long)(b >> 20));
    } else if (b >= 1024 && 0 == b % 1024) {
        snprintf(buf, len, "%lld KiB", (long long)(b >> 10));
    } else {
        snprintf(buf, len, "%lld B", (long long)b);
    }
    return buf;
}

static int is_pow2(int64_t x)
{
    return x > 0 && 0 == (x & (x - 1));
}

static int log2i(int64_t x)
{
    int k = 0;
    while (x > 1) {
        x >>= 1;
        k++;
    }
    return k;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof(x[0]), cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* ---- options ----------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mpirun [mpirun options] " PROG " --out DIR [options]\n"
        "\n"
        "Measures every rabred algorithm and \"previous\" (the coll component below\n"
        "rabred: coll/tuned's default decision under --mca coll rabred,tuned,basic,libnbc)\n"
        "for MPI_Allreduce and MPI_Reduce, MPI_DOUBLE, MPI_SUM, and writes\n"
        "DIR/rules.txt (rabred's format), DIR/rules-tuned.txt (coll/tuned's classic\n"
        "format) and DIR/speedup.md.\n"
        "\n"
        "  --out DIR         output directory, created if missing (required)\n"
        "  --coll C          allreduce, reduce or both                      [both]\n"
        "  --min-bytes N     smallest size, bytes per rank, power of two >= 8  [8]\n"
        "  --max-bytes N     largest size, power of two <= 1G                [16M]\n"
        "  --coarse F        factor between coarse sizes, power of two >= 2    [8]\n"
        "  --max-sizes N     measure at most N sizes per collective (the coarse\n"
        "                    sizes always; bisection stops there)   [no limit]\n"
        "  --repeats N       interleaved rounds per size, median kept, 1..%d  [7]\n"
        "  --target-ms T     length of one timed round of one algorithm     [20]\n"
        "  --margin PCT      times within PCT percent count as equal, 0..50  [3]\n"
        "  --noncommutative  measure with a user op declared non-commutative\n"
        "                    (rules then say commutative=no)\n"
        "  --quick           CI preset: --max-bytes 256K --coarse 32 --repeats 3\n"
        "                    --target-ms 2 --max-sizes 6 (explicit options win)\n"
        "  --comm-sizes L    communicator sizes to measure, each in 2..ranks, e.g.\n"
        "                    4,8,16, or pow2 (2, 4, 8, ... and all ranks); the\n"
        "                    rules of a size serve it up to the next     [all ranks]\n"
        "  --placement P     spread: a size's ranks come evenly from every node\n"
        "                    (rank 0's first); packed: the first ranks  [spread]\n"
        "  --quiet           no progress on stderr\n"
        "  -h, --help        this text\n"
        "  --version         print the version\n"
        "\n"
        "Sizes take K, M or G (powers of 1024). Exit status: 0 done, 1 failure,\n"
        "2 bad command line, 3 wrong result.\n",
        MAX_REPEATS);
}

static int usage_error(const char *fmt, ...)
{
    if (0 == g.rank) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, PROG ": ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n(" PROG " --help for usage)\n");
        va_end(ap);
    }
    return EXIT_USAGE;
}

static int parse_int(const char *flag, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || '\0' != *end || 0 != errno || v < lo || v > hi) {
        return usage_error("%s: expected an integer in %ld..%ld, got '%s'", flag, lo, hi, s);
    }
    *out = v;
    return 0;
}

/* Bytes with an optional K, M or G suffix; a power of two in 8 .. 1G. */
static int parse_size(const char *flag, const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    int shift = 0;
    if ('K' == *end || 'k' == *end) {
        shift = 10;
    } else if ('M' == *end || 'm' == *end) {
        shift = 20;
    } else if ('G' == *end || 'g' == *end) {
        shift = 30;
    }
    end += shift ? 1 : 0;
    if (end == s || '\0' != *end || 0 != errno || v <= 0 || v > MAX_MSG_BYTES >> shift) {
        return usage_error("%s: expected a size in bytes (8 .. 1G, suffix K, M or G), got '%s'",
                           flag, s);
    }
    int64_t b = (int64_t)v << shift;
    if (!is_pow2(b) || b < ELEM) {
        return usage_error("%s: %s is not a power of two >= 8 bytes (sizes are bisected in "
                           "powers of two; 8 bytes is one double)", flag, s);
    }
    *out = b;
    return 0;
}

enum {
    O_OUT, O_COLL, O_MIN, O_MAX, O_COARSE, O_MAXSIZES, O_REPEATS, O_TARGET, O_MARGIN,
    O_NONCOMM, O_QUICK, O_QUIET, O_HELP, O_VERSION, O_COMM_SIZES, O_PLACEMENT
};

static const struct {
    const char *name, *alias;
    int id, has_arg;
} options[] = {
    {"--out", NULL, O_OUT, 1},           {"--coll", NULL, O_COLL, 1},
    {"--min-bytes", NULL, O_MIN, 1},     {"--max-bytes", NULL, O_MAX, 1},
    {"--coarse", NULL, O_COARSE, 1},     {"--max-sizes", NULL, O_MAXSIZES, 1},
    {"--repeats", NULL, O_REPEATS, 1},   {"--target-ms", NULL, O_TARGET, 1},
    {"--margin", NULL, O_MARGIN, 1},     {"--noncommutative", NULL, O_NONCOMM, 0},
    {"--quick", NULL, O_QUICK, 0},       {"--quiet", NULL, O_QUIET, 0},
    {"--help", "-h", O_HELP, 0},         {"--version", NULL, O_VERSION, 0},
    {"--comm-sizes", NULL, O_COMM_SIZES, 1}, {"--placement", NULL, O_PLACEMENT, 1},
};

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* "4,8,16" or "pow2" (2, 4, 8, ... and the job's size): communicator sizes
 * from 2 up to the job's size, sorted, each once. */
static int parse_comm_sizes(const char *v, options_t *o)
{
    int n = 0, list = 0 != strcmp(v, "pow2");
    if (!list) {
        for (int q = 2; q < g.world_size && n < MAX_COMM_SIZES - 1; q *= 2) {
            o->comm_sizes[n++] = q;
        }
        o->comm_sizes[n++] = g.world_size;
    }
    for (const char *s = v; list;) {
        char *end;
        errno = 0;
        long q = strtol(s, &end, 10);
        if (end == s || 0 != errno || q < 2 || q > g.world_size || (',' != *end && '\0' != *end)) {
            return usage_error("--comm-sizes: expected sizes in 2..%d (the job's ranks) separated "
                               "by commas, or pow2; got '%s'", g.world_size, v);
        }
        if (n >= MAX_COMM_SIZES) {
            return usage_error("--comm-sizes: at most %d sizes", MAX_COMM_SIZES);
        }
        o->comm_sizes[n++] = (int)q;
        if ('\0' == *end) {
            break;
        }
        s = end + 1;
    }
    qsort(o->comm_sizes, (size_t)n, sizeof(int), cmp_int);
    o->ncomm_sizes = 0;
    for (int i = 0; i < n; i++) {
        if (0 == i || o->comm_sizes[i] != o->comm_sizes[i - 1]) {
            o->comm_sizes[o->ncomm_sizes++] = o->comm_sizes[i];
        }
    }
    return 0;
}

static int apply_option(options_t *o, int id, const char *flag, const char *v)
{
    long x = 0;
    int rc = 0;
    switch (id) {
    case O_OUT:
        if ('\0' == *v) {
            return usage_error("--out: empty directory name");
        }
        o->out_dir = v;
        break;
    case O_COLL:
        if (0 != strcmp(v, "allreduce") && 0 != strcmp(v, "reduce") && 0 != strcmp(v, "both")) {
            return usage_error("--coll: expected allreduce, reduce or both, got '%s'", v);
        }
        o->do_coll[RABRED_COLL_ALLREDUCE] = 0 != strcmp(v, "reduce");
        o->do_coll[RABRED_COLL_REDUCE] = 0 != strcmp(v, "allreduce");
        break;
    case O_MIN: rc = parse_size(flag, v, &o->min_bytes); break;
    case O_MAX: rc = parse_size(flag, v, &o->max_bytes); break;
    case O_COARSE:
        rc = parse_int(flag, v, 2, 1 << 20, &x);
        if (0 == rc && !is_pow2(x)) {
            rc = usage_error("--coarse: %ld is not a power of two", x);
        }
        o->coarse = (int)x;
        break;
    case O_MAXSIZES: rc = parse_int(flag, v, 1, MAX_POINTS, &x); o->max_sizes = (int)x; break;
    case O_REPEATS: rc = parse_int(flag, v, 1, MAX_REPEATS, &x); o->repeats = (int)x; break;
    case O_TARGET: rc = parse_int(flag, v, 1, 10000, &x); o->target_s = x / 1000.0; break;
    case O_MARGIN: rc = parse_int(flag, v, 0, 50, &x); o->margin = x / 100.0; break;
    case O_NONCOMM: o->noncommutative = 1; break;
    case O_QUICK: o->quick = 1; break;
    case O_QUIET: o->quiet = 1; break;
    case O_HELP: o->help = 1; break;
    case O_VERSION: o->help = 2; break; /* help 2: the version */
    case O_COMM_SIZES: rc = parse_comm_sizes(v, o); break;
    case O_PLACEMENT:
        if (0 != strcmp(v, "spread") && 0 != strcmp(v, "packed")) {
            return usage_error("--placement: expected spread or packed, got '%s'", v);
        }
        o->packed = 0 == strcmp(v, "packed");
        break;
    }
    return rc;
}

/* Finds argv[i]'s option; "--flag value" and "--flag=value" both work. */
static int find_option(const char *arg, const char **eq_value)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq && '-' == arg[0] ? (size_t)(eq - arg) : strlen(arg);
    *eq_value = eq && '-' == arg[0] ? eq + 1 : NULL;
    for (size_t k = 0; k < sizeof(options) / sizeof(options[0]); k++) {
        const char *a = options[k].alias;
        if ((strlen(options[k].name) == len && 0 == strncmp(arg, options[k].name, len)) ||
            (a && strlen(a) == len && 0 == strncmp(arg, a, len))) {
            return (int)k;
        }
    }
    return -1;
}

/* Two passes: --quick sets defaults first, so explicit options win whatever
 * their order. */
static int parse_args(int argc, char **argv, options_t *o)
{
    const options_t defaults = {NULL, {1, 1}, ELEM, DEFAULT_MAX_BYTES, 7, 8, 0, 0, 0, 0, 0,
                                0.020, 0.03, {0}, 0, 0};
    *o = defaults;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 1; i < argc; i++) {
            const char *value;
            int k = find_option(argv[i], &value);
            if (k < 0) {
                return usage_error("unknown option '%s'", argv[i]);
            }
            if (options[k].has_arg && NULL == value) {
                if (i + 1 >= argc) {
                    return usage_error("%s needs a value", options[k].name);
                }
                value = argv[++i];
            } else if (!options[k].has_arg && NULL != value) {
                return usage_error("%s takes no value", options[k].name);
            }
            int quick_pass = O_QUICK == options[k].id || O_HELP == options[k].id ||
                             O_VERSION == options[k].id;
            if ((0 == pass) == quick_pass) {
                int rc = apply_option(o, options[k].id, options[k].name, value);
                if (rc) {
                    return rc;
                }
            }
        }
        if (0 == pass && o->quick) {
            o->max_bytes = QUICK_MAX_BYTES;
            o->coarse = 32;
            o->repeats = 3;
            o->target_s = 0.002;
            o->max_sizes = 6;
        }
    }
    if (o->help) {
        return 0;
    }
    if (NULL == o->out_dir) {
        return usage_error("--out DIR is required (where rules.txt, rules-tuned.txt and "
                           "speedup.md go)");
    }
    if (0 == o->ncomm_sizes) {
        o->comm_sizes[o->ncomm_sizes++] = g.world_size;
    }
    if (o->min_bytes > o->max_bytes) {
        return usage_error("--min-bytes (%lld) is larger than --max-bytes (%lld)",
                           (long long)o->min_bytes, (long long)o->max_bytes);
    }
    return 0;
}

/* ---- MPI_T: the algorithm enums, call counters, segment size ----------- */

static void cvar_write(const rabred_mpit_cvar_t *cv, int value, const char *what)
{
    int rc = rabred_mpit_cvar_write_int(cv, value);
    if (MPI_SUCCESS != rc) {
        die(EXIT_FAIL, "MPI_T_cvar_write(%s = %d) failed (error %d; is it registered "
            "MCA_BASE_VAR_FLAG_SETTABLE?)", what, value, rc);
    }
}

/* The coll component list ("coll" MCA variable, a string), to tell whether
 * "previous" is coll/tuned.  Left empty when unreadable. */
static void read_coll_list(void)
{
    rabred_mpit_cvar_t cv;
    g.coll_list[0] = '\0';
    if (MPI_SUCCESS == rabred_mpit_cvar_find("coll", &cv) && MPI_CHAR == cv.datatype &&
        MPI_SUCCESS == rabred_mpit_cvar_open(&cv)) {
        rabred_mpit_cvar_read_string(&cv, g.coll_list, sizeof(g.coll_list));
    }
    rabred_mpit_cvar_close(&cv);
}

/* coll/tuned's own algorithm ids for this collective, from its enum cvar:
 * an id rabred's table maps to but this Open MPI's tuned lacks (Open MPI 4.1
 * has no allreduce rabenseifner, id 6) would make tuned fail the call, so
 * rules-tuned.txt may only use ids listed here.  Returns 0 when tuned is not
 * loaded. */
static int tuned_ids_known(rabred_coll_t coll, int *ids, int *nids)
{
    char name[NAME_LEN];
    rabred_mpit_cvar_t cv;
    rabred_mpit_item_t items[MAX_ALGS];
    int nitems;
    snprintf(name, sizeof(name), "coll_tuned_%s_algorithm", rabred_coll_name(coll));
    *nids = 0;
    if (MPI_SUCCESS != rabred_mpit_cvar_find(name, &cv) || MPI_T_ENUM_NULL == cv.enumtype ||
        MPI_SUCCESS != rabred_mpit_enum_items(cv.enumtype, items, MAX_ALGS, &nitems)) {
        return 0;
    }
    for (int i = 0; i < nitems && i < MAX_ALGS; i++) {
        if (MPI_SUCCESS == items[i].rc) {
            ids[(*nids)++] = items[i].value;
        }
    }
    return 1;
}

static void attach_pvar(coll_state_t *c, alg_t *a)
{
    char name[2 * NAME_LEN];
    snprintf(name, sizeof(name), "coll_rabred_%s_%s_calls", rabred_coll_name(c->coll), a->name);
    a->has_pvar = MPI_SUCCESS == rabred_mpit_pvar_find(name, MPI_T_PVAR_CLASS_COUNTER, &a->pvar) &&
                  MPI_SUCCESS == rabred_mpit_pvar_open(g.session, &a->pvar) && 1 == a->pvar.count;
}

/* Which items may go into rules-tuned.txt: those whose tuned id (the one the
 * writer uses, tuned_ids[0]) the loaded coll/tuned has, and "previous" when
 * it is coll/tuned (written as 0, tuned's own decision). */
static void mark_tuned(coll_state_t *c)
{
    int ids[MAX_ALGS], nids;
    c->tuned_checked = tuned_ids_known(c->coll, ids, &nids);
    for (int k = 0; k < c->na; k++) {
        alg_t *a = &c->a[k];
        if (a->is_previous) {
            a->tuned_ok = g.prev_is_tuned;
            continue;
        }
        int id = NULL != a->alg ? a->alg->tuned_ids[0] : 0;
        a->tuned_ok = 0 != id;
        if (a->tuned_ok && c->tuned_checked) {
            a->tuned_ok = 0;
            for (int i = 0; i < nids; i++) {
                a->tuned_ok |= ids[i] == id;
            }
        }
    }
}

/* Reads the algorithm enum: every item but "auto", "previous" first. */
static void load_algs(coll_state_t *c, MPI_T_enum et, const char *cvar)
{
    rabred_mpit_item_t items[MAX_ITEMS];
    int nitems;
    if (MPI_SUCCESS != rabred_mpit_enum_items(et, items, MAX_ITEMS, &nitems)) {
        fail_all(EXIT_FAIL, "MPI_T_enum_get_info failed for %s", cvar);
    }
    c->na = 1;
    c->prev = -1;
    for (int i = 0; i < nitems && i < MAX_ITEMS; i++) {
        alg_t tmp = {0};
        if (MPI_SUCCESS != items[i].rc) {
            fail_all(EXIT_FAIL, "MPI_T_enum_get_item failed for %s", cvar);
        }
        tmp.value = items[i].value;
        snprintf(tmp.name, sizeof(tmp.name), "%s", items[i].name);
        tmp.is_previous = 0 == strcmp(tmp.name, "previous");
        if (0 == strcmp(tmp.name, "auto") || (!tmp.is_previous && c->na >= MAX_ALGS)) {
            continue;
        }
        tmp.alg = tmp.is_previous ? NULL : rabred_table_by_name(c->coll, tmp.name);
        if (NULL != tmp.alg && tmp.alg->arrival_aware) {
            continue; /* made for imbalanced arrival: with everyone on time
                       * (as here) the ring or slower, and rules for the
                       * balanced case must not name them */
        }
        if (tmp.is_previous) {
            c->a[0] = tmp;
            c->prev = 0;
        } else {
            c->a[c->na++] = tmp;
        }
    }
    if (c->prev < 0) {
        fail_all(EXIT_FAIL, "%s has no \"previous\" item: is this rabred?", cvar);
    }
    for (int k = 0; k < c->na; k++) {
        attach_pvar(c, &c->a[k]);
    }
    mark_tuned(c);
}

static void open_coll(coll_state_t *c)
{
    char cvar[NAME_LEN];
    rabred_mpit_cvar_t *cv = &c->cvar;
    snprintf(cvar, sizeof(cvar), "coll_rabred_%s_algorithm", rabred_coll_name(c->coll));
    int rc = rabred_mpit_cvar_find(cvar, cv);
    if (cv->index < 0) {
        fail_all(EXIT_FAIL, "control variable %s not found: rabred is not loaded (list "
                 "rabred in --mca coll, e.g. rabred,tuned,basic,libnbc, and put "
                 "mca_coll_rabred.so on mca_base_component_path; scripts/mpirun-rabred.sh "
                 "does both for a build tree)", cvar);
    }
    if (MPI_SUCCESS != rc || MPI_T_ENUM_NULL == cv->enumtype || MPI_INT != cv->datatype) {
        fail_all(EXIT_FAIL, "control variable %s is not an integer enum", cvar);
    }
    if (rabred_mpit_cvar_read_only(cv)) {
        fail_all(EXIT_FAIL, "control variable %s is read-only", cvar);
    }
    if (MPI_SUCCESS != rabred_mpit_cvar_open(cv) || 1 != cv->count ||
        MPI_SUCCESS != rabred_mpit_cvar_read_int(cv, &c->orig_value)) {
        fail_all(EXIT_FAIL, "cannot open control variable %s", cvar);
    }
    load_algs(c, cv->enumtype, cvar);
}

/* coll_rabred_segment_size: without it (an older rabred) the segmented
 * algorithms are measured at their default only. */
static void open_segment_cvar(void)
{
    rabred_mpit_cvar_t *cv = &g.seg_cvar;
    g.have_seg_cvar = MPI_SUCCESS == rabred_mpit_cvar_find("coll_rabred_segment_size", cv) &&
                      MPI_SUCCESS == rabred_mpit_cvar_open(cv) && 1 == cv->count &&
                      MPI_SUCCESS == rabred_mpit_cvar_read_int(cv, &g.default_seg);
    if (!g.have_seg_cvar) {
        g.default_seg = 0;
    }
}

/* ---- the measured call and its check ----------------------------------- */

/* Adds like MPI_SUM but is created non-commutative, so the library must
 * combine in rank order (--noncommutative).  The same closed form checks it;
 * rank order itself is tested by test/mpi/test_mpi_correctness. */
static void noncommutative_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const double *a = in;
    double *b = inout;
    for (int i = 0; i < *len; i++) {
        b[i] = a[i] + b[i];
    }
}

static int run_coll(const coll_state_t *c, int count)
{
    if (RABRED_COLL_ALLREDUCE == c->coll) {
        return MPI_Allreduce(g.sbuf, g.rbuf, count, MPI_DOUBLE, g.op, g.comm);
    }
    return MPI_Reduce(g.sbuf, g.rbuf, count, MPI_DOUBLE, g.op, 0, g.comm);
}

/* Input rank + i: the sum over ranks is p*i + p(p-1)/2, an integer below
 * 2^53 for every size allowed, so any summation order gives it exactly. */
static void fill_input(int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        g.sbuf[i] = (double)g.rank + (double)i;
    }
}

/* Every rank's flag to rank 0, which ANDs them and broadcasts the answer. */
static int all_true(int mine)
{
    double flag = mine ? 1.0 : 0.0;
    int all = 1;
    MPI_Gather(&flag, 1, MPI_DOUBLE, g.gathered, 1, MPI_DOUBLE, 0, g.comm);
    if (0 == g.rank) {
        for (int r = 0; r < g.size; r++) {
            all &= 0.0 != g.gathered[r];
        }
    }
    MPI_Bcast(&all, 1, MPI_INT, 0, g.comm);
    return all;
}

static unsigned long long counter(const alg_t *a)
{
    unsigned long long v = 0;
    if (a->has_pvar && MPI_SUCCESS != rabred_mpit_pvar_read_counter(&a->pvar, &v)) {
        die(EXIT_FAIL, "MPI_T_pvar_read of the %s call counter failed", a->name);
    }
    return v;
}

/* One call, checked against the closed form (a wrong result aborts the run).
 * Returns whether every rank's call was served by `a` itself: rabred falls
 * back when a restriction is violated, and a time filed under the wrong
 * algorithm would be a wrong result too. */
static int verify(const coll_state_t *c, const alg_t *a, int count)
{
    const double base = (double)g.size * (g.size - 1) / 2.0;
    for (int i = 0; i < count; i++) {
        g.rbuf[i] = -1.0;
    }
    unsigned long long before = counter(a);
    int rc = run_coll(c, count);
    if (MPI_SUCCESS != rc) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        die(EXIT_WRONG, "%s with %s, %d doubles, returned an error: %s", c->mpi_name, a->name,
            count, msg);
    }
    int served = !a->has_pvar || counter(a) > before;
    if (RABRED_COLL_ALLREDUCE == c->coll || 0 == g.rank) {
        for (int i = 0; i < count; i++) {
            double want = (double)g.size * i + base;
            if (g.rbuf[i] != want) {
                die(EXIT_WRONG, "WRONG RESULT: %s with %s, %d doubles: element %d is %.17g, "
                    "expected %.17g", c->mpi_name, a->name, count, i, g.rbuf[i], want);
            }
        }
    }
    return all_true(served);
}

/* ---- timing ------------------------------------------------------------ */

typedef struct {
    int alg;      /* index into coll_state_t.a */
    int64_t seg;  /* coll_rabred_segment_size for this variant, bytes */
} variant_t;

/* Every rank writes the same values, then a barrier: no call may start
 * under the previous setting. */
static void select_variant(const coll_state_t *c, const variant_t *v)
{
    cvar_write(&c->cvar, c->a[v->alg].value, c->a[v->alg].name);
    if (g.have_seg_cvar) {
        cvar_write(&g.seg_cvar, (int)v->seg, "coll_rabred_segment_size");
    }
    MPI_Barrier(g.comm);
}

/* Seconds per call of the slowest rank, on rank 0 (0 elsewhere). */
static double time_calls(const coll_state_t *c, int count, int iters)
{
    double max = 0;
    MPI_Barrier(g.comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (MPI_SUCCESS != run_coll(c, count)) {
            die(EXIT_WRONG, "%s failed while being timed", c->mpi_name);
        }
    }
    double t = (MPI_Wtime() - t0) / iters;
    MPI_Gather(&t, 1, MPI_DOUBLE, g.gathered, 1, MPI_DOUBLE, 0, g.comm);
    for (int r = 0; 0 == g.rank && r < g.size; r++) {
        max = g.gathered[r] > max ? g.gathered[r] : max;
    }
    return max;
}

/* Iterations per round: grow by 8 until a run lasts a tenth of the target,
 * then scale to the target.  Rank 0 decides, all follow. */
static int calibrate(const coll_state_t *c, int count)
{
    int state[2] = {0, 1}; /* done, iterations */
    while (!state[0]) {
        double t = time_calls(c, count, state[1]);
        if (0 == g.rank) {
            if (t * state[1] < g.opt.target_s / 10 && state[1] < MAX_ITERS / 8) {
                state[1] *= 8;
            } else {
                double want = t > 0 ? g.opt.target_s / t : MAX_ITERS;
                state[0] = 1;
                state[1] = want < 1 ? 1 : want > MAX_ITERS ? MAX_ITERS : (int)want;
            }
        }
        MPI_Bcast(state, 2, MPI_INT, 0, g.comm);
    }
    return state[1];
}

/* Measures nv variants at one size: each is checked and calibrated, then
 * timed in `repeats` interleaved rounds; round r starts at variant r, so no
 * variant always runs first (right after the switch).  us[k] gets rank 0's
 * median in microseconds per call (broadcast: every rank holds the same
 * bits), or -1 when rabred did not serve the variant with its algorithm;
 * lo[k] and hi[k] (when not NULL) the fastest and the slowest round. */
static void measure(const coll_state_t *c, int count, const variant_t *v, int nv, double *us,
                    double *lo, double *hi)
{
    static double samples[MAX_ALGS][MAX_REPEATS];
    int iters[MAX_ALGS], served[MAX_ALGS];
    for (int k = 0; k < nv; k++) {
        select_variant(c, &v[k]);
        served[k] = verify(c, &c->a[v[k].alg], count);
        iters[k] = served[k] ? calibrate(c, count) : 0;
    }
    for (int r = 0; r < g.opt.repeats; r++) {
        for (int j = 0; j < nv; j++) {
            int k = (r + j) % nv;
            if (served[k]) {
                select_variant(c, &v[k]);
                samples[k][r] = time_calls(c, count, iters[k]);
            }
        }
    }
    double stats[3][MAX_ALGS];
    for (int k = 0; k < nv; k++) {
        int ok = served[k] && 0 == g.rank;
        stats[0][k] = ok ? 1e6 * median(samples[k], g.opt.repeats) : -1.0;
        /* median() sorted the samples */
        stats[1][k] = ok ? 1e6 * samples[k][0] : -1.0;
        stats[2][k] = ok ? 1e6 * samples[k][g.opt.repeats - 1] : -1.0;
    }
    MPI_Bcast(stats, 3 * MAX_ALGS, MPI_DOUBLE, 0, g.comm);
    for (int k = 0; k < nv; k++) {
        us[k] = stats[0][k];
        if (NULL != lo) {
            lo[k] = stats[1][k];
            hi[k] = stats[2][k];
        }
    }
}

/* The spread of a measurement's rounds, (slowest - fastest) / median. */
static double spread(const point_t *pt, int k)
{
    return pt->us[k] > 0 ? (pt->hi[k] - pt->lo[k]) / pt->us[k] : 0.0;
}

/* ---- progress ---------------------------------------------------------- */

/* Seconds left, from the mean time of the sizes done so far (bisection
 * steps are not planned: the estimate grows when they come); -1: unknown. */
static double eta_s(void)
{
    double spent = MPI_Wtime() - g.t_start;
    return g.done > 0 && g.planned > g.done ? spent / g.done * (g.planned - g.done)
           : g.planned > g.done             ? -1.0
                                            : 0.0;
}

/* On a terminal one bar, redrawn; otherwise one line per measured size (a
 * log file should not fill with carriage returns).  Rank 0 only. */
static void progress_status(const coll_state_t *c, int64_t bytes, const char *what)
{
    char b[32];
    if (0 != g.rank || g.opt.quiet || !g.tty) {
        return;
    }
    const int width = 30;
    int fill = g.planned > 0 ? width * g.done / g.planned : 0;
    char bar[width + 1];
    for (int i = 0; i < width; i++) {
        bar[i] = i < fill ? '#' : '.';
    }
    bar[width] = '\0';
    double eta = eta_s();
    fprintf(stderr, "\r\033[K[%s] %d/%d  p=%d %s %s: %s  %.0f s, ETA %s%.0f s", bar, g.done,
            g.planned, g.size, rabred_coll_name(c->coll), fmt_bytes(bytes, b, sizeof(b)), what,
            MPI_Wtime() - g.t_start, eta < 0 ? "?" : "", eta < 0 ? 0.0 : eta);
    fflush(stderr);
}

static void progress_done(const coll_state_t *c, const point_t *pt, int best)
{
    char b[32];
    g.done++;
    if (0 != g.rank || g.opt.quiet) {
        return;
    }
    if (g.tty) {
        progress_status(c, pt->bytes, "done");
        return;
    }
    double tuned = pt->us[c->prev];
    fprintf(stderr, PROG ": [%d/%d] p=%d %s %s%s: fastest %s %.2f us (±%.0f%%), %s %.2f us "
                    "(%.2fx), %.0f s, ETA %.0f s\n",
            g.done, g.planned, g.size, rabred_coll_name(c->coll), fmt_bytes(pt->bytes, b, sizeof(b)),
            pt->refined ? " (bisection)" : "", best >= 0 ? c->a[best].name : "-",
            best >= 0 ? pt->us[best] : 0.0, best >= 0 ? 50 * spread(pt, best) : 0.0,
            g.prev_is_tuned ? "tuned default" : "previous", tuned,
            best >= 0 && pt->us[best] > 0 ? tuned / pt->us[best] : 0.0,
            MPI_Wtime() - g.t_start, eta_s() > 0 ? eta_s() : 0.0);
}

/* ---- the search -------------------------------------------------------- */

static int measured(const point_t *pt, int k)
{
    return pt->us[k] >= 0;
}

/* Fastest measured item at a point among those `mask` admits (-1: none). */
static int fastest(const coll_state_t *c, const point_t *pt, int tuned_only)
{
    int best = -1;
    for (int k = 0; k < c->na; k++) {
        if (measured(pt, k) && (!tuned_only || c->a[k].tuned_ok) &&
            (best < 0 || pt->us[k] < pt->us[best])) {
            best = k;
        }
    }
    return best;
}

/* Is item k at point pt within the margin of the fastest there? */
static int near_best(const point_t *pt, int k, int best)
{
    return k >= 0 && best >= 0 && measured(pt, k) &&
           pt->us[k] <= (1.0 + g.opt.margin) * pt->us[best];
}

/* Plan shape of one rank: rounds and transfers, enough to tell the plans of
 * one algorithm at two segment sizes apart.  -1 when the build fails. */
static int64_t plan_shape(const rabred_alg_t *alg, rabred_plan_args_t *args, rabred_plan_t *plan)
{
    if (RABRED_OK != rabred_plan_build(alg->build, args, plan)) {
        return -1;
    }
    return ((int64_t)plan->nrounds << 32) | (uint32_t)plan->nxfers;
}

/* The segment sizes that give distinct plans of item a at this count:
 * powers of two from one element up to the first that holds a whole block;
 * sizes that build the same plan (below the builder's segment cap, or one
 * segment per block) are one candidate, the largest of them.  Found with the
 * table's builder, so no algorithm is special-cased by name.  Returns the
 * number of candidates; below 2 the algorithm does not depend on the
 * segment size here. */
static int seg_candidates(const coll_state_t *c, const alg_t *a, int64_t count, int64_t *segs)
{
    if (NULL == a->alg || NULL == a->alg->build || !g.have_seg_cvar) {
        return 0;
    }
    rabred_plan_args_t args = {g.size, 0, RABRED_COLL_REDUCE == c->coll ? 0 : -1, count,
                               !g.opt.noncommutative, 0, NULL, 0, NULL};
    rabred_plan_t plan;
    rabred_plan_init(&plan);
    int64_t unsegmented = plan_shape(a->alg, &args, &plan), last = -2;
    int n = 0;
    for (int64_t seg = 1; unsegmented >= 0 && n < MAX_SEGS; seg *= 2) {
        args.seg_count = seg;
        int64_t shape = plan_shape(a->alg, &args, &plan);
        if (shape < 0) {
            n = 0;
            break;
        }
        if (shape != last) {
            n++;
        }
        segs[n - 1] = seg * ELEM;
        last = shape;
        if (shape == unsegmented || seg >= count) {
            break;
        }
    }
    rabred_plan_free(&plan);
    return n;
}

static void record_try(point_t *pt, int alg, int64_t seg, double us)
{
    if (pt->ntries < MAX_TRIES) {
        pt->tries[pt->ntries++] = (seg_try_t){alg, seg, us};
    }
}

/* Measures the candidates at idx[0..n) of item k; times into us[]. */
static void measure_segs(const coll_state_t *c, point_t *pt, int k, int count,
                         const int64_t *segs, const int *idx, int n, double *us)
{
    variant_t v[3];
    for (int i = 0; i < n; i++) {
        v[i] = (variant_t){k, segs[idx[i]]};
    }
    measure(c, count, v, n, us, NULL, NULL);
    for (int i = 0; i < n; i++) {
        record_try(pt, k, segs[idx[i]], us[i]);
    }
}

static int faster(double candidate, double current)
{
    return candidate >= 0 && (current < 0 || candidate < (1.0 - g.opt.margin) * current);
}

/* The candidate whose plan a segment size of `start` bytes builds (0: one
 * segment per block, the last candidate). */
static int seg_index(const int64_t *segs, int n, int64_t start)
{
    int i = 0;
    while (i < n - 1 && (start <= 0 || segs[i] < start)) {
        i++;
    }
    return i;
}

/* Hill climbing on the segment size (the allreduce survey's local search) over the
 * candidates segs[0..n), from index cur: measure it and both neighbours,
 * then keep stepping in the better direction while the next candidate is
 * faster by the margin.  Returns the index kept. */
static int climb(coll_state_t *c, point_t *pt, int k, int count, const int64_t *segs, int n,
                 int cur)
{
    progress_status(c, pt->bytes, "segment size search");
    int idx[3] = {cur}, m = 1, best = 0;
    double us[3];
    if (cur > 0) {
        idx[m++] = cur - 1;
    }
    if (cur < n - 1) {
        idx[m++] = cur + 1;
    }
    measure_segs(c, pt, k, count, segs, idx, m, us);
    for (int i = 1; i < m; i++) {
        if (faster(us[i], us[0]) && (0 == best || us[i] < us[best])) {
            best = i;
        }
    }
    if (0 == best) {
        return cur;
    }
    int dir = idx[best] - cur;
    cur = idx[best];
    /* Onward in that direction; each step measures the current size again,
     * interleaved with the next, so the comparison sees the same noise. */
    while (cur + dir >= 0 && cur + dir < n) {
        idx[0] = cur;
        idx[1] = cur + dir;
        measure_segs(c, pt, k, count, segs, idx, 2, us);
        if (!faster(us[1], us[0])) {
            break;
        }
        cur += dir;
    }
    return cur;
}

/* Where the segment search starts: the size found at the nearest smaller
 * measured size (the allreduce survey: predict where the minimum lies), else the
 * current coll_rabred_segment_size (0: one segment per block). */
static int64_t start_seg(const coll_state_t *c, int64_t bytes, int k)
{
    int64_t best_bytes = 0, seg = g.default_seg;
    for (int i = 0; i < c->npts; i++) {
        const point_t *pt = &c->pts[i];
        if (pt->bytes < bytes && pt->bytes > best_bytes && pt->seg[k] > 0) {
            best_bytes = pt->bytes;
            seg = pt->seg[k];
        }
    }
    return seg;
}

/* Primary measurement: every item applicable at this size, segmented ones
 * at the start segment size; fills pt->us. */
static void measure_all(coll_state_t *c, point_t *pt, int count, const variant_t *v, int nv)
{
    double us[MAX_ALGS], lo[MAX_ALGS], hi[MAX_ALGS];
    measure(c, count, v, nv, us, lo, hi);
    for (int i = 0; i < nv; i++) {
        pt->us[v[i].alg] = us[i];
        pt->lo[v[i].alg] = lo[i];
        pt->hi[v[i].alg] = hi[i];
        pt->skip[v[i].alg] = us[i] < 0 ? "rabred fell back to another algorithm" : NULL;
    }
}

/* Secondary search: the segment size of each segmented item that is within
 * SEG_SEARCH_WITHIN of the fastest (a segment size will not rescue one far
 * behind, and at small sizes the search would only cost time).  Returns
 * whether any item's segment size changed. */
static int search_segments(coll_state_t *c, point_t *pt, int count, variant_t *v, int nv)
{
    int moved = 0, best = fastest(c, pt, 0);
    for (int i = 0; i < nv && best >= 0; i++) {
        int64_t segs[MAX_SEGS];
        int k = v[i].alg, n = seg_candidates(c, &c->a[k], count, segs);
        if (n < 2 || !measured(pt, k) || pt->us[k] > SEG_SEARCH_WITHIN * pt->us[best]) {
            continue;
        }
        int from = seg_index(segs, n, v[i].seg), to = climb(c, pt, k, count, segs, n, from);
        moved |= to != from;
        v[i].seg = pt->seg[k] = segs[to];
    }
    return moved;
}

/* One size: skip what the call's restrictions forbid, measure the rest
 * together, search segment sizes, and when one moved measure everything
 * together again, so the final comparison is one interleaved set. */
static void measure_point(coll_state_t *c, int64_t bytes, int refined)
{
    point_t *pt = &c->pts[c->npts++];
    const int count = (int)(bytes / ELEM);
    const rabred_call_t call = {g.size, count, !g.opt.noncommutative, NULL};
    variant_t v[MAX_ALGS] = {{0, 0}};
    int nv = 0;

    memset(pt, 0, sizeof(*pt));
    pt->bytes = bytes;
    pt->refined = refined;
    for (int k = 0; k < c->na; k++) {
        pt->us[k] = -1.0;
        pt->skip[k] = NULL != c->a[k].alg ? rabred_alg_violation(c->a[k].alg, &call) : NULL;
        if (NULL == pt->skip[k]) {
            v[nv++] = (variant_t){k, start_seg(c, bytes, k)};
        }
    }
    progress_status(c, bytes, "measuring");
    measure_all(c, pt, count, v, nv);
    if (search_segments(c, pt, count, v, nv)) {
        progress_status(c, bytes, "measuring again");
        measure_all(c, pt, count, v, nv);
    }
    progress_done(c, pt, fastest(c, pt, 0));
}

static const point_t *find_point(const coll_state_t *c, int64_t bytes)
{
    for (int i = 0; i < c->npts; i++) {
        if (c->pts[i].bytes == bytes) {
            return &c->pts[i];
        }
    }
    return NULL;
}

/* Do two measured sizes disagree on the winner, among all items or among
 * those coll/tuned has?  Winners within the margin of each other agree. */
static int needs_bisect(const coll_state_t *c, const point_t *a, const point_t *b)
{
    for (int tuned_only = 0; tuned_only < 2; tuned_only++) {
        int wa = fastest(c, a, tuned_only), wb = fastest(c, b, tuned_only);
        if (wa != wb && !near_best(b, wa, wb) && !near_best(a, wb, wa)) {
            return 1;
        }
    }
    return 0;
}

static int size_limit(void)
{
    return g.opt.max_sizes > 0 ? g.opt.max_sizes : MAX_POINTS;
}

/* Bisects [lo, hi] in powers of two while its ends disagree; otherwise the
 * winner is taken to hold across it (interpolation). */
static void bisect(coll_state_t *c, int64_t lo, int64_t hi)
{
    if (hi <= 2 * lo || c->npts >= size_limit() || c->npts >= MAX_POINTS ||
        !needs_bisect(c, find_point(c, lo), find_point(c, hi))) {
        return;
    }
    int64_t mid = lo << (log2i(hi / lo) / 2);
    g.planned++;
    measure_point(c, mid, 1);
    bisect(c, lo, mid);
    bisect(c, mid, hi);
}

/* min, min*F, min*F^2, ... below max, then max. */
static int coarse_sizes(int64_t *sizes)
{
    int n = 0;
    for (int64_t b = g.opt.min_bytes; b < g.opt.max_bytes && n < MAX_POINTS - 1;
         b *= g.opt.coarse) {
        sizes[n++] = b;
    }
    sizes[n++] = g.opt.max_bytes;
    return n;
}

static int cmp_point(const void *a, const void *b)
{
    int64_t x = ((const point_t *)a)->bytes, y = ((const point_t *)b)->bytes;
    return (x > y) - (x < y);
}

/* The rule for each measured size: the fastest, except that the previous
 * size's choice is kept while it stays within the margin, so noise between
 * near-equal algorithms does not split the rules. */
static void choose(const coll_state_t *c, int tuned_only, int *chosen)
{
    int prev = -1;
    for (int i = 0; i < c->npts; i++) {
        const point_t *pt = &c->pts[i];
        int best = fastest(c, pt, tuned_only);
        chosen[i] = near_best(pt, prev, best) ? prev : best;
        prev = chosen[i];
    }
}

static void tune_coll(coll_state_t *c)
{
    int64_t sizes[MAX_POINTS];
    int n = coarse_sizes(sizes);
    for (int i = 0; i < n; i++) {
        measure_point(c, sizes[i], 0);
    }
    for (int i = 0; i + 1 < n; i++) {
        bisect(c, sizes[i], sizes[i + 1]);
    }
    qsort(c->pts, (size_t)c->npts, sizeof(c->pts[0]), cmp_point);
    choose(c, 0, c->chosen);
    choose(c, 1, c->chosen_tuned);
}

/* ---- rules ------------------------------------------------------------- */

/* Appends one collective's rules for one communicator size: each measured
 * message size's choice holds from that size up to the next measured one
 * (the first from 0, the last without bound: tuned's own reading of its
 * msg-size entries); neighbours with the same algorithm and segment size
 * merge.  Named rules: the run's communicator sizes, commutative as
 * measured.  Classic rules: from the run's size up to the next measured
 * size, the last without bound (tuned's comm-size reading), and no
 * commutativity condition (tuned's format has none). */
static int add_rules(const comm_run_t *run, const coll_state_t *c, const int *chosen,
                     int classic, rabred_rules_t *r, int cap)
{
    for (int i = 0; i < c->npts; i++) {
        int k = chosen[i] >= 0 ? chosen[i] : c->prev;
        int id = c->a[k].is_previous ? RABRED_ALG_PREVIOUS : c->a[k].value;
        int64_t seg = c->pts[i].seg[k];
        rabred_rule_t *last = r->n > 0 ? &r->rules[r->n - 1] : NULL;
        if (i > 0 && NULL != last && last->alg_id == id && last->segsize == seg) {
            continue;
        }
        if (r->n >= cap) {
            return -1;
        }
        if (i > 0 && NULL != last) {
            last->msg_max = c->pts[i].bytes - 1;
        }
        rabred_rule_t rule = {c->coll, run->comm_min, classic ? run->comm_max_classic : run->comm_max,
                              0 == i ? 0 : c->pts[i].bytes, INT64_MAX,
                              classic ? -1 : !g.opt.noncommutative, id, seg, 0};
        r->rules[r->n++] = rule;
    }
    return 0;
}

static void header_common(FILE *f, const char *prefix)
{
    char when[64], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    time_t now = time(NULL);
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (NULL != nl) {
        *nl = '\0';
    }
    fprintf(f, "%sWritten by " PROG " on %s, %s\n", prefix, when, lib);
    fprintf(f, "%sjob: %d ranks on %d node%s; measured communicator sizes:", prefix,
            g.world_size, g.nodes, 1 == g.nodes ? "" : "s");
    for (int i = 0; i < g.opt.ncomm_sizes; i++) {
        fprintf(f, "%s %d", i ? "," : "", g.opt.comm_sizes[i]);
    }
    fprintf(f, " (ranks %s)\n", g.opt.packed ? "packed: the first ranks of the job"
                                             : "spread evenly over the nodes");
    fprintf(f, "%scommand: %s\n", prefix, g.cmdline);
    fprintf(f, "%scoll components: %s; \"previous\" = the component below rabred%s\n", prefix,
            g.coll_list[0] ? g.coll_list : "(not set: Open MPI's default selection)",
            g.prev_is_tuned ? " (coll/tuned)" : " (NOT coll/tuned)");
    fprintf(f, "%sMPI_DOUBLE, %s; median of %d interleaved rounds of about %.0f ms per algorithm\n",
            prefix, g.opt.noncommutative ? "a non-commutative user op (adds)" : "MPI_SUM",
            g.opt.repeats, g.opt.target_s * 1e3);
}

/* Writes through a temporary and a rename, so an interrupted run never
 * leaves half a file under the final name.  Returns 0 or -1 (reported). */
static int write_file(const char *name, int (*body)(FILE *, void *), void *ctx)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof(path), "%s/%s", g.opt.out_dir, name);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (NULL == f) {
        fprintf(stderr, PROG ": cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    int rc = body(f, ctx);
    if (0 != fclose(f) || 0 != rc) {
        fprintf(stderr, PROG ": writing %s failed%s\n", tmp,
                0 != rc ? " (the rules writer refused the rules)" : "");
        remove(tmp);
        return -1;
    }
    if (0 != rename(tmp, path)) {
        fprintf(stderr, PROG ": cannot rename %s to %s: %s\n", tmp, path, strerror(errno));
        return -1;
    }
    return 0;
}


/* Do rules [a, a + n) and [b, b + n) say the same apart from the
 * communicator sizes? */
static int same_rules(const rabred_rule_t *a, const rabred_rule_t *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (a[i].msg_min != b[i].msg_min || a[i].msg_max != b[i].msg_max ||
            a[i].commutative != b[i].commutative || a[i].alg_id != b[i].alg_id ||
            a[i].segsize != b[i].segsize) {
            return 0;
        }
    }
    return 1;
}

/* Every collective's rules, communicator sizes ascending within each; a
 * size whose rules equal the previous size's widens that size's range
 * instead of repeating them. */
static int build_rules(const report_t *rep, int classic, rabred_rules_t *r)
{
    static rabred_rule_t storage[2 * MAX_POINTS * MAX_COMM_SIZES];
    const int cap = (int)(sizeof(storage) / sizeof(storage[0]));
    r->rules = storage;
    r->n = 0;
    for (int k = 0; k < rep->ncolls; k++) {
        int prev_start = -1, prev_n = 0;
        for (int i = 0; i < rep->nruns; i++) {
            const comm_run_t *run = &rep->runs[i];
            const coll_state_t *c = run->colls[rep->colls[k]];
            int start = r->n;
            if (0 != add_rules(run, c, classic ? c->chosen_tuned : c->chosen, classic, r, cap)) {
                return -1;
            }
            int n = r->n - start;
            if (prev_start >= 0 && n == prev_n &&
                same_rules(&storage[prev_start], &storage[start], n)) {
                for (int m = prev_start; m < start; m++) {
                    storage[m].comm_max = storage[start].comm_max;
                }
                r->n = start;
                continue;
            }
            prev_start = start;
            prev_n = n;
        }
    }
    return 0;
}

static int body_named(FILE *f, void *ctx)
{
    rabred_rules_t r;
    fprintf(f, "# For rabred: coll_rabred_rules_file.\n");
    header_common(f, "# ");
    fprintf(f, "# Valid for %s ops and communicators from %d to %d ranks: the rules of\n"
            "# a measured communicator size serve it up to the next measured size; other\n"
            "# calls use rabred's built-in decision.  Each message-size range's algorithm\n"
            "# was measured at its lower end and holds up to the next measured size (see\n"
            "# speedup.md).\n", g.opt.noncommutative ? "non-commutative" : "commutative",
            g.opt.comm_sizes[0], g.opt.comm_sizes[g.opt.ncomm_sizes - 1]);
    if (0 != build_rules(ctx, 0, &r)) {
        return -1;
    }
    return RABRED_OK == rabred_rules_write_named(f, &r) ? 0 : -1;
}

static int body_classic(FILE *f, void *ctx)
{
    const report_t *rep = ctx;
    rabred_rules_t r;
    fprintf(f, "# For coll/tuned: coll_tuned_use_dynamic_rules 1 and\n"
            "# coll_tuned_dynamic_rules_filename (Open MPI 4.1 reads these # comments);\n"
            "# rabred reads it too (coll_rabred_rules_file), but there a 0 means rabred's\n"
            "# built-in decision, not \"previous\": for rabred use rules.txt.\n");
    header_common(f, "# ");
    fprintf(f, "# Best among the algorithms coll/tuned has (%s); 0 = tuned's own\n"
            "# decision (\"previous\" won).  Ranked with rabred's implementations: tuned's\n"
            "# own code for the same id may rank differently.  tuned applies a comm-size\n"
            "# entry from that size up to the next, the last without bound; and its format\n"
            "# has no commutativity condition, while these entries were measured with a%s\n"
            "# op.\n",
            rep->runs[0].colls[rep->colls[0]]->tuned_checked
                ? "ids read from this Open MPI's coll/tuned"
                : "coll/tuned not loaded: ids not checked against it",
            g.opt.noncommutative ? " non-commutative" : " commutative");
    if (0 != build_rules(rep, 1, &r)) {
        return -1;
    }
    return RABRED_OK == rabred_rules_write_classic(f, &r) ? 0 : -1;
}

/* ---- speedup.md -------------------------------------------------------- */

/* "12.30 (11.90-13.00)": the median and the range of the rounds. */
static const char *fmt_time(const point_t *pt, int k, char *buf, size_t len)
{
    snprintf(buf, len, "%.2f (%.2f-%.2f)", pt->us[k], pt->lo[k], pt->hi[k]);
    return buf;
}

/* Do the rounds of k and m at pt overlap?  Then their order is not proven. */
static int overlap(const point_t *pt, int k, int m)
{
    return pt->lo[k] <= pt->hi[m] && pt->lo[m] <= pt->hi[k];
}

static void md_summary(FILE *f, const coll_state_t *c)
{
    char b[32], t1[64], t2[64];
    fprintf(f, "| bytes | chosen | chosen (us) | tuned default (us) | speedup | "
               "rules-tuned.txt | measured |\n|---:|---|---:|---:|---:|---|---|\n");
    for (int i = 0; i < c->npts; i++) {
        const point_t *pt = &c->pts[i];
        int k = c->chosen[i], t = c->chosen_tuned[i];
        double tuned = pt->us[c->prev];
        fprintf(f, "| %s | %s | %s | %s | %.2fx%s | %s | %s |\n", fmt_bytes(pt->bytes, b, 32),
                k >= 0 ? c->a[k].name : "-", k >= 0 ? fmt_time(pt, k, t1, sizeof(t1)) : "-",
                fmt_time(pt, c->prev, t2, sizeof(t2)),
                k >= 0 && pt->us[k] > 0 && tuned > 0 ? tuned / pt->us[k] : 0.0,
                k >= 0 && k != c->prev && overlap(pt, k, c->prev) ? " (rounds overlap)" : "",
                t < 0 || c->a[t].is_previous ? "0 (tuned's decision)" : c->a[t].name,
                pt->refined ? "bisection" : "coarse");
    }
}

static void md_all_times(FILE *f, const coll_state_t *c)
{
    char b[32];
    fprintf(f, "| bytes |");
    for (int k = 0; k < c->na; k++) {
        fprintf(f, " %s |", c->a[k].is_previous ? "previous (tuned default)" : c->a[k].name);
    }
    fprintf(f, "\n|---:|");
    for (int k = 0; k < c->na; k++) {
        fprintf(f, "---:|");
    }
    for (int i = 0; i < c->npts; i++) {
        const point_t *pt = &c->pts[i];
        int best = fastest(c, pt, 0);
        fprintf(f, "\n| %s |", fmt_bytes(pt->bytes, b, 32));
        for (int k = 0; k < c->na; k++) {
            if (!measured(pt, k)) {
                fprintf(f, " - |");
                continue;
            }
            fprintf(f, " %s%.2f%s ±%.0f%%", k == best ? "**" : "", pt->us[k],
                    k == best ? "**" : "", 50 * spread(pt, k));
            if (pt->seg[k] > 0) {
                fprintf(f, " (seg %s)", fmt_bytes(pt->seg[k], b, 32));
            }
            fprintf(f, " |");
        }
    }
    fprintf(f, "\n\nBold: fastest at that size; ±: half the spread of the rounds, "
               "(slowest - fastest) / 2 median. Not measured (-):\n\n");
    int any = 0;
    for (int k = 0; k < c->na; k++) {
        const char *why = NULL;
        int n = 0;
        for (int i = 0; i < c->npts; i++) {
            why = NULL != c->pts[i].skip[k] ? c->pts[i].skip[k] : why;
            n += NULL != c->pts[i].skip[k];
        }
        if (n > 0) {
            fprintf(f, "- %s at %d of %d sizes (%s)\n", c->a[k].name, n, c->npts, why);
            any = 1;
        }
    }
    fprintf(f, "%s", any ? "" : "- nothing: every algorithm ran at every size\n");
}

static void md_segments(FILE *f, const coll_state_t *c)
{
    char b[32];
    int any = 0;
    for (int i = 0; i < c->npts; i++) {
        const point_t *pt = &c->pts[i];
        for (int k = 0; k < c->na; k++) {
            if (pt->seg[k] <= 0) {
                continue;
            }
            if (!any) {
                fprintf(f, "\n### Segment size search (hill climbing on coll_rabred_segment_size)"
                           "\n\n| bytes | algorithm | tried (segment: us) | kept |\n"
                           "|---:|---|---|---:|\n");
                any = 1;
            }
            fprintf(f, "| %s | %s |", fmt_bytes(pt->bytes, b, 32), c->a[k].name);
            for (int t = 0, first = 1; t < pt->ntries; t++) {
                if (pt->tries[t].alg == k) {
                    fprintf(f, "%s %s: %.2f", first ? "" : ",",
                            fmt_bytes(pt->tries[t].seg, b, 32), pt->tries[t].us);
                    first = 0;
                }
            }
            fprintf(f, " | %s |\n", fmt_bytes(pt->seg[k], b, 32));
        }
    }
}

static void md_placement(FILE *f, const comm_run_t *run)
{
    char ppn[32];
    snprintf(ppn, sizeof(ppn), run->ppn_min == run->ppn_max ? "%d" : "%d-%d", run->ppn_min,
             run->ppn_max);
    fprintf(f, "%d node%s, %s rank%s per node; these rules serve communicators of %d", run->nodes,
            1 == run->nodes ? "" : "s", ppn, 1 == run->ppn_max ? "" : "s", run->comm_min);
    if (run->comm_max > run->comm_min) {
        fprintf(f, "-%d", run->comm_max);
    }
    if (INT_MAX == run->comm_max_classic) {
        fprintf(f, " ranks in rules.txt, from %d up in rules-tuned.txt.\n\n", run->comm_min);
    } else {
        fprintf(f, " ranks in both files.\n\n");
    }
}

static int body_speedup(FILE *f, void *ctx)
{
    const report_t *rep = ctx;
    char lo[32], hi[32];
    fprintf(f, "# rabred-tune results\n\n");
    header_common(f, "- ");
    fprintf(f, "- times: microseconds per call of the slowest rank, the median of the rounds "
               "and, in parentheses, the fastest and the slowest round; \"tuned default\" is "
               "\"previous\"; speedup = tuned default / chosen, \"rounds overlap\" when the "
               "two ranges overlap (the order is within the noise)\n"
               "- sizes: coarse grid every %dx from %s to %s, bisected in powers of two "
               "where the winner changes (\"bisection\"); times within %.0f%% count as equal\n"
               "- chosen: the algorithm rules.txt uses from this size up to the next measured "
               "size (the fastest, or the previous size's choice while within the margin)\n",
            g.opt.coarse, fmt_bytes(g.opt.min_bytes, lo, 32), fmt_bytes(g.opt.max_bytes, hi, 32),
            g.opt.margin * 100);
    for (int k = 0; k < rep->ncolls; k++) {
        for (int i = 0; i < rep->nruns; i++) {
            const comm_run_t *run = &rep->runs[i];
            const coll_state_t *c = run->colls[rep->colls[k]];
            fprintf(f, "\n## %s%s, p = %d\n\n", c->mpi_name,
                    RABRED_COLL_REDUCE == c->coll ? " (root 0)" : "", run->size);
            md_placement(f, run);
            md_summary(f, c);
            fprintf(f, "\n### All measured times (us)\n\n");
            md_all_times(f, c);
            md_segments(f, c);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* ---- main -------------------------------------------------------------- */

/* Creates the output directory if needed and proves it writable before
 * minutes of measuring.  Rank 0 only; 0 or -1 (reported). */
static int check_out_dir(void)
{
    struct stat st;
    const char *dir = g.opt.out_dir;
    if (0 != mkdir(dir, 0777) && EEXIST != errno) {
        fprintf(stderr, PROG ": error: cannot create --out directory %s: %s\n", dir,
                strerror(errno));
        return -1;
    }
    if (0 != stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, PROG ": error: --out %s is not a directory\n", dir);
        return -1;
    }
    char probe[4200];
    snprintf(probe, sizeof(probe), "%s/.rabred-tune-XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0) {
        fprintf(stderr, PROG ": error: cannot write in --out directory %s: %s\n", dir,
                strerror(errno));
        return -1;
    }
    close(fd);
    remove(probe);
    return 0;
}

static char *join_args(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++) {
        len += strlen(argv[i]) + 1;
    }
    char *s = calloc(len, 1);
    for (int i = 0; NULL != s && i < argc; i++) {
        strcat(s, i ? " " : "");
        strcat(s, argv[i]);
    }
    return s;
}

/* Is "previous" coll/tuned?  With no coll list Open MPI selects by priority,
 * and coll/tuned is normally next below rabred. */
static int previous_is_tuned(const char *list)
{
    if ('\0' == list[0]) {
        return 1;
    }
    return '^' == list[0] ? NULL == strstr(list, "tuned") : NULL != strstr(list, "tuned");
}

/* Which node each rank of the job is on, numbered in order of their lowest
 * rank (rank 0's node is 0), and its index among that node's ranks. */
static int find_nodes(void)
{
    MPI_Comm node;
    int mine[2] = {g.world_rank, 0}; /* the node's lowest rank, index on the node */
    int *all = malloc(2 * (size_t)g.world_size * sizeof(int));
    g.node_of = malloc((size_t)g.world_size * sizeof(int));
    g.local_of = malloc((size_t)g.world_size * sizeof(int));
    if (!all_true(NULL != all && NULL != g.node_of && NULL != g.local_of) ||
        MPI_SUCCESS != MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g.world_rank,
                                           MPI_INFO_NULL, &node)) {
        free(all);
        return -1;
    }
    MPI_Comm_rank(node, &mine[1]);
    MPI_Bcast(&mine[0], 1, MPI_INT, 0, node);
    MPI_Comm_free(&node);
    if (MPI_SUCCESS != MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD)) {
        free(all);
        return -1;
    }
    g.nodes = 0;
    for (int r = 0; r < g.world_size; r++) {
        int leader = all[2 * r];
        g.node_of[r] = leader == r ? g.nodes++ : g.node_of[leader];
        g.local_of[r] = all[2 * r + 1];
    }
    free(all);
    return 0;
}

/* Does rank r of the job measure in the communicator of q ranks?  packed:
 * the first q ranks.  spread: the job's ranks ordered by their index on
 * their node, then by node, the first q, so every node gives about q/N
 * ranks, as a job of q ranks over the same N nodes would.  Rank 0 is in
 * every one (it gathers and writes). */
static int is_member(int r, int q)
{
    if (g.opt.packed) {
        return r < q;
    }
    int before = 0;
    for (int s = 0; s < g.world_size; s++) {
        before += g.local_of[s] < g.local_of[r] ||
                  (g.local_of[s] == g.local_of[r] && g.node_of[s] < g.node_of[r]);
    }
    return before < q;
}

/* Where the ranks of the communicator of q ranks sit, and which
 * communicator sizes its rules serve (from q up to the next measured size;
 * in rabred's rules the last is exact, in tuned's without bound). */
static void describe_run(comm_run_t *run, int i)
{
    const int *sizes = g.opt.comm_sizes, n = g.opt.ncomm_sizes;
    int *per_node = calloc((size_t)g.nodes, sizeof(int));
    if (NULL == per_node) {
        die(EXIT_FAIL, "out of memory for the node map"); /* local: not every rank fails */
    }
    run->size = sizes[i];
    run->comm_min = sizes[i];
    run->comm_max = i + 1 < n ? sizes[i + 1] - 1 : sizes[i];
    run->comm_max_classic = i + 1 < n ? sizes[i + 1] - 1 : INT_MAX;
    for (int r = 0; r < g.world_size; r++) {
        per_node[g.node_of[r]] += is_member(r, run->size);
    }
    run->nodes = 0;
    run->ppn_min = INT_MAX;
    run->ppn_max = 0;
    for (int nd = 0; nd < g.nodes; nd++) {
        if (per_node[nd] > 0) {
            run->nodes++;
            run->ppn_min = per_node[nd] < run->ppn_min ? per_node[nd] : run->ppn_min;
            run->ppn_max = per_node[nd] > run->ppn_max ? per_node[nd] : run->ppn_max;
        }
    }
    free(per_node);
}

/* Waits for every rank of the job without spinning: the ranks that sit out
 * a communicator size must not take the cores of those measuring it. */
static void wait_for_all(void)
{
    MPI_Request req;
    int done = 0;
    const struct timespec pause = {0, 1000000}; /* 1 ms */
    if (MPI_SUCCESS != MPI_Ibarrier(MPI_COMM_WORLD, &req)) {
        die(EXIT_FAIL, "MPI_Ibarrier failed");
    }
    while (!done) {
        if (MPI_SUCCESS != MPI_Test(&req, &done, MPI_STATUS_IGNORE)) {
            die(EXIT_FAIL, "MPI_Test of the barrier failed");
        }
        if (!done) {
            nanosleep(&pause, NULL);
        }
    }
}

/* Puts back what select_variant wrote, so that every rank of the job reads
 * the same settings again before anything runs on MPI_COMM_WORLD: Open MPI
 * creates a communicator with an MPI_Iallreduce on its parent (the context
 * id's agreement), which rabred serves, and ranks that chose differently
 * would never finish it. */
static void restore_settings(const comm_run_t *run)
{
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        const coll_state_t *c = run->colls[coll];
        if (NULL != c) {
            cvar_write(&c->cvar, c->orig_value, "the algorithm");
        }
    }
    if (g.have_seg_cvar) {
        cvar_write(&g.seg_cvar, g.default_seg, "coll_rabred_segment_size");
    }
}

/* Measures every collective on the communicator of run->size ranks; the
 * other ranks wait.  g.comm, g.rank and g.size are that communicator's
 * meanwhile, and the input is filled for its ranks. */
static void measure_run(comm_run_t *run)
{
    MPI_Comm sub;
    int in = is_member(g.world_rank, run->size);
    if (MPI_SUCCESS != MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, g.world_rank, &sub)) {
        die(EXIT_FAIL, "MPI_Comm_split for %d ranks failed", run->size);
    }
    if (in) {
        g.comm = sub;
        MPI_Comm_rank(sub, &g.rank);
        MPI_Comm_size(sub, &g.size);
        fill_input(g.opt.max_bytes / ELEM);
        for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
            if (NULL != run->colls[coll]) {
                tune_coll(run->colls[coll]);
            }
        }
        restore_settings(run);
        MPI_Comm_free(&sub);
    }
    g.comm = MPI_COMM_WORLD;
    g.rank = g.world_rank;
    g.size = g.world_size;
    wait_for_all();
}

static void setup(int argc, char **argv)
{
    int provided, ok = 0;
    g.cmdline = join_args(argc, argv);
    g.gathered = malloc((size_t)g.size * sizeof(double));
    if (0 == g.rank) {
        ok = NULL != g.gathered && 0 == check_out_dir();
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        MPI_Finalize();
        exit(EXIT_FAIL);
    }
    if (MPI_SUCCESS != MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) ||
        MPI_SUCCESS != MPI_T_pvar_session_create(&g.session)) {
        fail_all(EXIT_FAIL, "MPI_T initialisation failed");
    }
    if (0 != find_nodes()) {
        fail_all(EXIT_FAIL, "cannot learn which ranks share a node (MPI_Comm_split_type)");
    }
    read_coll_list();
    g.prev_is_tuned = previous_is_tuned(g.coll_list);
    open_segment_cvar();
    size_t bytes = (size_t)g.opt.max_bytes;
    g.sbuf = malloc(bytes);
    g.rbuf = malloc(bytes);
    if (!all_true(NULL != g.sbuf && NULL != g.rbuf)) {
        fail_all(EXIT_FAIL, "out of memory for two buffers of %lld bytes per rank",
                 (long long)g.opt.max_bytes);
    }
    fill_input(g.opt.max_bytes / ELEM);
    g.op = MPI_SUM;
    if (g.opt.noncommutative && MPI_SUCCESS != MPI_Op_create(noncommutative_sum, 0, &g.op)) {
        fail_all(EXIT_FAIL, "MPI_Op_create failed");
    }
    g.tty = isatty(STDERR_FILENO);
}

static void announce(const report_t *rep)
{
    char lo[32], hi[32];
    if (0 != g.rank || g.opt.quiet) {
        return;
    }
    fprintf(stderr, PROG ": %s%s, %s .. %s, %d repeats; \"previous\" is %s\n",
            rep->ncolls > 1 ? "allreduce and reduce" : rabred_coll_name(rep->colls[0]),
            g.opt.noncommutative ? " (non-commutative op)" : "",
            fmt_bytes(g.opt.min_bytes, lo, 32), fmt_bytes(g.opt.max_bytes, hi, 32),
            g.opt.repeats, g.prev_is_tuned ? "coll/tuned" : "NOT coll/tuned");
    for (int i = 0; i < rep->nruns; i++) {
        const comm_run_t *run = &rep->runs[i];
        fprintf(stderr, PROG ": p = %d: %d node%s, %d", run->size, run->nodes,
                1 == run->nodes ? "" : "s", run->ppn_min);
        if (run->ppn_max > run->ppn_min) {
            fprintf(stderr, "-%d", run->ppn_max);
        }
        fprintf(stderr, " per node\n");
    }
    if (!g.prev_is_tuned) {
        fprintf(stderr, PROG ": warning: coll list \"%s\" has no tuned: the baseline is not "
                "tuned's default (use --mca coll rabred,tuned,basic,libnbc)\n", g.coll_list);
    }
}

static int write_outputs(report_t *rep)
{
    int ok = 0;
    if (0 == g.rank) {
        if (g.tty && !g.opt.quiet) {
            fputc('\n', stderr);
        }
        ok = 0 == write_file("rules.txt", body_named, rep) &&
             0 == write_file("rules-tuned.txt", body_classic, rep) &&
             0 == write_file("speedup.md", body_speedup, rep);
        if (ok && !g.opt.quiet) {
            fprintf(stderr, PROG ": wrote %s/rules.txt, rules-tuned.txt and speedup.md in "
                    "%.0f s\n", g.opt.out_dir, MPI_Wtime() - g.t_start);
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

/* Every (communicator size, collective) gets its own state and MPI_T
 * handles; their sizes are planned for the progress bar. */
static void plan_runs(report_t *rep)
{
    int64_t sizes[MAX_POINTS];
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        if (g.opt.do_coll[coll]) {
            rep->colls[rep->ncolls++] = (rabred_coll_t)coll;
        }
    }
    rep->nruns = g.opt.ncomm_sizes;
    for (int i = 0; i < rep->nruns; i++) {
        comm_run_t *run = &rep->runs[i];
        describe_run(run, i);
        for (int k = 0; k < rep->ncolls; k++) {
            coll_state_t *c = calloc(1, sizeof(*c));
            if (NULL == c) {
                die(EXIT_FAIL, "out of memory for a communicator size's state");
            }
            c->coll = rep->colls[k];
            c->mpi_name = RABRED_COLL_ALLREDUCE == c->coll ? "MPI_Allreduce" : "MPI_Reduce";
            open_coll(c);
            run->colls[c->coll] = c;
            g.planned += coarse_sizes(sizes);
        }
    }
}

/* Leaves rabred as it was found, for whatever runs next in this process. */
static void restore_and_close(report_t *rep)
{
    for (int i = 0; i < rep->nruns; i++) {
        for (int k = 0; k < rep->ncolls; k++) {
            coll_state_t *c = rep->runs[i].colls[rep->colls[k]];
            if (0 == i) {
                cvar_write(&c->cvar, c->orig_value, "the algorithm");
            }
            rabred_mpit_cvar_close(&c->cvar);
            free(c);
        }
    }
    if (g.have_seg_cvar) {
        cvar_write(&g.seg_cvar, g.default_seg, "coll_rabred_segment_size");
        rabred_mpit_cvar_close(&g.seg_cvar);
    }
}

int main(int argc, char **argv)
{
    static report_t rep;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g.world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.world_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    g.comm = MPI_COMM_WORLD;
    g.rank = g.world_rank;
    g.size = g.world_size;
    int rc = parse_args(argc, argv, &g.opt);
    if (0 != rc || g.opt.help) {
        if (0 == rc && 0 == g.rank && 2 == g.opt.help) {
            printf(PROG " %s\n", PACKAGE_VERSION);
        } else if (0 == rc && 0 == g.rank) {
            usage(stdout);
        }
        MPI_Finalize();
        return rc;
    }
    setup(argc, argv);
    plan_runs(&rep);
    announce(&rep);
    g.t_start = MPI_Wtime();
    for (int i = 0; i < rep.nruns; i++) {
        measure_run(&rep.runs[i]);
    }
    int ok = write_outputs(&rep);

    restore_and_close(&rep);
    if (MPI_SUM != g.op) {
        MPI_Op_free(&g.op);
    }
    MPI_T_pvar_session_free(&g.session);
    MPI_T_finalize();
    free(g.sbuf);
    free(g.rbuf);
    free(g.gathered);
    free(g.node_of);
    free(g.local_of);
    free(g.cmdline);
    MPI_Finalize();
    return ok ? 0 : EXIT_FAIL;
}
