/*
 * rabred_bench: MPI_Allreduce and MPI_Reduce, OSU style (per message size:
 * average, minimum and maximum over ranks of each rank's mean time per
 * call), for every algorithm side by side in one run:
 *
 *   - "tuned:default": the coll component below rabred (Open MPI's stock
 *     coll/tuned decision when run with --mca coll rabred,tuned,basic,libnbc;
 *     "previous" when coll/tuned is not loaded),
 *   - "rabred:auto":   rabred's own choice,
 *   - "rabred:ALG":    every rabred algorithm, forced,
 *   - "tuned:ALG":     every coll/tuned algorithm, forced (needs
 *                      --mca coll_tuned_use_dynamic_rules 1, see below),
 *
 * for MPI_DOUBLE / MPI_SUM, 8 B to 16 MiB by default.
 *
 * Arrival patterns (Proficz 2018, Fig. 9).  --mode balanced: every iteration is
 * a barrier followed by one timed call (osu_allreduce does the same).
 * --mode one-late: after the barrier one rank (--late-rank, default 0)
 * sleeps --max-delay ms before its call.  --mode rand-late: after the
 * barrier every rank sleeps a uniform random time in [0, max-delay]; the
 * delays come from a counter-based generator of (--seed, rank, round,
 * iteration), so every rank draws a different delay per iteration, every
 * run with the same seed sees the same arrival patterns, and every variant
 * sees exactly the same patterns.  Each rank's clock starts after its own
 * delay ("arrival") and stops when its call returns ("exit"): the time is
 * Proficz's (2018) elapsed time e_i = f_i - a_i, so the delay itself is never
 * counted, and the table's "avg" is Proficz's (2018) average elapsed time
 * (averaged over ranks and iterations).  Ranks resynchronise with a barrier
 * before every iteration, so one iteration's lateness never leaks into the
 * next.
 *
 * Why one run, interleaved and repeated: machine noise (other jobs, clock
 * frequency, page cache) drifts over seconds.  Measuring all variants of one
 * size back to back, for several rounds each in its own shuffled order
 * (the same on every rank), and reporting the median, exposes every
 * variant to the same conditions.
 *
 * How variants are switched.  rabred registers coll_rabred_allreduce_algorithm
 * and coll_rabred_reduce_algorithm as settable enum MCA parameters, which
 * Open MPI exposes as MPI_T control variables, read by rabred on every call:
 * the bench writes them between calls (the enum items are read at run time,
 * so the bench never repeats rabred's algorithm table).  coll/tuned is
 * different (verified on Open MPI 4.1.4 with a library interposed on
 * ompi_coll_base_allreduce_intra_*): coll_tuned_allreduce_algorithm and
 * coll_tuned_reduce_algorithm are settable, but coll/tuned copies them into
 * its module when a communicator is created (ompi_coll_tuned_forced_getvalues
 * at module enable), and only installs its forced/dynamic decision at all
 * when coll_tuned_use_dynamic_rules is true at MPI_Init.  A write therefore
 * does nothing to MPI_COMM_WORLD but fixes the algorithm of every
 * communicator created afterwards.  So for each tuned algorithm the bench
 * writes the cvar and duplicates MPI_COMM_WORLD; that communicator runs that
 * algorithm with tuned's default segment size and fanouts for forced
 * algorithms (0 = no segmentation, fanout 4), exactly what
 * --mca coll_tuned_allreduce_algorithm N gives.  rabred is set to "previous"
 * while a tuned variant runs.  With use_dynamic_rules true and no forced
 * algorithm coll/tuned falls back to its fixed decision, so "tuned:default"
 * is unchanged.  Every rank writes the same value, then a barrier, so no
 * collective call ever mixes algorithms across ranks.
 *
 * Every call's result is checked (outside the timed region; the receive
 * buffer is poisoned before each call); a wrong result aborts the run,
 * since a fast wrong answer is not a result.
 *
 * Output: markdown tables on stdout (rank 0), ending with the algorithms
 * rabred:auto ran per size (rabred's MPI_T call counters) and what its
 * arrival estimate's gap exchanges cost it (MPI_T timer), and, with
 * --csv FILE, one CSV line per variant, size and round (bench/compare/
 * reads them).
 *
 * Usage: rabred_bench --help
 */
#include <mpi.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rabred_mpit.h"

enum { MAX_VARIANTS = 48, NAME_LEN = 128, MAX_SIZES = 64, MAX_ROUNDS = 101 };

/* Iterations per measurement: calibrated to about --target ms, at least
 * one (a 16 MiB allreduce over 100 Mbit/s takes seconds, and the rounds
 * give the repeats), at most 10^6 so an absurd calibration cannot hang. */
enum { MIN_ITERS = 1, MAX_ITERS = 1000000 };

typedef enum { COLL_ALLREDUCE, COLL_REDUCE } coll_kind_t;
/* MODE_LATENCY: back-to-back calls, no barrier between them (the latency
 * of a call in a loop, as a solver issues them); the others time one call
 * after a barrier, with arrival delays. */
typedef enum { MODE_BALANCED, MODE_ONE_LATE, MODE_RAND_LATE, MODE_LATENCY } arrival_mode_t;
typedef enum { FAMILY_TUNED, FAMILY_RABRED } family_t;
/* Why a variant has no measurement at a size (see skip_slow_variants). */
typedef enum { RUN_OK, RUN_SKIPPED, RUN_PREDICTED } run_state_t;
typedef enum { FORMAT_MARKDOWN, FORMAT_OSU, FORMAT_NCCL } format_t;

typedef struct {
    char name[NAME_LEN];     /* "tuned:default", "rabred:auto", "rabred:ring" */
    family_t family;
    int rabred_value;        /* written to the rabred cvar before each call */
    int arrival_off;         /* rabred:balanced: auto with coll_rabred_arrival_aware 0 */
    MPI_Comm comm;           /* MPI_COMM_WORLD, or a dup with tuned forced */
    int fixed;               /* tuned:default and rabred:auto: never skipped */
    int warm;                /* has run once (its communicator's setup done) */
    int iters;               /* calibrated iterations for the current size */
    double est_s;            /* wall seconds per iteration at the current size */
    double prev_est_s;       /* the same at the previous size (0: none) */
    size_t prev_bytes;
    run_state_t state;
} variant_t;

/* One collective under test, its variants and the cvars that select them.
 * Variants are ordered: tuned:default, rabred:auto, rabred algorithms,
 * tuned algorithms. */
typedef struct {
    coll_kind_t kind;
    const char *label;
    const char *rabred_cvar;
    const char *tuned_cvar;
    rabred_mpit_cvar_t alg_cvar;      /* rabred_cvar, open */
    int previous_value;
    rabred_mpit_cvar_t arrival_cvar;  /* coll_rabred_arrival_aware, if it exists */
    int arrival_default;              /* its value at start; -1: no such cvar */
    variant_t v[MAX_VARIANTS];
    int nv;
} coll_t;

typedef struct {
    int rounds;
    double target_s;         /* wanted duration of one measurement */
    int fixed_iters;         /* -i: iterations per measurement (0: calibrate) */
    int warmup;              /* untimed calls before each timed measurement */
    size_t min_bytes, max_bytes;
    size_t list[MAX_SIZES];  /* -s: explicit sizes */
    int nlist;
    int run_allreduce, run_reduce;
    arrival_mode_t mode;
    double max_delay_s;
    int late_rank;
    uint64_t seed;
    double skip_factor;      /* 0: never skip */
    double skip_min_s;
    const char *csv_path;
    const char *only;        /* comma-separated variant names, or NULL */
    int max_set;             /* -m or -s given */
    int first_call;          /* --first-call: new communicators' first calls only */
    int hit_cost;            /* --hit-cost: a prepared call's cost on MPI_COMM_SELF first */
    const char *profile;     /* --profile: rules file of the rabred:profile variant */
    int format;              /* --format: also print OSU's or nccl-tests' tables */
    int fresh_input;         /* --fresh-input: rewrite the input before each call */
} options_t;

typedef struct {             /* one measurement: over ranks, seconds per call */
    double avg, min, max;
    double wall_s;           /* loop wall time of the slowest rank */
    int iters;               /* timed calls per round (0: not timed) */
} sample_t;

static int g_rank, g_size;
static FILE *g_csv;
static int g_tuned_loaded, g_tuned_dynamic;
static int g_hosts; /* distinct processor names among the ranks */
/* --fresh-input: the input as fill_input writes it, copied over the send
 * buffer before each call (NULL: the input is left as it is) */
static double *g_pristine;
static double g_rewrite_s; /* seconds of one rewrite at the current size, alone */

/* ---- errors and options ------------------------------------------------ */

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

static void usage_exit(int status)
{
    if (0 == g_rank) {
        fprintf(status ? stderr : stdout,
"usage: rabred_bench [options]\n"
"  -n MIN, -m MAX      sizes in bytes: 8 and 16*4^k within [MIN, MAX]\n"
"                      (default 8 .. 16M; K, M, G suffixes; -m MIN:MAX too)\n"
"  -s LIST             explicit sizes instead, e.g. 8,64K,1M,4M\n"
"  -c allreduce|reduce|both   (default both)\n"
"  -r ROUNDS           interleaved rounds, median reported (default 5)\n"
"  -t MS               target duration of one measurement (default 20)\n"
"  -i ITERS            fixed iterations per measurement (default: calibrate)\n"
"  --mode balanced|one-late|rand-late|latency   arrival pattern (Proficz 2018),\n"
"                      or latency: back-to-back calls, best of -r blocks\n"
"                      (default sizes then 8 .. 64K)\n"
"  --max-delay MS      delay of the late rank / bound of random delays\n"
"  --late-rank R       the late rank in one-late mode (default 0)\n"
"  --seed S            seed of the rand-late delays (default 4)\n"
"  --variants LIST     only these variants (e.g. tuned:default,rabred:auto,\n"
"                      tuned:ring); tuned:default and rabred:auto always run\n"
"  --skip-factor F     do not time variants more than F times slower than\n"
"                      the fastest of their family (tuned / rabred) at a\n"
"                      size, when slower than --skip-min-ms (default 0: off)\n"
"  --skip-min-ms MS    (default 100)\n"
"  --warmup N          untimed calls before each timed measurement, with the\n"
"                      same arrivals (default 1)\n"
"  --csv FILE          one CSV line per variant, size and round\n"
"  --first-call 1      instead: the first and second call (8 B) on -r new\n"
"                      communicators, rabred:auto and the component below\n"
"  --hit-cost 1        first: a prepared call's cost, MPI_Allreduce in place\n"
"                      of one double on MPI_COMM_SELF, rabred:auto and below\n"
"  --profile FILE      add the variant rabred:profile: rabred:auto on a\n"
"                      communicator created with coll_rabred_rules_file FILE\n"
"                      (e.g. bench/profiles/emulated-100mbit.rules)\n"
"  rabred:flat         (a variant only run when --variants names it)\n"
"                      rabred:auto on a communicator whose node map puts\n"
"                      every rank on a node of its own: the flat decision\n"
"  rabred:completion   (only when --variants names it) rabred:auto on a\n"
"                      communicator created with coll_rabred_reduce_metric\n"
"                      completion: MPI_Reduce chosen by the root's time\n"
"  --fresh-input 1     rewrite each rank's input before every call, as an\n"
"                      application computes it; in latency mode the\n"
"                      rewrite's own time, measured alone, is taken out\n"
"  --format osu|nccl   after the markdown tables, one table per variant in\n"
"                      OSU's (# Size Avg/Min/Max Latency(us) Iterations) or\n"
"                      nccl-tests' columns (time, algbw, busbw)\n");
    }
    MPI_Finalize();
    exit(status);
}

/* A non-negative number with an optional K, M or G suffix (powers of 1024). */
static long parse_size(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0 || ERANGE == errno) {
        usage_exit(1);
    }
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    default: break;
    }
    if ('\0' != *end || v > (hi >> shift)) {
        usage_exit(1);
    }
    v <<= shift;
    if (v < lo) {
        usage_exit(1);
    }
    return v;
}

static double parse_double(const char *s, double lo, double hi)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || '\0' != *end || !(v >= lo && v <= hi)) {
        usage_exit(1);
    }
    return v;
}

static void parse_size_list(options_t *o, const char *arg)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", arg);
    o->nlist = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (o->nlist == MAX_SIZES) {
            usage_exit(1);
        }
        o->list[o->nlist++] = (size_t) parse_size(tok, 8, 1L << 30);
    }
}

static arrival_mode_t parse_mode(const char *s)
{
    if (0 == strcmp(s, "balanced")) {
        return MODE_BALANCED;
    } else if (0 == strcmp(s, "one-late")) {
        return MODE_ONE_LATE;
    } else if (0 == strcmp(s, "rand-late")) {
        return MODE_RAND_LATE;
    } else if (0 == strcmp(s, "latency")) {
        return MODE_LATENCY;
    }
    usage_exit(1);
    return MODE_BALANCED;
}

static void parse_option(options_t *o, const char *opt, const char *val)
{
    if (0 == strcmp(opt, "-r")) {
        o->rounds = (int) parse_size(val, 1, MAX_ROUNDS);
    } else if (0 == strcmp(opt, "-t")) {
        o->target_s = parse_double(val, 0.001, 1e6) / 1e3;
    } else if (0 == strcmp(opt, "-i")) {
        o->fixed_iters = (int) parse_size(val, 1, MAX_ITERS);
    } else if (0 == strcmp(opt, "-n")) {
        o->min_bytes = (size_t) parse_size(val, 8, 1L << 30);
    } else if (0 == strcmp(opt, "-m")) {
        const char *colon = strchr(val, ':');
        if (colon) {           /* osu style MIN:MAX */
            char lo[64];
            snprintf(lo, sizeof(lo), "%.*s", (int) (colon - val), val);
            o->min_bytes = (size_t) parse_size(lo, 8, 1L << 30);
            val = colon + 1;
        }
        o->max_bytes = (size_t) parse_size(val, 8, 1L << 30);
        o->max_set = 1;
    } else if (0 == strcmp(opt, "-s")) {
        parse_size_list(o, val);
        o->max_set = 1;
    } else if (0 == strcmp(opt, "-c")) {
        if (strcmp(val, "reduce") && strcmp(val, "allreduce") && strcmp(val, "both")) {
            usage_exit(1);
        }
        o->run_allreduce = 0 != strcmp(val, "reduce");
        o->run_reduce = 0 != strcmp(val, "allreduce");
    } else if (0 == strcmp(opt, "--mode")) {
        o->mode = parse_mode(val);
    } else if (0 == strcmp(opt, "--max-delay")) {
        o->max_delay_s = parse_double(val, 0, 1e5) / 1e3;
    } else if (0 == strcmp(opt, "--late-rank")) {
        o->late_rank = (int) parse_size(val, 0, 1 << 30);
    } else if (0 == strcmp(opt, "--seed")) {
        o->seed = (uint64_t) parse_size(val, 0, 1L << 62);
    } else if (0 == strcmp(opt, "--variants")) {
        o->only = val;
    } else if (0 == strcmp(opt, "--skip-factor")) {
        o->skip_factor = parse_double(val, 0, 1e9);
    } else if (0 == strcmp(opt, "--skip-min-ms")) {
        o->skip_min_s = parse_double(val, 0, 1e9) / 1e3;
    } else if (0 == strcmp(opt, "--warmup")) {
        o->warmup = (int) parse_size(val, 0, 1000);
    } else if (0 == strcmp(opt, "--csv")) {
        o->csv_path = val;
    } else if (0 == strcmp(opt, "--first-call")) {
        o->first_call = (int) parse_size(val, 0, 1);
    } else if (0 == strcmp(opt, "--hit-cost")) {
        o->hit_cost = (int) parse_size(val, 0, 1);
    } else if (0 == strcmp(opt, "--fresh-input")) {
        o->fresh_input = (int) parse_size(val, 0, 1);
    } else if (0 == strcmp(opt, "--profile")) {
        o->profile = val;
    } else if (0 == strcmp(opt, "--format")) {
        o->format = 0 == strcmp(val, "osu") ? FORMAT_OSU : 0 == strcmp(val, "nccl") ? FORMAT_NCCL
                  : 0 == strcmp(val, "markdown") ? FORMAT_MARKDOWN : -1;
        if (o->format < 0) {
            usage_exit(1);
        }
    } else {
        usage_exit(1);
    }
}

static options_t parse_options(int argc, char **argv)
{
    options_t o;
    memset(&o, 0, sizeof(o));
    o.rounds = 5;
    o.target_s = 0.020;
    o.min_bytes = 8;
    o.max_bytes = (size_t) 16 << 20;
    o.run_allreduce = o.run_reduce = 1;
    o.mode = MODE_BALANCED;
    o.seed = 4;
    o.skip_min_s = 0.1;
    o.warmup = 1;
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "-h") || 0 == strcmp(argv[i], "--help")) {
            usage_exit(0);
        }
        if (i + 1 >= argc) {
            usage_exit(1);
        }
        parse_option(&o, argv[i], argv[i + 1]);
        i++;
    }
    int late_mode = MODE_ONE_LATE == o.mode || MODE_RAND_LATE == o.mode;
    if (MODE_LATENCY == o.mode && !o.max_set) {
        o.max_bytes = (size_t) 64 << 10; /* where a call's fixed costs show */
    }
    if (o.min_bytes > o.max_bytes || o.late_rank >= g_size
        || (late_mode && 0 == o.max_delay_s)) {
        if (0 == g_rank && late_mode && 0 == o.max_delay_s) {
            fprintf(stderr, "rabred_bench: --mode one-late/rand-late needs --max-delay MS > 0\n");
        }
        usage_exit(1);
    }
    return o;
}

/* Sizes: -s as given, else 8 B and 16 * 4^k, within [min, max]: one double
 * is the latency case, 16 MiB is deep in the bandwidth regime. */
static int make_sizes(const options_t *o, size_t *sizes)
{
    int n = 0;
    if (o->nlist > 0) {
        memcpy(sizes, o->list, (size_t) o->nlist * sizeof(sizes[0]));
        return o->nlist;
    }
    if (o->min_bytes <= 8) {
        sizes[n++] = 8;
    }
    for (size_t b = 16; b <= o->max_bytes && n < MAX_SIZES; b *= 4) {
        if (b >= o->min_bytes) {
            sizes[n++] = b;
        }
    }
    return n;
}

static size_t largest(const size_t *sizes, int n)
{
    size_t m = 0;
    for (int i = 0; i < n; i++) {
        m = sizes[i] > m ? sizes[i] : m;
    }
    return m;
}

/* ---- MPI_T: discover the algorithm enums ------------------------------- */

enum { MAX_ITEMS = 64 }; /* enum items read: the algorithm enums have fewer */

/* An integer enum cvar, opened; 0 when it does not exist (a component
 * that is not loaded registers nothing). */
static int find_enum_cvar(const char *cvar, rabred_mpit_cvar_t *cv)
{
    int rc = rabred_mpit_cvar_find(cvar, cv);
    if (cv->index < 0) {
        return 0;
    }
    if (MPI_SUCCESS != rc) {
        fail_all("MPI_T_cvar_get_info failed for", cvar);
    }
    if (MPI_T_ENUM_NULL == cv->enumtype || MPI_INT != cv->datatype) {
        fail_all("control variable is not an integer enum", cvar);
    }
    /* Open MPI refuses writes to CONSTANT/READONLY variables and to variables
     * registered without MCA_BASE_VAR_FLAG_SETTABLE. */
    if (rabred_mpit_cvar_read_only(cv)) {
        fail_all("control variable is read-only (register it settable)", cvar);
    }
    if (MPI_SUCCESS != rabred_mpit_cvar_open(cv) || 1 != cv->count) {
        fail_all("MPI_T_cvar_handle_alloc failed for", cvar);
    }
    return 1;
}

/* An integer (or bool) cvar, opened, and its value; 0 when it does not
 * exist. */
static int open_int_cvar(const char *cvar, rabred_mpit_cvar_t *cv, int *value)
{
    int rc = rabred_mpit_cvar_find(cvar, cv);
    if (cv->index < 0) {
        return 0;
    }
    if (MPI_SUCCESS != rc || MPI_SUCCESS != rabred_mpit_cvar_open(cv) ||
        MPI_SUCCESS != rabred_mpit_cvar_read_int(cv, value)) {
        fail_all("cannot read control variable", cvar);
    }
    return 1;
}

/* Reads an integer (or bool) cvar; returns dflt when it does not exist. */
static int read_int_cvar(const char *cvar, int dflt)
{
    rabred_mpit_cvar_t cv;
    int value = dflt;
    if (open_int_cvar(cvar, &cv, &value)) {
        rabred_mpit_cvar_close(&cv);
    }
    return value;
}

/* The items of an enum cvar found by find_enum_cvar. */
static int enum_items(const char *cvar, const rabred_mpit_cvar_t *cv, rabred_mpit_item_t *items)
{
    int nitems;
    if (MPI_SUCCESS != rabred_mpit_enum_items(cv->enumtype, items, MAX_ITEMS, &nitems)) {
        fail_all("MPI_T_enum_get_info failed for", cvar);
    }
    nitems = nitems < MAX_ITEMS ? nitems : MAX_ITEMS;
    for (int i = 0; i < nitems; i++) {
        if (MPI_SUCCESS != items[i].rc) {
            fail_all("MPI_T_enum_get_item failed for", cvar);
        }
    }
    return nitems;
}

static void write_cvar(const rabred_mpit_cvar_t *cv, const char *cvar, int value)
{
    int rc = rabred_mpit_cvar_write_int(cv, value);
    if (MPI_SUCCESS != rc) {
        fprintf(stderr, "rabred_bench: rank %d: MPI_T_cvar_write(%s = %d) failed "
                "(error %d; is the variable registered MCA_BASE_VAR_FLAG_SETTABLE?)\n",
                g_rank, cvar, value, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static int wanted(const options_t *o, const char *name)
{
    if (NULL == o->only) {
        return 1;
    }
    size_t n = strlen(name);
    for (const char *p = o->only; (p = strstr(p, name)); p += n) {
        if ((p == o->only || ',' == p[-1]) && (',' == p[n] || '\0' == p[n])) {
            return 1;
        }
    }
    return 0;
}

static variant_t *add_variant(coll_t *c, const char *name, family_t fam,
                              int rabred_value, MPI_Comm comm, int fixed)
{
    if (c->nv == MAX_VARIANTS) {
        fail_all("too many variants for", c->label);
    }
    variant_t *v = &c->v[c->nv++];
    memset(v, 0, sizeof(*v));
    snprintf(v->name, NAME_LEN, "%s", name);
    v->family = fam;
    v->rabred_value = rabred_value;
    v->comm = comm;
    v->fixed = fixed;
    return v;
}

/* The enum items of rabred's algorithm cvar: "previous" -> tuned:default,
 * "auto" -> rabred:auto, each algorithm -> rabred:NAME. */
static void load_rabred_variants(coll_t *c, const options_t *o)
{
    rabred_mpit_item_t items[MAX_ITEMS];
    int nitems, auto_value = -1;
    char full[NAME_LEN + 8];

    if (!find_enum_cvar(c->rabred_cvar, &c->alg_cvar)) {
        fail_all("control variable not found (is the rabred component loaded? "
                 "run through scripts/mpirun-rabred.sh, or pass "
                 "--mca coll rabred,tuned,basic,libnbc with rabred on "
                 "mca_base_component_path)", c->rabred_cvar);
    }
    nitems = enum_items(c->rabred_cvar, &c->alg_cvar, items);
    c->previous_value = -1;
    for (int pass = 0; pass < 2; pass++) {   /* first the two fixed ones */
        for (int i = 0; i < nitems; i++) {
            int value = items[i].value;
            const char *name = items[i].name;
            int is_prev = 0 == strcmp(name, "previous"), is_auto = 0 == strcmp(name, "auto");
            if (0 == pass && is_prev) {
                c->previous_value = value;
            } else if (0 == pass && is_auto) {
                auto_value = value;
            } else if (1 == pass && !is_prev && !is_auto) {
                snprintf(full, sizeof(full), "rabred:%s", name);
                if (wanted(o, full)) {
                    add_variant(c, full, FAMILY_RABRED, value, MPI_COMM_WORLD, 0);
                }
            }
        }
        if (0 == pass) {
            if (c->previous_value < 0 || auto_value < 0) {
                fail_all("enum items \"previous\" and \"auto\" are required in", c->rabred_cvar);
            }
            add_variant(c, g_tuned_loaded ? "tuned:default" : "previous", FAMILY_TUNED,
                        c->previous_value, MPI_COMM_WORLD, 1);
            add_variant(c, "rabred:auto", FAMILY_RABRED, auto_value, MPI_COMM_WORLD, 1);
        }
    }
}

/* rabred:balanced (MPI_Allreduce only): rabred's choice with arrival
 * estimation off, i.e. what auto picks for balanced arrivals, as the
 * yardstick of the arrival-aware algorithms (Proficz 2018 compares against the
 * best balanced algorithm).  Added in the imbalanced modes, or when named
 * in --variants. */
static void load_balanced_variant(coll_t *c, const options_t *o)
{
    c->arrival_default = -1;
    if (COLL_ALLREDUCE != c->kind ||
        (MODE_ONE_LATE != o->mode && MODE_RAND_LATE != o->mode &&
         (NULL == o->only || !wanted(o, "rabred:balanced"))) ||
        !open_int_cvar("coll_rabred_arrival_aware", &c->arrival_cvar, &c->arrival_default)) {
        return;
    }
    variant_t *v = add_variant(c, "rabred:balanced", FAMILY_RABRED, c->v[1].rabred_value,
                               MPI_COMM_WORLD, 0);
    v->arrival_off = 1;
}

/* A communicator that rabred set up while the string control variable
 * `cvar` held `value` (restored afterwards): MPI_COMM_WORLD makes its
 * first call before (MPI_Comm_dup agrees on the new communicator's id with
 * a reduction on it, which must not see the value), the new one makes its
 * first call under it (the node map is learned there; the rules file is
 * read at creation).  Exits on any error, naming `variant`. */
static MPI_Comm comm_made_under(const char *cvar, const char *value, const char *variant)
{
    rabred_mpit_cvar_t cv;
    char before[4096];
    double one = 1, sum = 0;
    MPI_Comm comm;
    if (MPI_SUCCESS != rabred_mpit_cvar_find(cvar, &cv) ||
        MPI_SUCCESS != rabred_mpit_cvar_open(&cv) || rabred_mpit_cvar_read_only(&cv)) {
        fail_all("cannot open the settable control variable", cvar);
    }
    (void)rabred_mpit_cvar_read_string(&cv, before, sizeof(before));
    if (MPI_SUCCESS != MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) ||
        MPI_SUCCESS != rabred_mpit_cvar_write_string(&cv, value) ||
        MPI_SUCCESS != MPI_Comm_dup(MPI_COMM_WORLD, &comm) ||
        MPI_SUCCESS != MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, comm) ||
        MPI_SUCCESS != rabred_mpit_cvar_write_string(&cv, before)) {
        fail_all("cannot create the communicator of", variant);
    }
    rabred_mpit_cvar_close(&cv);
    return comm;
}

/* rabred:profile: rabred:auto on a communicator created while
 * coll_rabred_rules_file named --profile's file, so the profile's choices
 * run side by side with the built-in model's. */
static void load_profile_variant(coll_t *c, const options_t *o)
{
    if (NULL != o->profile) {
        MPI_Comm comm = comm_made_under("coll_rabred_rules_file", o->profile, "rabred:profile");
        add_variant(c, "rabred:profile", FAMILY_RABRED, c->v[1].rabred_value, comm, 1);
    }
}

/* rabred:flat: rabred:auto on a communicator whose node map puts every
 * rank on a node of its own (coll_rabred_node_map block:1), so the
 * decision without node awareness runs side by side with the node-aware
 * one.  Only when --variants names it. */
static void load_flat_variant(coll_t *c, const options_t *o)
{
    if (NULL != o->only && wanted(o, "rabred:flat")) {
        MPI_Comm comm = comm_made_under("coll_rabred_node_map", "block:1", "rabred:flat");
        add_variant(c, "rabred:flat", FAMILY_RABRED, c->v[1].rabred_value, comm, 1);
    }
}

/* rabred:completion: rabred:auto on a communicator created while
 * coll_rabred_reduce_metric was "completion", so MPI_Reduce chosen by the
 * root's time runs beside the default choice by the ranks' average.  Only
 * when --variants names it. */
static void load_completion_variant(coll_t *c, const options_t *o)
{
    if (NULL != o->only && wanted(o, "rabred:completion")) {
        MPI_Comm comm = comm_made_under("coll_rabred_reduce_metric", "completion",
                                        "rabred:completion");
        add_variant(c, "rabred:completion", FAMILY_RABRED, c->v[1].rabred_value, comm, 1);
    }
}

/* One communicator per coll/tuned algorithm: write the forced-algorithm
 * cvar, then MPI_Comm_dup (tuned reads the cvar when the communicator is
 * created; see the header). */
static void load_tuned_variants(coll_t *c, const options_t *o)
{
    rabred_mpit_cvar_t cv;
    rabred_mpit_item_t items[MAX_ITEMS];
    char full[NAME_LEN + 8];

    if (!g_tuned_loaded || !g_tuned_dynamic || !find_enum_cvar(c->tuned_cvar, &cv)) {
        return;
    }
    int nitems = enum_items(c->tuned_cvar, &cv, items);
    for (int i = 0; i < nitems; i++) {
        int value = items[i].value;
        snprintf(full, sizeof(full), "tuned:%s", items[i].name);
        if (0 == value || !wanted(o, full)) {   /* 0 is "ignore": the default */
            continue;
        }
        MPI_Comm comm;
        write_cvar(&cv, c->tuned_cvar, value);
        if (MPI_SUCCESS != MPI_Comm_dup(MPI_COMM_WORLD, &comm)) {
            fail_all("MPI_Comm_dup failed for", full);
        }
        add_variant(c, full, FAMILY_TUNED, c->previous_value, comm, 0);
    }
    write_cvar(&cv, c->tuned_cvar, 0);
    rabred_mpit_cvar_close(&cv);
}

/* "han:default": Open MPI's hierarchical coll/han, on a duplicate of
 * MPI_COMM_WORLD created with the info key ompi_comm_coll_preference=han,
 * which puts han above every other component on that communicator (Open
 * MPI 4.1 and 5.0).  Only where han is loaded (it must be in the coll
 * list) and the ranks span several hosts: on one node han declines and
 * the communicator would get the ordinary selection. */
static void load_han_variant(coll_t *c, const options_t *o)
{
    int index;
    if (g_hosts < 2 || !wanted(o, "han:default") ||
        MPI_SUCCESS != MPI_T_cvar_get_index("coll_han_priority", &index)) {
        return;
    }
    MPI_Info info;
    MPI_Comm comm;
    MPI_Info_create(&info);
    MPI_Info_set(info, "ompi_comm_coll_preference", "han");
    if (MPI_SUCCESS != MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm)) {
        fail_all("MPI_Comm_dup_with_info failed for", "han:default");
    }
    MPI_Info_free(&info);
    add_variant(c, "han:default", FAMILY_TUNED, c->previous_value, comm, 0);
}

static void select_variant(const coll_t *c, const variant_t *v)
{
    write_cvar(&c->alg_cvar, c->rabred_cvar, v->rabred_value);
    if (c->arrival_default >= 0) {
        write_cvar(&c->arrival_cvar, "coll_rabred_arrival_aware",
                   v->arrival_off ? 0 : c->arrival_default);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void free_variants(coll_t *c)
{
    for (int k = 0; k < c->nv; k++) {
        if (MPI_COMM_WORLD != c->v[k].comm) {
            MPI_Comm_free(&c->v[k].comm);
        }
    }
    /* Leave rabred on its own choice for whatever runs next. */
    write_cvar(&c->alg_cvar, c->rabred_cvar, c->v[1].rabred_value);
    rabred_mpit_cvar_close(&c->alg_cvar);
    if (c->arrival_default >= 0) {
        write_cvar(&c->arrival_cvar, "coll_rabred_arrival_aware", c->arrival_default);
        rabred_mpit_cvar_close(&c->arrival_cvar);
    }
}

/* ---- arrival patterns ---------------------------------------------------- */

/* splitmix64 (Steele, Lea, Flood 2014): a good 64-bit mix of a counter. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* This rank's delay before iteration `iter` of round `round` at size
 * index `sidx`: the same on every run and for every variant. */
static double delay_s(const options_t *o, int sidx, int round, int iter)
{
    switch (o->mode) {
    case MODE_ONE_LATE:
        return g_rank == o->late_rank ? o->max_delay_s : 0.0;
    case MODE_RAND_LATE: {
        uint64_t h = mix64(o->seed);
        h = mix64(h ^ (uint64_t) g_rank);
        h = mix64(h ^ ((uint64_t) sidx << 40 ^ (uint64_t) (round + 1) << 24 ^ (uint64_t) iter));
        return o->max_delay_s * (double) (h >> 11) * 0x1.0p-53;   /* [0, max] */
    }
    default:
        return 0.0;
    }
}

static void sleep_s(double s)
{
    if (s <= 0) {
        return;
    }
    struct timespec ts = { (time_t) s, (long) ((s - (double) (time_t) s) * 1e9) };
    while (0 != clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts)) {
        /* interrupted: sleep the rest */
    }
}

/* ---- the measured operation and its check ------------------------------ */

static void run_coll(const coll_t *c, MPI_Comm comm, const double *sbuf,
                     double *rbuf, int count)
{
    if (COLL_ALLREDUCE == c->kind) {
        MPI_Allreduce(sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM, comm);
    } else {
        MPI_Reduce(sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM, 0, comm);
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

/* --fresh-input: the input written again (the same values, so every
 * result check holds), as an application writes what it reduces just
 * before the call.  Back to back, a call otherwise resends an input that
 * its peers have read before: over shared memory a single-copy receive
 * then finds the lines in its own cache, where after a write they come
 * from the writer's (rabred-calibrate measures with written buffers). */
static void rewrite_input(const double *sbuf, int count)
{
    if (NULL != g_pristine) {
        memcpy((double *) sbuf, g_pristine, (size_t) count * sizeof(double));
    }
}

/* Seconds per rewrite_input of `count` doubles, alone (best of three
 * loops of about a millisecond); --fresh-input only. */
static double rewrite_time(const double *sbuf, int count)
{
    int iters = (int) fmin(fmax(1e5 / (count + 8.0), 10), 1e5);
    double best = 1e9;
    for (int s = 0; s < 3; s++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            rewrite_input(sbuf, count);
        }
        best = fmin(best, (MPI_Wtime() - t0) / iters);
    }
    return best;
}

static void poison(const coll_t *c, double *rbuf, int count)
{
    if (COLL_ALLREDUCE == c->kind || 0 == g_rank) {
        for (int i = 0; i < count; i++) {
            rbuf[i] = -1.0;
        }
    }
}

static void check(const coll_t *c, const variant_t *v, const double *rbuf, int count)
{
    const double base = (double) g_size * (g_size - 1) / 2.0;
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

/* Before each timed measurement, o->warmup untimed iterations with the
 * same arrivals, so that no variant pays for the state the variant before
 * it left: with shuffled rounds a variant still follows the same one by
 * chance (in confirm16m-p9-11-20261125 rabred:auto ran right after
 * tuned:default in 3 of 5 rounds), and a ring right after tuned:default
 * took 4-5% longer (bench/results/order-20261122; not TCP's window
 * restart after idle: turning it off in every host changed no plan's
 * time, bench/results/slow-start-20261207).
 * Outside the counters' and timer's window of rabred:auto. */
/* One rank's seconds for `iters` back-to-back calls (MODE_LATENCY): one
 * barrier before the block, no poisoning or checking inside it (the
 * result of the last call is checked), so a call's time is what the next
 * call waits for. */
static double back_to_back(const coll_t *c, const variant_t *v, const double *sbuf,
                           double *rbuf, int count, int iters)
{
    poison(c, rbuf, count);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        rewrite_input(sbuf, count);
        run_coll(c, v->comm, sbuf, rbuf, count);
    }
    double t = MPI_Wtime() - t0;
    check(c, v, rbuf, count);
    return fmax(t - iters * g_rewrite_s, 0);
}

static void warm_up(const coll_t *c, const variant_t *v, const options_t *o, int sidx,
                    int round, const double *sbuf, double *rbuf, int count)
{
    if (MODE_LATENCY == o->mode && o->warmup > 0) {
        (void)back_to_back(c, v, sbuf, rbuf, count, o->warmup);
        return;
    }
    for (int w = 0; w < o->warmup; w++) {
        poison(c, rbuf, count);
        MPI_Barrier(MPI_COMM_WORLD);
        sleep_s(delay_s(o, sidx, round, -1 - w));
        run_coll(c, v->comm, sbuf, rbuf, count);
        check(c, v, rbuf, count);
    }
}

/* `iters` iterations of: poison, barrier, this rank's delay, timed call,
 * check.  Returns avg/min/max over ranks of each rank's mean elapsed time
 * per call.  The statistics go through MPI_Allgather, which rabred does not
 * provide, so the bookkeeping never depends on the algorithm under test;
 * every rank gets the same numbers, so every rank takes the same decisions
 * from them. */
static sample_t measure(const coll_t *c, const variant_t *v, const options_t *o,
                        int sidx, int round, const double *sbuf, double *rbuf,
                        int count, int iters)
{
    double sum = 0, mine[2], all[2 * g_size];
    double w0 = MPI_Wtime();
    if (MODE_LATENCY == o->mode) {
        sum = back_to_back(c, v, sbuf, rbuf, count, iters);
        iters = iters > 0 ? iters : 1;
    }
    for (int i = 0; MODE_LATENCY != o->mode && i < iters; i++) {
        poison(c, rbuf, count);
        rewrite_input(sbuf, count);
        MPI_Barrier(MPI_COMM_WORLD);
        sleep_s(delay_s(o, sidx, round, i));
        double t0 = MPI_Wtime();            /* arrival */
        run_coll(c, v->comm, sbuf, rbuf, count);
        sum += MPI_Wtime() - t0;            /* exit - arrival */
        check(c, v, rbuf, count);
    }
    mine[0] = sum / iters;
    mine[1] = MPI_Wtime() - w0;
    MPI_Allgather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, MPI_COMM_WORLD);
    sample_t s = { 0, all[0], all[0], 0, 0 };
    for (int r = 0; r < g_size; r++) {
        s.avg += all[2 * r] / g_size;
        s.min = all[2 * r] < s.min ? all[2 * r] : s.min;
        s.max = all[2 * r] > s.max ? all[2 * r] : s.max;
        s.wall_s = all[2 * r + 1] > s.wall_s ? all[2 * r + 1] : s.wall_s;
    }
    return s;
}

/* Grows the iteration count until a loop lasts a tenth of the target, then
 * scales to the target.  Sets v->est_s.  A variant's first call ever is a
 * warm-up, not timed: a new communicator's first call pays for coll/tuned's
 * and rabred's per-communicator setup (rabred prices its algorithms for p),
 * which must not make a fast variant look slow (and get it skipped). */
static void calibrate(const coll_t *c, variant_t *v, const options_t *o, int sidx,
                      const double *sbuf, double *rbuf, int count)
{
    int iters = 1;
    if (!v->warm) {
        (void) measure(c, v, o, sidx, -1, sbuf, rbuf, count, 1);
        v->warm = 1;
    }
    sample_t s = measure(c, v, o, sidx, -1, sbuf, rbuf, count, iters);
    /* One call descheduled for a few ms (other jobs share the cores) would
     * set a fast variant's iteration count from that outlier: the fastest
     * of three single calls, when they are cheap. */
    for (int again = 0; again < 2 && s.wall_s < o->target_s; again++) {
        sample_t t = measure(c, v, o, sidx, -1, sbuf, rbuf, count, iters);
        s = t.wall_s < s.wall_s ? t : s;
    }
    while (0 == o->fixed_iters && s.wall_s < o->target_s / 10 && iters < MAX_ITERS / 8) {
        iters *= 8;
        s = measure(c, v, o, sidx, -1, sbuf, rbuf, count, iters);
    }
    v->est_s = s.wall_s / iters;
    if (o->fixed_iters) {
        v->iters = o->fixed_iters;
        return;
    }
    double want = v->est_s > 0 ? o->target_s / v->est_s : MAX_ITERS;
    v->iters = want < MIN_ITERS ? MIN_ITERS : want > MAX_ITERS ? MAX_ITERS : (int) want;
}

/* ---- skipping variants that are far too slow ---------------------------- */

/* Skipping saves hours on slow networks (a linear allreduce of 16 MiB on
 * 16 hosts at 100 Mbit/s takes 40 s a call) and is only allowed where it
 * cannot change the comparison: a variant is not timed when it is more than
 * skip_factor times slower than the fastest variant of its own family
 * (tuned or rabred), so the best of each family is always measured, and
 * tuned:default and rabred:auto are always measured.
 *
 * Before calibrating, a variant whose previous-size time scaled by the
 * size ratio predicts a call above skip_min_s and skip_factor times the
 * family's best prediction is not even run once (RUN_PREDICTED).  Only a
 * previous time of at least skip_min_s predicts: then the calls are deep
 * in the bandwidth regime, where time grows with the size; a latency-bound
 * time scaled up would wrongly condemn a variant for good.  After
 * calibrating, one measured above both limits is not timed (RUN_SKIPPED). */
static double family_best(const coll_t *c, family_t fam, size_t bytes, int predicted)
{
    double best = HUGE_VAL;
    for (int k = 0; k < c->nv; k++) {
        const variant_t *v = &c->v[k];
        double t = predicted ? (v->prev_est_s > 0 ? v->prev_est_s * bytes / v->prev_bytes : HUGE_VAL)
                             : (RUN_OK == v->state ? v->est_s : HUGE_VAL);
        if (v->family == fam && t < best) {
            best = t;
        }
    }
    return best;
}

static int too_slow(const options_t *o, const variant_t *v, double t, double best)
{
    return o->skip_factor > 0 && !v->fixed && t > o->skip_min_s
           && t > o->skip_factor * best;
}

static void predict_skips(coll_t *c, const options_t *o, size_t bytes)
{
    double best[2] = { family_best(c, FAMILY_TUNED, bytes, 1),
                       family_best(c, FAMILY_RABRED, bytes, 1) };
    for (int k = 0; k < c->nv; k++) {
        variant_t *v = &c->v[k];
        v->state = RUN_OK;
        if (v->prev_est_s >= o->skip_min_s && bytes > v->prev_bytes) {
            double t = v->prev_est_s * bytes / v->prev_bytes;
            if (too_slow(o, v, t, best[v->family])) {
                v->state = RUN_PREDICTED;
                v->est_s = t;
            }
        }
    }
}

/* A single slow call can be noise (on the emulated cluster a same-peer
 * exchange takes 1x or 2x, and other jobs share the cores): a variant is
 * skipped only when a second call is too slow as well. */
static void measured_skips(coll_t *c, const options_t *o, int sidx, size_t bytes,
                           const double *sbuf, double *rbuf)
{
    const int count = (int) (bytes / sizeof(double));
    double best[2] = { family_best(c, FAMILY_TUNED, bytes, 0),
                       family_best(c, FAMILY_RABRED, bytes, 0) };
    for (int k = 0; k < c->nv; k++) {
        variant_t *v = &c->v[k];
        if (RUN_OK == v->state && too_slow(o, v, v->est_s, best[v->family])) {
            select_variant(c, v);
            sample_t s = measure(c, v, o, sidx, -1, sbuf, rbuf, count, 1);
            v->est_s = s.wall_s < v->est_s ? s.wall_s : v->est_s;
            if (too_slow(o, v, v->est_s, best[v->family])) {
                v->state = RUN_SKIPPED;
            }
        }
        if (RUN_PREDICTED != v->state) {   /* predictions never feed predictions */
            v->prev_est_s = v->est_s;
            v->prev_bytes = bytes;
        }
    }
}

/* ---- one size ------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double smallest(const double *x, int n)
{
    double m = x[0];
    for (int i = 1; i < n; i++) {
        m = x[i] < m ? x[i] : m;
    }
    return m;
}

static double median(const double *x, int n)
{
    double s[MAX_ROUNDS];
    memcpy(s, x, (size_t) n * sizeof(x[0]));
    qsort(s, (size_t) n, sizeof(s[0]), cmp_double);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static const char *mode_name(arrival_mode_t m)
{
    return MODE_ONE_LATE == m    ? "one-late"
           : MODE_RAND_LATE == m ? "rand-late"
           : MODE_LATENCY == m   ? "latency"
                                 : "balanced";
}

/* ---- what rabred:auto ran (rabred's MPI_T counters) ------------------- */

/* rabred counts the calls each algorithm serves in MPI_T performance
 * variables coll_rabred_<coll>_<alg>_calls.  Reading rank 0's before and
 * after each timed round of rabred:auto shows which algorithms its choice
 * ran, arrival-aware switches included (every rank chooses alike).  Read
 * outside the timed loop. */
enum { MAX_COUNTERS = 48 };

typedef struct {
    int n;                               /* 0: counters not found */
    MPI_T_pvar_session session;
    rabred_mpit_pvar_t pvar[MAX_COUNTERS];
    char alg[MAX_COUNTERS][NAME_LEN];
    unsigned long long served[MAX_SIZES][MAX_COUNTERS]; /* per size index */
} counters_t;

static counters_t g_counters[2]; /* by coll_kind_t */

/* alg when name is "coll_rabred_<coll>_<alg>_calls", else NULL. */
static const char *counted_alg(const char *name, const char *coll, char *alg)
{
    char prefix[64];
    const char *suffix = "_calls";
    snprintf(prefix, sizeof(prefix), "coll_rabred_%s_", coll);
    size_t lp = strlen(prefix), ln = strlen(name), ls = strlen(suffix);
    if (ln <= lp + ls || 0 != strncmp(name, prefix, lp) || 0 != strcmp(name + ln - ls, suffix) ||
        ln - lp - ls >= NAME_LEN) {
        return NULL;
    }
    memcpy(alg, name + lp, ln - lp - ls);
    alg[ln - lp - ls] = '\0';
    return alg;
}

static void counters_open(counters_t *k, const char *coll)
{
    int num = 0;
    k->n = 0;
    if (MPI_SUCCESS != MPI_T_pvar_get_num(&num) ||
        MPI_SUCCESS != MPI_T_pvar_session_create(&k->session)) {
        return;
    }
    for (int i = 0; i < num && k->n < MAX_COUNTERS; i++) {
        char name[256];
        rabred_mpit_pvar_t *pv = &k->pvar[k->n];
        if (MPI_SUCCESS != rabred_mpit_pvar_describe(i, name, sizeof(name), pv) ||
            MPI_UNSIGNED_LONG_LONG != pv->datatype ||
            NULL == counted_alg(name, coll, k->alg[k->n]) ||
            MPI_SUCCESS != rabred_mpit_pvar_open(k->session, pv) || 1 != pv->count) {
            continue;
        }
        k->n++;
    }
}

/* The first n counters of k (n <= k->n). */
static void counters_read(const counters_t *k, int n, unsigned long long *v)
{
    for (int i = 0; i < n; i++) {
        if (MPI_SUCCESS != rabred_mpit_pvar_read_counter(&k->pvar[i], &v[i])) {
            v[i] = 0;
        }
    }
}

/* ---- what the arrival estimate costs rabred:auto ---------------------- */

/* rabred times its arrival-estimate gap exchanges on each rank (MPI_T
 * coll_rabred_arrival_exchange_seconds, and counts them in
 * coll_rabred_arrival_exchanges), waiting for the last rank to leave the
 * call included.  Read on every rank around each of rabred:auto's timed
 * allreduce rounds, summed over the ranks and put against auto's elapsed
 * time summed the same way, it is the estimate's direct cost: a number
 * that differencing two noisy medians (auto against rabred:balanced)
 * cannot give. */
typedef struct {
    int found;
    MPI_T_pvar_session session;
    rabred_mpit_pvar_t seconds, count;
    double spent[MAX_SIZES];    /* this rank's exchange seconds; rank 0: all ranks' after the size */
    double elapsed[MAX_SIZES];  /* auto's elapsed seconds over all ranks and timed calls */
    unsigned long long exchanges[MAX_SIZES]; /* this rank's */
} exchange_cost_t;

static exchange_cost_t g_exchange;

/* Is performance variable `name` there, of class var_class and datatype
 * want? */
static int pvar_there(const char *name, int var_class, MPI_Datatype want, rabred_mpit_pvar_t *pv)
{
    return MPI_SUCCESS == rabred_mpit_pvar_find(name, var_class, pv) && want == pv->datatype;
}

static void exchange_open(exchange_cost_t *x)
{
    x->found = pvar_there("coll_rabred_arrival_exchange_seconds", MPI_T_PVAR_CLASS_TIMER,
                          MPI_DOUBLE, &x->seconds) &&
               pvar_there("coll_rabred_arrival_exchanges", MPI_T_PVAR_CLASS_COUNTER,
                          MPI_UNSIGNED_LONG_LONG, &x->count) &&
               MPI_SUCCESS == MPI_T_pvar_session_create(&x->session);
    if (x->found && (MPI_SUCCESS != rabred_mpit_pvar_open(x->session, &x->seconds) ||
                     MPI_SUCCESS != rabred_mpit_pvar_open(x->session, &x->count) ||
                     1 != x->seconds.count || 1 != x->count.count)) {
        x->found = 0;
    }
}

static void exchange_read(const exchange_cost_t *x, double *seconds, unsigned long long *count)
{
    *seconds = 0;
    *count = 0;
    if (x->found && (MPI_SUCCESS != rabred_mpit_pvar_read_timer(&x->seconds, seconds) ||
                     MPI_SUCCESS != rabred_mpit_pvar_read_counter(&x->count, count))) {
        *seconds = 0;
        *count = 0;
    }
}

/* After a size's rounds, on every rank: rank 0 gets the sum over ranks
 * (MPI_Gather: not a collective rabred provides). */
static void exchange_gather(exchange_cost_t *x, int sidx)
{
    double all[g_size];
    MPI_Gather(&x->spent[sidx], 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (0 == g_rank) {
        x->spent[sidx] = 0;
        for (int r = 0; r < g_size; r++) {
            x->spent[sidx] += all[r];
        }
    }
}

/* The served table's last column for size sidx (rank 0). */
static void exchange_print(const exchange_cost_t *x, int sidx)
{
    if (!x->found || x->elapsed[sidx] <= 0) {
        printf(" n/a |");
        return;
    }
    printf(" %llu, %.3g ms a rank, %.2f%% of auto's time |", x->exchanges[sidx],
           1e3 * x->spent[sidx] / g_size, 100 * x->spent[sidx] / x->elapsed[sidx]);
}

/* One line per size: "| bytes | alg n, alg n |" for rank 0's calls. */
static void print_served(const coll_t *c, const size_t *sizes, int nsizes)
{
    const counters_t *k = &g_counters[c->kind];
    if (0 == k->n) {
        printf("\n(rabred's MPI_T call counters not found: rabred:auto's algorithms not shown)\n");
        return;
    }
    int with_cost = COLL_ALLREDUCE == c->kind;
    printf("\nrabred:auto ran (rank 0's calls in the timed rounds, coll_rabred_%s_*_calls)%s\n\n"
           "| bytes | algorithm: calls |%s\n|------:|:------|%s\n", c->label,
           with_cost ? "; gap exchanges: rank 0's count, their time (coll_rabred_arrival_"
                       "exchange_seconds) per rank and against auto's elapsed time, both "
                       "summed over ranks" : "",
           with_cost ? " gap exchanges |" : "", with_cost ? ":------|" : "");
    for (int s = 0; s < nsizes; s++) {
        printf("| %zu |", sizes[s]);
        for (int i = 0; i < k->n; i++) {
            if (k->served[s][i] > 0) {
                printf(" %s: %llu", k->alg[i], k->served[s][i]);
            }
        }
        printf(" |");
        if (with_cost) {
            exchange_print(&g_exchange, s);
        }
        printf("\n");
    }
    fflush(stdout);
}

static void csv_line(const coll_t *c, const options_t *o, size_t bytes,
                     const variant_t *v, int round, const sample_t *s)
{
    static const char *state[] = { "ok", "skipped", "predicted" };
    if (NULL == g_csv) {
        return;
    }
    fprintf(g_csv, "%s,%s,%g,%d,%d,%zu,%s,%d,%d,%.3f,%.3f,%.3f,%s\n",
            c->label, mode_name(o->mode), o->max_delay_s * 1e3,
            MODE_ONE_LATE == o->mode ? o->late_rank : -1, g_size, bytes, v->name,
            round, RUN_OK == v->state ? v->iters : 0,
            1e6 * s->avg, 1e6 * s->min, 1e6 * s->max, state[v->state]);
    fflush(g_csv);
}

/* The order of round r of one cell (collective, size, p): a permutation
 * of the nv variants drawn from the counter-based mix64 of those alone,
 * so every rank computes the same one.  A fixed cyclic order (round r
 * starting at variant r) gave every variant the same predecessor in every
 * round: rabred:auto always ran right after tuned:default, whose
 * algorithm leaves the ring's connections idle for up to seconds at
 * 4 MiB, and a variant's time can depend on what the links and TCP
 * connections just carried.  Orders drawn from r alone repeated in every
 * cell of a grid, so one variant's place after a slow one (auto second in
 * round 0, right after Bruck, in every cell of
 * bench/results/slow-start-20261207) was the same bias everywhere; with
 * the cell in the draw it is noise across cells instead. */
static void round_order(int r, uint64_t cell, int nv, int *order)
{
    for (int j = 0; j < nv; j++) {
        order[j] = j;
    }
    for (int j = nv - 1; j > 0; j--) { /* Fisher-Yates, draws from mix64 of (cell, r, j) */
        int i = (int)(mix64(cell ^ (uint64_t)(r + 1) << 32 ^ (uint64_t)j) % (uint64_t)(j + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* What names one cell of a grid for round_order: the collective, the
 * size and the number of ranks, mixed so that neighbouring cells draw
 * unrelated orders. */
static uint64_t cell_of(const coll_t *c, size_t bytes)
{
    return mix64((uint64_t)bytes ^ (uint64_t)g_size << 48 ^ (uint64_t)c->kind << 60);
}

/* One size: calibrate every variant (checking its results), then `rounds`
 * interleaved rounds, each in its own shuffled order (round_order).
 * Writes the medians over rounds into med[k] (avg, min, max). */
static void bench_size(coll_t *c, const options_t *o, int sidx, size_t bytes,
                       double *sbuf, double *rbuf, sample_t *med)
{
    const int count = (int) (bytes / sizeof(double));
    static double avg[MAX_VARIANTS][MAX_ROUNDS], mn[MAX_VARIANTS][MAX_ROUNDS],
                  mx[MAX_VARIANTS][MAX_ROUNDS];

    fill_input(sbuf, count);
    if (NULL != g_pristine) {
        fill_input(g_pristine, count);
        g_rewrite_s = rewrite_time(sbuf, count);
    }
    predict_skips(c, o, bytes);
    for (int k = 0; k < c->nv; k++) {
        if (RUN_OK == c->v[k].state) {
            select_variant(c, &c->v[k]);
            calibrate(c, &c->v[k], o, sidx, sbuf, rbuf, count);
        }
    }
    measured_skips(c, o, sidx, bytes, sbuf, rbuf);
    for (int r = 0; r < o->rounds; r++) {
        int order[MAX_VARIANTS];
        round_order(r, cell_of(c, bytes), c->nv, order);
        for (int j = 0; j < c->nv; j++) {
            int k = order[j];
            variant_t *v = &c->v[k];
            sample_t s = { v->est_s, v->est_s, v->est_s, 0, 0 };
            if (RUN_OK == v->state) {
                /* only rabred:auto's choice is worth counting */
                counters_t *cnt = &g_counters[c->kind];
                int is_auto = 0 == strcmp(v->name, "rabred:auto");
                int counted = is_auto ? cnt->n : 0;
                unsigned long long before[MAX_COUNTERS], after[MAX_COUNTERS], n0, n1;
                double x0, x1;
                select_variant(c, v);
                warm_up(c, v, o, sidx, r, sbuf, rbuf, count);
                counters_read(cnt, counted, before);
                exchange_read(&g_exchange, &x0, &n0);
                s = measure(c, v, o, sidx, r, sbuf, rbuf, count, v->iters);
                exchange_read(&g_exchange, &x1, &n1);
                counters_read(cnt, counted, after);
                for (int i = 0; i < counted; i++) {
                    cnt->served[sidx][i] += after[i] - before[i];
                }
                if (is_auto && COLL_ALLREDUCE == c->kind) {
                    g_exchange.spent[sidx] += x1 - x0;
                    g_exchange.exchanges[sidx] += n1 - n0;
                    g_exchange.elapsed[sidx] += s.avg * g_size * v->iters;
                }
            }
            avg[k][r] = s.avg;
            mn[k][r] = s.min;
            mx[k][r] = s.max;
            if (0 == g_rank && (RUN_OK == v->state || 0 == r)) {
                csv_line(c, o, bytes, v, r, &s);
            }
        }
    }
    if (COLL_ALLREDUCE == c->kind && g_exchange.found) {
        exchange_gather(&g_exchange, sidx);
    }
    /* latency: the best block (the least disturbed by other work on the
     * cores); otherwise the median round */
    double (*pick)(const double *, int) = MODE_LATENCY == o->mode ? smallest : median;
    for (int k = 0; k < c->nv; k++) {
        med[k].avg = 1e6 * pick(avg[k], o->rounds);
        med[k].min = 1e6 * pick(mn[k], o->rounds);
        med[k].max = 1e6 * pick(mx[k], o->rounds);
        med[k].iters = RUN_OK == c->v[k].state ? c->v[k].iters : 0;
    }
}

/* ---- output ------------------------------------------------------------ */

static void print_mode(const options_t *o)
{
    if (MODE_ONE_LATE == o->mode) {
        printf("mode one-late: rank %d arrives %.3g ms after the others; ", o->late_rank,
               o->max_delay_s * 1e3);
    } else if (MODE_RAND_LATE == o->mode) {
        printf("mode rand-late: every rank arrives after a uniform random delay in "
               "[0, %.3g] ms (seed %llu); ", o->max_delay_s * 1e3,
               (unsigned long long) o->seed);
    } else if (MODE_LATENCY == o->mode) {
        printf("mode latency: back-to-back calls, one barrier before each block; time = "
               "each rank's block time / its calls; avg/min/max over ranks; the best of "
               "%d blocks\n\n", o->rounds);
        return;
    } else {
        printf("mode balanced: a barrier before every call; ");
    }
    printf("time = each rank's elapsed time from its arrival (after any delay) "
           "to its exit (Proficz 2018), averaged over its iterations; avg/min/max over "
           "ranks; median of %d rounds\n\n", o->rounds);
}

/* Table 1: avg (us) of every variant.  Cells of variants not timed at this
 * size show "~est" (measured once, or predicted, in calibration). */
static void print_all_header(const coll_t *c, const options_t *o)
{
    printf("\n## MPI_%s%s, MPI_DOUBLE, MPI_SUM, p = %d\n\n",
           COLL_ALLREDUCE == c->kind ? "Allreduce" : "Reduce",
           COLL_REDUCE == c->kind ? " (root 0)" : "", g_size);
    print_mode(o);
    printf("avg over ranks (us) of every variant");
    if (o->skip_factor > 0) {
        printf("; \"~x\": not timed, more than %g x slower than the best of its "
               "family (x: one calibration call, or predicted from the previous "
               "size)", o->skip_factor);
    }
    printf("\n\n| bytes |");
    for (int k = 0; k < c->nv; k++) {
        printf(" %s |", c->v[k].name);
    }
    printf("\n|------:|");
    for (int k = 0; k < c->nv; k++) {
        printf("------:|");
    }
    printf("\n");
}

static void print_all_row(const coll_t *c, size_t bytes, const sample_t *med)
{
    printf("| %zu |", bytes);
    for (int k = 0; k < c->nv; k++) {
        printf(RUN_OK == c->v[k].state ? " %.2f |" : " ~%.0f |", med[k].avg);
    }
    printf("\n");
    fflush(stdout);
}

static int best_of(const coll_t *c, family_t fam, const sample_t *med)
{
    int best = -1;
    for (int k = 0; k < c->nv; k++) {
        if (c->v[k].family == fam && RUN_OK == c->v[k].state
            && (best < 0 || med[k].avg < med[best].avg)) {
            best = k;
        }
    }
    return best;
}

/* Table 2 (printed after table 1, from saved rows): OSU-style avg/min/max
 * of the two defaults, the best of each family, and time ratios. */
static void print_summary(const coll_t *c, const size_t *sizes, int nsizes,
                          sample_t (*med)[MAX_VARIANTS])
{
    printf("\nsummary: avg/min/max over ranks (us); ratios are times "
           "(< 1: rabred:auto is faster)\n\n"
           "| bytes | %s avg | min | max | rabred:auto avg | min | max "
           "| best tuned | avg | best rabred | avg | auto / tuned default | auto / best tuned |\n"
           "|------:|------:|------:|------:|------:|------:|------:|:------|------:|:------|------:|------:|------:|\n",
           c->v[0].name);
    for (int s = 0; s < nsizes; s++) {
        const sample_t *m = med[s];
        int bt = best_of(c, FAMILY_TUNED, m), br = best_of(c, FAMILY_RABRED, m);
        printf("| %zu | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %.2f | %s | %.2f | %.3f | %.3f |\n",
               sizes[s], m[0].avg, m[0].min, m[0].max, m[1].avg, m[1].min, m[1].max,
               c->v[bt].name, m[bt].avg, c->v[br].name, m[br].avg,
               m[1].avg / m[0].avg, m[1].avg / m[bt].avg);
    }
    fflush(stdout);
}

/* --format osu: the columns of the OSU micro-benchmarks' full output
 * (osu_allreduce -f), one table per timed variant, times in us as above
 * (avg, min and max over ranks).  Cells a variant was not timed at are
 * left out, as OSU has no mark for them. */
static void print_osu(const coll_t *c, const size_t *sizes, int nsizes,
                      sample_t (*med)[MAX_VARIANTS])
{
    for (int k = 0; k < c->nv; k++) {
        printf("\n# rabred_bench MPI_%s, MPI_DOUBLE, MPI_SUM, p = %d: %s\n"
               "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n",
               COLL_ALLREDUCE == c->kind ? "Allreduce" : "Reduce", g_size, c->v[k].name);
        for (int s = 0; s < nsizes; s++) {
            const sample_t *m = &med[s][k];
            if (m->iters > 0) {
                printf("%-10zu%18.2f%18.2f%18.2f%12d\n", sizes[s], m->avg, m->min, m->max,
                       m->iters);
            }
        }
    }
}

/* --format nccl: nccl-tests' columns.  algbw = bytes / time; busbw is
 * what each rank's link carries at the bandwidth bound, the figure
 * nccl-tests compares across p: algbw * 2 (p - 1) / p for allreduce,
 * algbw for reduce.  time is the average over ranks (nccl-tests reports
 * the average too); out of place only; results are checked by the
 * correctness tests, not here, so there is no #wrong column. */
static void print_nccl(const coll_t *c, const size_t *sizes, int nsizes,
                       sample_t (*med)[MAX_VARIANTS])
{
    int all = COLL_ALLREDUCE == c->kind;
    double bus = all && g_size > 1 ? 2.0 * (g_size - 1) / g_size : 1.0;
    for (int k = 0; k < c->nv; k++) {
        printf("\n# rabred_bench %s, p = %d: %s\n"
               "#       size         count      type   redop    root     time   algbw   busbw\n"
               "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n",
               all ? "all_reduce" : "reduce", g_size, c->v[k].name);
        for (int s = 0; s < nsizes; s++) {
            const sample_t *m = &med[s][k];
            if (m->iters > 0) {
                double algbw = (double)sizes[s] / (m->avg * 1e3); /* GB/s from us */
                printf("%12zu  %12zu  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f\n", sizes[s],
                       sizes[s] / sizeof(double), "double", "sum", all ? -1 : 0, m->avg,
                       algbw, algbw * bus);
            }
        }
    }
}

static void print_field_format(const coll_t *c, const options_t *o, const size_t *sizes,
                               int nsizes, sample_t (*med)[MAX_VARIANTS])
{
    if (FORMAT_OSU == o->format) {
        print_osu(c, sizes, nsizes, med);
    } else if (FORMAT_NCCL == o->format) {
        print_nccl(c, sizes, nsizes, med);
    }
    fflush(stdout);
}

/* ---- what preparing costs, and what a prepared call costs -------------- */

/* Rank 0 gets the largest of every rank's x. */
static double max_over_ranks(double x)
{
    double m = x;
    MPI_Reduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return m;
}

/* --first-call: a new communicator's first call (8 B), where rabred
 * checks that the ranks agree on its settings, prices the algorithms for
 * this size (once per size: the books are shared), chooses and builds the
 * plan, against its second call (prepared) and the component below.
 * Communicator 0 is the first of its size; the median is over the others. */
static void first_calls(coll_t *c, const options_t *o, double *sbuf, double *rbuf)
{
    const variant_t *vars[2] = {&c->v[0], &c->v[1]}; /* the component below, rabred:auto */
    double first[2][MAX_ROUNDS + 1], second[2][MAX_ROUNDS + 1];
    fill_input(sbuf, 1);
    for (int r = 0; r <= o->rounds; r++) {
        for (int k = 1; k >= 0; k--) { /* auto first: its communicator 0 is the size's first */
            MPI_Comm comm;
            select_variant(c, vars[k]);
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            run_coll(c, comm, sbuf, rbuf, 1);
            double t1 = MPI_Wtime();
            run_coll(c, comm, sbuf, rbuf, 1);
            double t2 = MPI_Wtime();
            MPI_Comm_free(&comm);
            first[k][r] = max_over_ranks(t1 - t0);
            second[k][r] = max_over_ranks(t2 - t1);
        }
    }
    if (0 == g_rank) {
        printf("\n## first calls: MPI_%s of 8 B on a new communicator (MPI_Comm_dup), p = %d\n\n"
               "max over ranks (us); communicator 0 is the first of this size, then the median "
               "of %d more\n\n| variant | 1st call, comm 0 | 2nd call, comm 0 | 1st call | "
               "2nd call |\n|:---|---:|---:|---:|---:|\n",
               COLL_ALLREDUCE == c->kind ? "Allreduce" : "Reduce", g_size, o->rounds);
        for (int k = 0; k < 2; k++) {
            printf("| %s | %.1f | %.2f | %.1f | %.2f |\n", vars[k]->name, 1e6 * first[k][0],
                   1e6 * second[k][0], 1e6 * median(first[k] + 1, o->rounds),
                   1e6 * median(second[k] + 1, o->rounds));
        }
        fflush(stdout);
    }
}

/* --hit-cost: MPI_Allreduce in place of one double on MPI_COMM_SELF, where
 * rabred's plan moves nothing: the call costs MPI's entry, rabred's look-up
 * of the prepared call and its bookkeeping.  Against the component below
 * on the same call; best of -r blocks of 10^5 calls, rank 0. */
static void hit_cost(coll_t *c, const options_t *o)
{
    enum { CALLS = 100000 };
    const variant_t *vars[2] = {&c->v[0], &c->v[1]};
    double best[2] = {1e9, 1e9}, x = 1.0;
    for (int r = 0; r < o->rounds; r++) {
        for (int k = 0; k < 2; k++) {
            select_variant(c, vars[k]);
            MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF); /* prepare */
            double t0 = MPI_Wtime();
            for (int i = 0; i < CALLS; i++) {
                MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
            }
            double t = (MPI_Wtime() - t0) / CALLS;
            best[k] = t < best[k] ? t : best[k];
        }
    }
    if (0 == g_rank) {
        printf("\n## a prepared call's cost: MPI_Allreduce(MPI_IN_PLACE, 1 double) on "
               "MPI_COMM_SELF, best of %d blocks of %d calls (rank 0)\n\n| %s | rabred:auto "
               "| difference |\n|---:|---:|---:|\n| %.1f ns | %.1f ns | %.1f ns |\n",
               o->rounds, CALLS, vars[0]->name, 1e9 * best[0], 1e9 * best[1],
               1e9 * (best[1] - best[0]));
        fflush(stdout);
    }
}

static void bench_coll(coll_t *c, const options_t *o, double *sbuf, double *rbuf)
{
    size_t sizes[MAX_SIZES];
    int nsizes = make_sizes(o, sizes);
    static sample_t med[MAX_SIZES][MAX_VARIANTS];

    load_rabred_variants(c, o);
    load_balanced_variant(c, o);
    if (o->hit_cost && COLL_ALLREDUCE == c->kind) {
        hit_cost(c, o);
    }
    if (o->first_call) {
        first_calls(c, o, sbuf, rbuf);
        free_variants(c);
        return;
    }
    load_profile_variant(c, o);
    load_flat_variant(c, o);
    load_completion_variant(c, o);
    load_tuned_variants(c, o);
    load_han_variant(c, o);
    if (0 == g_rank) {
        print_all_header(c, o);
    }
    for (int s = 0; s < nsizes; s++) {
        bench_size(c, o, s, sizes[s], sbuf, rbuf, med[s]);
        if (0 == g_rank) {
            print_all_row(c, sizes[s], med[s]);
        }
    }
    if (0 == g_rank) {
        print_summary(c, sizes, nsizes, med);
        print_served(c, sizes, nsizes);
        print_field_format(c, o, sizes, nsizes, med);
    }
    free_variants(c);
}

/* Opens the connection of every pair of ranks (Open MPI's TCP BTL connects
 * lazily, at a pair's first message), so no variant pays for connections
 * another variant's pattern did not need. */
static void connect_all_pairs(void)
{
    int token = g_rank, got;
    for (int k = 1; k < g_size; k++) {
        MPI_Sendrecv(&token, 1, MPI_INT, (g_rank + k) % g_size, 0, &got, 1, MPI_INT,
                     (g_rank - k + g_size) % g_size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Distinct processor names = hosts (the emulated cluster gives each
 * namespace its own hostname). */
static int count_hosts(void)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "", *all;
    int len, hosts = 0;
    MPI_Get_processor_name(name, &len);
    all = calloc((size_t) g_size, MPI_MAX_PROCESSOR_NAME);
    if (NULL == all) {
        fail_all("out of memory", NULL);
    }
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < g_size; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++) {
            seen = 0 == strcmp(all + (size_t) r * MPI_MAX_PROCESSOR_NAME,
                               all + (size_t) q * MPI_MAX_PROCESSOR_NAME);
        }
        hosts += !seen;
    }
    free(all);
    return hosts;
}

static void print_preamble(const options_t *o, int hosts)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = '\0';
    printf("# rabred_bench: p = %d on %d host(s), %s\n", g_size, hosts, lib);
    printf("# variants: \"%s\" = the coll component below rabred%s; rabred:auto = "
           "rabred's choice; rabred:ALG forced through MPI_T; ",
           g_tuned_loaded ? "tuned:default" : "previous",
           g_tuned_loaded ? " (coll/tuned's fixed decision)" : "");
    if (!g_tuned_loaded) {
        printf("coll/tuned is not loaded: no tuned:ALG variants\n");
    } else if (!g_tuned_dynamic) {
        printf("no tuned:ALG variants (forcing them needs "
               "--mca coll_tuned_use_dynamic_rules 1)\n");
    } else {
        printf("tuned:ALG = coll/tuned's algorithm forced on a communicator "
               "duplicated after writing coll_tuned_*_algorithm (tuned's default "
               "segment size and fanout for forced algorithms)\n");
    }
    if (o->fresh_input) {
        printf("# fresh input: every rank rewrites its input before each call%s\n",
               MODE_LATENCY == o->mode ? " (the rewrite alone timed and taken out)" : "");
    }
    if (o->skip_factor > 0) {
        printf("# skipping variants more than %g x slower than the best of their "
               "family when slower than %g ms\n", o->skip_factor, o->skip_min_s * 1e3);
    }
}

static void open_csv(const options_t *o)
{
    if (NULL == o->csv_path || 0 != g_rank) {
        return;
    }
    g_csv = fopen(o->csv_path, "w");
    if (NULL == g_csv) {
        fprintf(stderr, "rabred_bench: cannot write %s: %s\n", o->csv_path, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fprintf(g_csv, "coll,mode,max_delay_ms,late_rank,p,bytes,variant,round,iters,"
                   "avg_us,min_us,max_us,status\n");
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
    int index;
    g_tuned_loaded = MPI_SUCCESS == MPI_T_cvar_get_index("coll_tuned_use_dynamic_rules", &index);
    g_tuned_dynamic = read_int_cvar("coll_tuned_use_dynamic_rules", 0);

    size_t sizes[MAX_SIZES], max_bytes;
    max_bytes = largest(sizes, make_sizes(&o, sizes));
    double *sbuf = malloc(max_bytes), *rbuf = malloc(max_bytes);
    g_pristine = o.fresh_input ? malloc(max_bytes) : NULL;
    if (NULL == sbuf || NULL == rbuf || (o.fresh_input && NULL == g_pristine)) {
        fail_all("out of memory for the message buffers", NULL);
    }
    g_hosts = count_hosts();
    connect_all_pairs();
    open_csv(&o);
    if (0 == g_rank) {
        print_preamble(&o, g_hosts);
    }

    static coll_t allreduce = { .kind = COLL_ALLREDUCE, .label = "allreduce",
                                .rabred_cvar = "coll_rabred_allreduce_algorithm",
                                .tuned_cvar = "coll_tuned_allreduce_algorithm",
                                .alg_cvar = { .index = -1, .handle = MPI_T_CVAR_HANDLE_NULL } };
    static coll_t reduce = { .kind = COLL_REDUCE, .label = "reduce",
                             .rabred_cvar = "coll_rabred_reduce_algorithm",
                             .tuned_cvar = "coll_tuned_reduce_algorithm",
                             .alg_cvar = { .index = -1, .handle = MPI_T_CVAR_HANDLE_NULL } };
    counters_open(&g_counters[COLL_ALLREDUCE], "allreduce");
    counters_open(&g_counters[COLL_REDUCE], "reduce");
    exchange_open(&g_exchange);
    if (o.run_allreduce) {
        bench_coll(&allreduce, &o, sbuf, rbuf);
    }
    if (o.run_reduce) {
        bench_coll(&reduce, &o, sbuf, rbuf);
    }

    for (int i = 0; i < 2; i++) {
        if (g_counters[i].n > 0) {
            for (int j = 0; j < g_counters[i].n; j++) {
                rabred_mpit_pvar_close(&g_counters[i].pvar[j]);
            }
            MPI_T_pvar_session_free(&g_counters[i].session);
        }
    }
    if (g_exchange.found) {
        rabred_mpit_pvar_close(&g_exchange.seconds);
        rabred_mpit_pvar_close(&g_exchange.count);
        MPI_T_pvar_session_free(&g_exchange.session);
    }
    if (g_csv) {
        fclose(g_csv);
    }
    free(sbuf);
    free(rbuf);
    free(g_pristine);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
