/*
 * test_mpi_nonblocking.c -- MPI-level proof that coll/rabred's
 * MPI_Iallreduce and MPI_Ireduce give the blocking calls' results, that
 * rabred served them, and that its requests behave as MPI requests.
 *
 * What it proves, phase by phase (numbers as in the FAIL lines):
 *  1. Under every item of coll_rabred_{allreduce,reduce}_algorithm (read at
 *     run time, forced with MPI_T_cvar_write), counts {1, p-1, p, p+1,
 *     1031, 65539}, ops {int64 SUM, double SUM of values whose sum depends
 *     on the order, int32 MAX, a non-commutative 2x2 matrix product mod
 *     2^31-1}, in place and not, reduce at roots 0, p/2 and p-1: the
 *     nonblocking result has the blocking call's bits (memcmp); the exact
 *     ops also equal a reference folded here in rank order, the double sum
 *     is within rounding of the exact sum; send buffers are unchanged.
 *     Around each call exactly one of rabred's counters moved, by one: a
 *     coll_rabred_i<coll>_<item>_calls for the nonblocking call (none of
 *     the blocking ones), a coll_rabred_<coll>_<item>_calls for the
 *     blocking call; the forced item's whenever that algorithm's
 *     restrictions allow the call.  All ranks count the same algorithms.
 *  2. 8 requests in flight on one communicator (iallreduce and ireduce
 *     mixed, sizes, ops, roots), completed in reverse with MPI_Wait, with
 *     MPI_Waitany, by MPI_Testall polling, with MPI_Waitall; under auto and
 *     under every forced item, each time on a fresh communicator (so its
 *     first rabred call is a nonblocking one, with 7 more behind it).
 *  3. One request on each of world, two dups and a split in halves (fresh:
 *     first calls), completed in a scrambled order.
 *  4. An MPI_Iallreduce (and an MPI_Ireduce) in flight across a blocking
 *     MPI_Allreduce and MPI_Reduce on the same communicator.
 *  5. MPI_Request_free of an active MPI_Iallreduce.  MPI calls that
 *     erroneous; rabred documents that it accepts it and releases the
 *     request when it completes.  Later calls drive progress until the
 *     freed call's receive buffer holds the result (10 s at most).
 *  6. --hammer N small MPI_Iallreduce, up to 64 in flight, completed with
 *     MPI_Waitany and MPI_Testany as slots are needed.
 *  7. MPI_IN_PLACE (allreduce, and the root of reduce) in every phase.
 *  8. Under auto, a 4 MiB double SUM iallreduce with the blocking one's bits.
 *  9. With MPI-4 (Open MPI 5): under every item, one MPI_Allreduce_init /
 *     MPI_Reduce_init request started three times with new inputs in the
 *     same buffers; each start has the blocking call's bits and moves one
 *     nonblocking counter (rabred counts starts).
 * Phases 2-6 check that the counters of each collective moved, in all, by
 * the number of calls issued.  A nonblocking call is counted when it is
 * issued, except when it is rabred's first call on its communicator (then
 * by its completion): counters are read after completion.
 *
 * Phases 1 and 8 compare bits with coll_rabred_arrival_aware = 0 (written
 * through MPI_T, restored after): rabred documents that arrival-aware plans
 * reduce in arrival order, so their bits may differ from call to call;
 * with 0 a forced algorithm builds one plan for equal arrivals.
 *
 * The final tally uses MPI_Gather and MPI_Bcast, which rabred does not
 * replace.  Exit 0 only when every check passed on every rank.
 *
 * Flags: --quick (counts {1, p-1, p+1, 1031}, roots 0 and p-1),
 * --hammer N (requests of phase 6, default 2000), --no-rabred (hidden: no
 * MPI_T at all, so no forcing and no counters; the double sums take exact
 * values.  It checks this program's references against whatever serves
 * the calls, e.g. Open MPI's libnbc).
 */
#include <mpi.h>

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rabred_mpit.h"

#ifdef __GNUC__
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* ------------------------------------------------------------------------ */
/* Global state, options and reporting                                       */
/* ------------------------------------------------------------------------ */

enum {
    MAX_FAIL_LINES = 12,  /* per rank and phase: enough to diagnose */
    ODD_COUNT = 1031,     /* prime: no block split is even */
    BIG_COUNT = 65539,    /* prime; 512 KiB of int64: segmented plans */
    NFLIGHT = 8,          /* requests in flight in phase 2 */
    NFLIGHT_ROUNDS = 4,   /* one per completion style */
    NCOMMS = 4,           /* phase 3: world, two dups, a half */
    HAMMER_SLOTS = 64,
    HAMMER_MAX_COUNT = 64,
    DEFAULT_HAMMER = 2000,
    LARGE_COUNT = 524288, /* 4 MiB of doubles */
    MAX_ALGS = 32,        /* items per enum (RABRED_TABLE_MAX) */
    NAME_LEN = 128,
    MAX_ESIZE = 32,       /* bytes of the largest element (the matrix) */
    LOCAL_WORK = 2000     /* mixing steps between two polls */
};

/* A request that has not completed after this long has hung: its buffers
 * may still be written, so the test cannot go on and aborts. */
static const double HANG_SECONDS = 120.0;
/* How long phase 5 waits for the freed request, driving progress. */
static const double FREED_SECONDS = 10.0;

static struct {
    bool quick, no_rabred;
    long hammer;
    int world_rank, world_size;
    long checks, failed;
    int fail_lines;     /* printed in the current phase */
    char phase[160];
    bool nodes_ordered; /* each node's ranks consecutive (coll_rabred_node_map) */
} g;

/* Each phase gets its own budget of failure lines, so that early failures
 * cannot hide later ones. */
static void start_phase(const char *name)
{
    snprintf(g.phase, sizeof g.phase, "%s", name);
    g.fail_lines = 0;
}

static void print_fail(const char *fmt, va_list ap)
{
    char line[1024];
    int used;
    if (g.fail_lines == MAX_FAIL_LINES)
        fprintf(stderr, "FAIL [rank %d] [%s] further failure lines suppressed\n",
                g.world_rank, g.phase);
    if (g.fail_lines++ >= MAX_FAIL_LINES)
        return;
    used = snprintf(line, sizeof line, "FAIL [rank %d] [%s] ", g.world_rank, g.phase);
    vsnprintf(line + used, sizeof line - (size_t)used - 1, fmt, ap);
    /* One write per line: mpirun interleaves the writes of the ranks. */
    strcat(line, "\n");
    fputs(line, stderr);
}

/* Counts one check; prints the formatted detail line when it failed. */
static bool PRINTF_LIKE(2, 3) expect(bool ok, const char *fmt, ...)
{
    g.checks++;
    if (!ok) {
        va_list ap;
        g.failed++;
        va_start(ap, fmt);
        print_fail(fmt, ap);
        va_end(ap);
    }
    return ok;
}

/* A request that will not complete (or an error that leaves requests in an
 * unknown state): nothing after it can be trusted. */
static void PRINTF_LIKE(1, 2) fatal(const char *fmt, ...)
{
    va_list ap;
    g.fail_lines = 0;
    va_start(ap, fmt);
    print_fail(fmt, ap);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", g.world_rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Operations: generator, sequential reference and MPI handles               */
/* ------------------------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t hash2(int rank, uint64_t i)
{
    return mix64(mix64(i) ^ ((uint64_t)rank << 40));
}

/* Local work between two polls: the application computing while its
 * reductions progress (or not) in the background. */
static volatile uint64_t g_sink;
static void local_work(void)
{
    uint64_t x = g_sink;
    for (int k = 0; k < LOCAL_WORK; k++)
        x = mix64(x + (uint64_t)k);
    g_sink = x;
}

typedef struct {
    const char *name;
    MPI_Datatype dt; /* the matrix's is built at start-up */
    MPI_Op op;       /* the matrix's is created at start-up */
    size_t esize;    /* bytes per element */
    bool commute;
    bool exact;      /* the reference is exact: compared bit for bit */
    /* rank's contribution at element index i */
    void (*gen)(int rank, uint64_t i, void *elem);
    /* out = lo op hi (lo from the lower ranks); out may alias either */
    void (*combine)(const void *lo, const void *hi, void *out);
    void (*format)(const void *elem, char *out, size_t len);
} op_desc;

/* 40-bit values: p of them cannot overflow int64 (p < 2^23). */
static void gen_sum_i64(int rank, uint64_t i, void *elem)
{
    int64_t v = (int64_t)(hash2(rank, i) >> 24) - ((int64_t)1 << 39);
    memcpy(elem, &v, sizeof v);
}

static void combine_sum_i64(const void *lo, const void *hi, void *out)
{
    int64_t a, b;
    memcpy(&a, lo, sizeof a);
    memcpy(&b, hi, sizeof b);
    a += b;
    memcpy(out, &a, sizeof a);
}

static void format_i64(const void *elem, char *out, size_t len)
{
    int64_t v;
    memcpy(&v, elem, sizeof v);
    snprintf(out, len, "%" PRId64, v);
}

/* Full-width int32 patterns: signs and ties of the high bits matter. */
static void gen_max_i32(int rank, uint64_t i, void *elem)
{
    int32_t v = (int32_t)(uint32_t)hash2(rank, i);
    memcpy(elem, &v, sizeof v);
}

static void combine_max_i32(const void *lo, const void *hi, void *out)
{
    int32_t a, b;
    memcpy(&a, lo, sizeof a);
    memcpy(&b, hi, sizeof b);
    a = b > a ? b : a;
    memcpy(out, &a, sizeof a);
}

static void format_i32(const void *elem, char *out, size_t len)
{
    int32_t v;
    memcpy(&v, elem, sizeof v);
    snprintf(out, len, "%" PRId32, v);
}

static const int64_t MATRIX_PRIME = 2147483647; /* 2^31 - 1 */

static void gen_matrix(int rank, uint64_t i, void *elem)
{
    int64_t m[4];
    for (int f = 0; f < 4; f++)
        m[f] = (int64_t)(hash2(rank, 4 * i + (uint64_t)f) % (uint64_t)MATRIX_PRIME);
    memcpy(elem, m, sizeof m);
}

/* Row-major 2x2 product mod 2^31-1: random matrices do not commute, so any
 * reordering of the ranks' operands shows. */
static void combine_matrix(const void *lo, const void *hi, void *out)
{
    int64_t a[4], b[4], r[4];
    memcpy(a, lo, sizeof a);
    memcpy(b, hi, sizeof b);
    for (int row = 0; row < 2; row++)
        for (int col = 0; col < 2; col++)
            r[2 * row + col] = (a[2 * row] * b[col] % MATRIX_PRIME
                                + a[2 * row + 1] * b[2 + col] % MATRIX_PRIME)
                               % MATRIX_PRIME;
    memcpy(out, r, sizeof r);
}

static void format_matrix(const void *elem, char *out, size_t len)
{
    int64_t m[4];
    memcpy(m, elem, sizeof m);
    snprintf(out, len, "{%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "}", m[0], m[1],
             m[2], m[3]);
}

/* MPI user-function semantics: inoutvec[i] = invec[i] op inoutvec[i]. */
static void user_matrix(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        combine_matrix((char *)in + (size_t)i * MAX_ESIZE, (char *)inout + (size_t)i * MAX_ESIZE,
                       (char *)inout + (size_t)i * MAX_ESIZE);
}

/* Multiples of 1/4 in [-5, 5]: every partial sum is exact in any order,
 * and never -0.0, so any correct order gives the same bits. */
static void gen_dsum_exact(int rank, uint64_t i, void *elem)
{
    double v = (double)((int)(hash2(rank, i) % 41) - 20) * 0.25;
    memcpy(elem, &v, sizeof v);
}

/* +-1e16, 1 and fractions, scaled per rank: the double sum depends on the
 * association order, so bitwise agreement is a real property. */
static void gen_dsum_order(int rank, uint64_t i, void *elem)
{
    uint64_t h = hash2(rank, i);
    double choice[4] = {1e16, 1.0, -1e16, (double)(h % 1000003) / 1000003.0 * 3.7};
    double v = choice[((uint64_t)rank + i) % 4] * (1.0 + (double)rank / 7.0);
    memcpy(elem, &v, sizeof v);
}

static void combine_dsum(const void *lo, const void *hi, void *out)
{
    double a, b;
    memcpy(&a, lo, sizeof a);
    memcpy(&b, hi, sizeof b);
    a += b;
    memcpy(out, &a, sizeof a);
}

static void format_double(const void *elem, char *out, size_t len)
{
    double v;
    memcpy(&v, elem, sizeof v);
    snprintf(out, len, "%.17g", v);
}

enum { OP_SUM_I64, OP_MAX_I32, OP_MATRIX, OP_DSUM_EXACT, OP_DSUM_ORDER, NOPS };

static op_desc OPS[NOPS] = {
    [OP_SUM_I64] = {"SUM(int64)", MPI_INT64_T, MPI_SUM, 8, true, true, gen_sum_i64,
                    combine_sum_i64, format_i64},
    [OP_MAX_I32] = {"MAX(int32)", MPI_INT32_T, MPI_MAX, 4, true, true, gen_max_i32,
                    combine_max_i32, format_i32},
    [OP_MATRIX] = {"matrix2x2(noncommutative)", MPI_DATATYPE_NULL, MPI_OP_NULL, MAX_ESIZE,
                   false, true, gen_matrix, combine_matrix, format_matrix},
    [OP_DSUM_EXACT] = {"SUM(double,exact)", MPI_DOUBLE, MPI_SUM, 8, true, true, gen_dsum_exact,
                       combine_dsum, format_double},
    [OP_DSUM_ORDER] = {"SUM(double,order-dependent)", MPI_DOUBLE, MPI_SUM, 8, true, false,
                       gen_dsum_order, combine_dsum, format_double},
};

/* The double sum of the bitwise phases: order-dependent under rabred;
 * exact without it, where nothing makes two implementations agree. */
static const op_desc *fp_op(void)
{
    return &OPS[g.no_rabred ? OP_DSUM_EXACT : OP_DSUM_ORDER];
}

static void setup_ops(void)
{
    MPI_Type_contiguous(4, MPI_INT64_T, &OPS[OP_MATRIX].dt);
    MPI_Type_commit(&OPS[OP_MATRIX].dt);
    MPI_Op_create(user_matrix, 0, &OPS[OP_MATRIX].op);
}

static void free_ops(void)
{
    MPI_Op_free(&OPS[OP_MATRIX].op);
    MPI_Type_free(&OPS[OP_MATRIX].dt);
}

/* ------------------------------------------------------------------------ */
/* Expected results: contributions folded in rank order.  Phase 1 asks for   */
/* the same (op, p, salt) under every item, so a few are kept per op; the    */
/* inputs at index i do not depend on the count, so one array serves all.   */
/* ------------------------------------------------------------------------ */

enum { REF_WAYS = 4 };
typedef struct {
    int p, n;
    uint64_t salt;
    unsigned char *v;
} ref_entry;
static ref_entry g_ref[NOPS][REF_WAYS];
static int g_ref_next[NOPS];

static void fold_reference(const op_desc *op, int p, uint64_t salt, int from, int to,
                           unsigned char *out)
{
    unsigned char next[MAX_ESIZE];
    for (int i = from; i < to; i++) {
        unsigned char *acc = out + (size_t)i * op->esize;
        op->gen(0, salt + (uint64_t)i, acc);
        for (int r = 1; r < p; r++) {
            op->gen(r, salt + (uint64_t)i, next);
            op->combine(acc, next, acc);
        }
    }
}

/* Valid until the next call for the same op. */
static const unsigned char *expected(const op_desc *op, int p, uint64_t salt, int count)
{
    int o = (int)(op - OPS);
    ref_entry *e = NULL;
    for (int w = 0; w < REF_WAYS && e == NULL; w++)
        if (g_ref[o][w].v != NULL && g_ref[o][w].p == p && g_ref[o][w].salt == salt)
            e = &g_ref[o][w];
    if (e == NULL) {
        e = &g_ref[o][g_ref_next[o]++ % REF_WAYS];
        e->p = p;
        e->salt = salt;
        e->n = 0;
    }
    if (count > e->n) {
        e->v = realloc(e->v, (size_t)count * op->esize);
        if (e->v == NULL)
            MPI_Abort(MPI_COMM_WORLD, 2);
        fold_reference(op, p, salt, e->n, count, e->v);
        e->n = count;
    }
    return e->v;
}

static void free_references(void)
{
    for (int o = 0; o < NOPS; o++)
        for (int w = 0; w < REF_WAYS; w++)
            free(g_ref[o][w].v);
}

/* ------------------------------------------------------------------------ */
/* rabred's MPI_T interface: algorithm cvars and per-algorithm counters of   */
/* the blocking and the nonblocking collectives                              */
/* ------------------------------------------------------------------------ */

typedef enum { COLL_ALLREDUCE, COLL_REDUCE, NCOLLS } coll_id;
static const char *const COLL_NAMES[NCOLLS] = {"allreduce", "reduce"};

/* Counter families: the blocking collectives, then their nonblocking twins
 * (family = coll + NCOLLS * nonblocking). */
typedef enum { FAM_ALLREDUCE, FAM_REDUCE, FAM_IALLREDUCE, FAM_IREDUCE, NFAMS } family_id;
static const char *const FAM_NAMES[NFAMS] = {"allreduce", "reduce", "iallreduce", "ireduce"};

static family_id family_of(coll_id c, bool nonblocking)
{
    return (family_id)(c + (nonblocking ? NCOLLS : 0));
}

static const char *mpi_name(coll_id c, bool nonblocking)
{
    static const char *const names[NFAMS] = {"MPI_Allreduce", "MPI_Reduce", "MPI_Iallreduce",
                                             "MPI_Ireduce"};
    return names[family_of(c, nonblocking)];
}

typedef struct {
    char name[NAME_LEN];
    int value;                  /* enum value written to the cvar */
    bool counted;               /* every item except auto */
    rabred_mpit_pvar_t pvar[2]; /* blocking, nonblocking */
} alg_item;

typedef struct {
    rabred_mpit_cvar_t cvar;
    int nalgs, current, auto_idx, previous_idx;
    alg_item alg[MAX_ALGS];
} coll_ctl;

static coll_ctl g_ctl[NCOLLS];
static MPI_T_pvar_session g_session = MPI_T_PVAR_SESSION_NULL;
static rabred_mpit_cvar_t g_arrival; /* coll_rabred_arrival_aware, if settable */

typedef struct {
    unsigned long long v[NFAMS][MAX_ALGS];
} counts_t;

static bool not_loaded(const char *what, const char *name, int rc)
{
    if (g.world_rank == 0)
        fprintf(stderr, "FAIL rabred is not loaded/selected: MPI_T %s '%s' not usable (error "
                "%d). Run with --mca coll rabred,... (scripts/mpirun-rabred.sh).\n",
                what, name, rc);
    return expect(false, "rabred MPI_T %s '%s' missing", what, name);
}

static bool nonblocking_missing(const char *name, int rc)
{
    if (g.world_rank == 0)
        fprintf(stderr, "FAIL rabred's nonblocking counters are missing (rabred not serving "
                "MPI_Iallreduce/MPI_Ireduce): MPI_T performance variable '%s' not usable "
                "(error %d)\n", name, rc);
    return expect(false, "rabred MPI_T performance variable '%s' missing", name);
}

static int find_item(const coll_ctl *ctl, const char *name)
{
    for (int a = 0; a < ctl->nalgs; a++)
        if (strcmp(ctl->alg[a].name, name) == 0)
            return a;
    return -1;
}

static bool read_enum_items(coll_ctl *ctl, MPI_T_enum et, const char *cvar)
{
    rabred_mpit_item_t items[MAX_ALGS];
    int num = 0;
    if (rabred_mpit_enum_items(et, items, MAX_ALGS, &num) != MPI_SUCCESS || num < 1
        || num > MAX_ALGS)
        return not_loaded("enum of control variable", cvar, num);
    ctl->nalgs = num;
    for (int a = 0; a < num; a++) {
        if (!expect(items[a].rc == MPI_SUCCESS, "%s: enum item %d unreadable", cvar, a))
            return false;
        ctl->alg[a].value = items[a].value;
        snprintf(ctl->alg[a].name, sizeof ctl->alg[a].name, "%s", items[a].name);
    }
    ctl->auto_idx = find_item(ctl, "auto");
    ctl->previous_idx = find_item(ctl, "previous");
    ctl->current = ctl->auto_idx;
    return expect(ctl->auto_idx >= 0 && ctl->previous_idx >= 0,
                  "%s: enum lacks the 'auto' or 'previous' item", cvar);
}

static bool attach_cvar(coll_id c)
{
    char name[NAME_LEN];
    rabred_mpit_cvar_t *cv = &g_ctl[c].cvar;
    int rc;
    snprintf(name, sizeof name, "coll_rabred_%s_algorithm", COLL_NAMES[c]);
    rc = rabred_mpit_cvar_find(name, cv);
    if (cv->index < 0)
        return not_loaded("control variable", name, rc);
    if (!expect(rc == MPI_SUCCESS && cv->datatype == MPI_INT && cv->enumtype != MPI_T_ENUM_NULL,
                "cvar %s: get_info rc %d, must be an int enum", name, rc))
        return false;
    if (!read_enum_items(&g_ctl[c], cv->enumtype, name))
        return false;
    rc = rabred_mpit_cvar_open(cv);
    return expect(rc == MPI_SUCCESS && cv->count == 1, "cvar %s: handle_alloc rc %d count %d",
                  name, rc, cv->count);
}

static int open_counter(const char *name, rabred_mpit_pvar_t *pv)
{
    int rc = rabred_mpit_pvar_find(name, MPI_T_PVAR_CLASS_COUNTER, pv);
    if (rc == MPI_SUCCESS)
        rc = rabred_mpit_pvar_open(g_session, pv);
    if (rc == MPI_SUCCESS && (pv->count != 1 || pv->datatype != MPI_UNSIGNED_LONG_LONG))
        rc = MPI_T_ERR_INVALID;
    return rc;
}

/* coll_rabred_<coll>_<item>_calls and coll_rabred_i<coll>_<item>_calls for
 * every item but auto.  The blocking ones missing means rabred is absent;
 * the nonblocking ones alone, that it does not serve the I-calls yet. */
static bool attach_pvars(coll_id c)
{
    coll_ctl *ctl = &g_ctl[c];
    for (int a = 0; a < ctl->nalgs; a++) {
        if (a == ctl->auto_idx)
            continue;
        for (int nb = 0; nb < 2; nb++) {
            char name[2 * NAME_LEN];
            int rc;
            snprintf(name, sizeof name, "coll_rabred_%s_%s_calls", FAM_NAMES[family_of(c, nb)],
                     ctl->alg[a].name);
            rc = open_counter(name, &ctl->alg[a].pvar[nb]);
            if (rc != MPI_SUCCESS)
                return nb ? nonblocking_missing(name, rc) : not_loaded("performance variable",
                                                                        name, rc);
        }
        ctl->alg[a].counted = true;
    }
    return true;
}

/* Optional: without a settable coll_rabred_arrival_aware the bitwise phases
 * run with whatever it is; a node map that is not a block map lets the
 * node-aware algorithms refuse non-commutative ops. */
static void attach_settings(void)
{
    rabred_mpit_cvar_t map;
    char value[NAME_LEN] = "";
    if (rabred_mpit_cvar_find("coll_rabred_arrival_aware", &g_arrival) != MPI_SUCCESS
        || rabred_mpit_cvar_read_only(&g_arrival)
        || rabred_mpit_cvar_open(&g_arrival) != MPI_SUCCESS) {
        g_arrival.handle = MPI_T_CVAR_HANDLE_NULL;
        if (g.world_rank == 0)
            printf("note: coll_rabred_arrival_aware is not settable through MPI_T; the "
                   "bitwise phases keep its value\n");
    }
    g.nodes_ordered = true;
    if (rabred_mpit_cvar_find("coll_rabred_node_map", &map) == MPI_SUCCESS
        && rabred_mpit_cvar_open(&map) == MPI_SUCCESS) {
        rabred_mpit_cvar_read_string(&map, value, sizeof value);
        g.nodes_ordered = value[0] == '\0' || strncmp(value, "block:", 6) == 0;
        rabred_mpit_cvar_close(&map);
    }
}

static void print_items(coll_id c)
{
    char line[MAX_ALGS * (NAME_LEN + 1)] = "";
    if (g.world_rank != 0)
        return;
    for (int a = 0; a < g_ctl[c].nalgs; a++) {
        strcat(line, " ");
        strcat(line, g_ctl[c].alg[a].name);
    }
    printf("rabred %s/i%s algorithms:%s\n", COLL_NAMES[c], COLL_NAMES[c], line);
}

static bool setup_mpi_t(void)
{
    int provided;
    bool ok = true;
    if (g.no_rabred) {
        for (int c = 0; c < NCOLLS; c++) {
            g_ctl[c].nalgs = 1;
            g_ctl[c].current = 0;
            g_ctl[c].auto_idx = g_ctl[c].previous_idx = -1;
            strcpy(g_ctl[c].alg[0].name, "stock-open-mpi");
        }
        return true;
    }
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&g_session);
    for (int c = 0; c < NCOLLS && ok; c++)
        ok = attach_cvar((coll_id)c) && attach_pvars((coll_id)c);
    if (ok) {
        attach_settings();
        print_items(COLL_ALLREDUCE);
        print_items(COLL_REDUCE);
    }
    return ok;
}

static void teardown_mpi_t(void)
{
    if (g.no_rabred)
        return;
    for (int c = 0; c < NCOLLS; c++) {
        for (int a = 0; a < g_ctl[c].nalgs; a++) {
            rabred_mpit_pvar_close(&g_ctl[c].alg[a].pvar[0]);
            rabred_mpit_pvar_close(&g_ctl[c].alg[a].pvar[1]);
        }
        rabred_mpit_cvar_close(&g_ctl[c].cvar);
    }
    rabred_mpit_cvar_close(&g_arrival);
    if (g_session != MPI_T_PVAR_SESSION_NULL)
        MPI_T_pvar_session_free(&g_session);
    MPI_T_finalize();
}

/* Every rank writes the same value, then a barrier: rabred reads the cvar
 * at call time, and no rank may start the next call under the old value. */
static void force_algorithm(coll_id c, int item)
{
    coll_ctl *ctl = &g_ctl[c];
    int value = ctl->alg[item].value, readback = -1, rc;
    ctl->current = item;
    if (g.no_rabred)
        return;
    rc = rabred_mpit_cvar_write_int(&ctl->cvar, value);
    if (rc == MPI_SUCCESS)
        rc = rabred_mpit_cvar_read_int(&ctl->cvar, &readback);
    expect(rc == MPI_SUCCESS && readback == value,
           "cannot force %s algorithm %s: cvar write/read rc %d, read %d", COLL_NAMES[c],
           ctl->alg[item].name, rc, readback);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void force_auto(void)
{
    for (int c = 0; c < NCOLLS; c++)
        force_algorithm((coll_id)c, g.no_rabred ? 0 : g_ctl[c].auto_idx);
}

/* Sets coll_rabred_arrival_aware (same value on every rank, then a
 * barrier, as for the algorithms); returns the value it had, or -1. */
static int set_arrival(int on)
{
    int before = -1;
    if (g.no_rabred || g_arrival.handle == MPI_T_CVAR_HANDLE_NULL || on < 0)
        return -1;
    expect(rabred_mpit_cvar_read_int(&g_arrival, &before) == MPI_SUCCESS
               && rabred_mpit_cvar_write_int(&g_arrival, on) == MPI_SUCCESS,
           "cannot set coll_rabred_arrival_aware to %d", on);
    MPI_Barrier(MPI_COMM_WORLD);
    return before;
}

static void snapshot(counts_t *out)
{
    memset(out, 0, sizeof *out);
    if (g.no_rabred)
        return;
    for (int f = 0; f < NFAMS; f++) {
        const coll_ctl *ctl = &g_ctl[f % NCOLLS];
        for (int a = 0; a < ctl->nalgs; a++)
            if (ctl->alg[a].counted
                && rabred_mpit_pvar_read_counter(&ctl->alg[a].pvar[f / NCOLLS], &out->v[f][a])
                       != MPI_SUCCESS)
                expect(false, "MPI_T_pvar_read of coll_rabred_%s_%s_calls failed", FAM_NAMES[f],
                       ctl->alg[a].name);
    }
}

/* ------------------------------------------------------------------------ */
/* Communicators and calls                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
    char name[32];
    MPI_Comm comm;
    int rank, size;
    uint64_t served_hash; /* which counters moved, compared across ranks */
} comm_desc;

static void make_comm(comm_desc *d, MPI_Comm comm, const char *name)
{
    d->comm = comm;
    MPI_Comm_rank(comm, &d->rank);
    MPI_Comm_size(comm, &d->size);
    snprintf(d->name, sizeof d->name, "%s", name);
    d->served_hash = 0;
}

/* A fresh duplicate of world: rabred's first call on it is whatever the
 * phase issues first. */
static void make_dup(comm_desc *d, const char *name)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    make_comm(d, dup, name);
}

enum { SEND_CANARY = 0x5A, RECV_CANARY = 0xA5 };

typedef struct {
    coll_id coll;
    const op_desc *op;
    int count, root;
    bool inplace;
    comm_desc *comm;
    uint64_t salt;            /* shifts element indices: fresh values */
    /* set by call_prepare */
    unsigned char *data;      /* this rank's contribution */
    unsigned char *recv;      /* separate receive buffer, or NULL */
    unsigned char *pristine;  /* copy of data when data is a send buffer */
    const void *sbuf;         /* as passed to MPI */
    void *rbuf;
    unsigned char *result;    /* where this rank's result lands, or NULL */
    size_t bytes;
    bool live;                /* issued and not failed */
    char what[256];
} call_t;

static call_t make_call(coll_id coll, int op, int count, int root, bool inplace, comm_desc *cm,
                        uint64_t salt)
{
    call_t c;
    memset(&c, 0, sizeof c);
    c.coll = coll;
    c.op = &OPS[op];
    c.count = count;
    c.root = root;
    c.inplace = inplace;
    c.comm = cm;
    c.salt = salt;
    return c;
}

static void describe(call_t *c)
{
    char root[16] = "-";
    if (c->coll == COLL_REDUCE)
        snprintf(root, sizeof root, "%d", c->root);
    snprintf(c->what, sizeof c->what,
             "%s op=%s count=%d root=%s inplace=%d comm=%s(p=%d) comm_rank=%d salt=%" PRIu64,
             COLL_NAMES[c->coll], c->op->name, c->count, root, (int)c->inplace, c->comm->name,
             c->comm->size, c->comm->rank, c->salt);
}

/* In place: allreduce everywhere, reduce at the root; a reduce non-root
 * then passes recvbuf = NULL, which MPI allows (insignificant there). */
static void call_prepare(call_t *c)
{
    bool gets_result = c->coll == COLL_ALLREDUCE || c->comm->rank == c->root;
    c->bytes = (size_t)c->count * c->op->esize;
    c->data = xmalloc(c->bytes);
    for (int i = 0; i < c->count; i++)
        c->op->gen(c->comm->rank, c->salt + (uint64_t)i, c->data + (size_t)i * c->op->esize);
    describe(c);
    if (c->inplace && gets_result) {
        c->sbuf = MPI_IN_PLACE;
        c->rbuf = c->result = c->data;
        return;
    }
    c->pristine = xmalloc(c->bytes);
    memcpy(c->pristine, c->data, c->bytes);
    c->sbuf = c->data;
    if (c->inplace)
        return;
    c->recv = xmalloc(c->bytes);
    memset(c->recv, RECV_CANARY, c->bytes);
    c->rbuf = c->recv;
    c->result = gets_result ? c->recv : NULL;
}

static void call_free(call_t *c)
{
    free(c->data);
    free(c->recv);
    free(c->pristine);
    c->data = c->recv = c->pristine = c->result = NULL;
    c->live = false;
}

/* Blocking when req is NULL. */
static bool call_issue(call_t *c, MPI_Request *req)
{
    MPI_Comm comm = c->comm->comm;
    MPI_Datatype dt = c->op->dt;
    MPI_Op op = c->op->op;
    int rc;
    if (req != NULL)
        *req = MPI_REQUEST_NULL;
    if (c->coll == COLL_ALLREDUCE)
        rc = req ? MPI_Iallreduce(c->sbuf, c->rbuf, c->count, dt, op, comm, req)
                 : MPI_Allreduce(c->sbuf, c->rbuf, c->count, dt, op, comm);
    else
        rc = req ? MPI_Ireduce(c->sbuf, c->rbuf, c->count, dt, op, c->root, comm, req)
                 : MPI_Reduce(c->sbuf, c->rbuf, c->count, dt, op, c->root, comm);
    c->live = expect(rc == MPI_SUCCESS, "%s %s: error %d", mpi_name(c->coll, req != NULL),
                     c->what, rc);
    return c->live;
}

static bool call_wait(call_t *c, MPI_Request *req)
{
    int rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    c->live = expect(rc == MPI_SUCCESS, "MPI_Wait on %s %s: error %d",
                     mpi_name(c->coll, true), c->what, rc);
    return c->live;
}

/* -1 when the n elements of esize bytes are equal, else the first index
 * that differs. */
static int first_diff(const unsigned char *a, const unsigned char *b, int n, size_t esize)
{
    if (memcmp(a, b, (size_t)n * esize) == 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (memcmp(a + (size_t)i * esize, b + (size_t)i * esize, esize) != 0)
            return i;
    return -1;
}

static void check_sendbuf(const call_t *c)
{
    size_t at = 0;
    if (c->pristine == NULL)
        return;
    while (at < c->bytes && c->data[at] == c->pristine[at])
        at++;
    expect(at == c->bytes, "%s: send buffer modified at byte %zu", c->what, at);
}

/* The order-dependent sum cannot be predicted bit for bit, but it must be
 * within rounding of the exact sum: catches garbage and lost terms. */
static void check_fp_close(const call_t *c)
{
    int p = c->comm->size;
    for (int i = 0; i < c->count; i++) {
        long double exact = 0.0L, magnitude = 0.0L, err;
        double got, x;
        memcpy(&got, c->result + (size_t)i * sizeof got, sizeof got);
        for (int r = 0; r < p; r++) {
            c->op->gen(r, c->salt + (uint64_t)i, &x);
            exact += x;
            magnitude += x < 0 ? -x : x;
        }
        err = (long double)got - exact;
        if ((err < 0 ? -err : err) > (p + 1) * DBL_EPSILON * magnitude) {
            expect(false, "%s: index %d got %.17g, exact sum %.21Lg (error beyond rounding)",
                   c->what, i, got, exact);
            return;
        }
    }
    expect(true, "%s", c->what);
}

static void check_result(const call_t *c)
{
    const unsigned char *want;
    int bad;
    if (c->result == NULL)
        return;
    if (!c->op->exact) {
        check_fp_close(c);
        return;
    }
    want = expected(c->op, c->comm->size, c->salt, c->count);
    bad = first_diff(c->result, want, c->count, c->op->esize);
    if (bad >= 0) {
        char gs[128], ws[128];
        c->op->format(c->result + (size_t)bad * c->op->esize, gs, sizeof gs);
        c->op->format(want + (size_t)bad * c->op->esize, ws, sizeof ws);
        expect(false, "%s: first bad index %d: got %s expected %s", c->what, bad, gs, ws);
        return;
    }
    expect(true, "%s", c->what);
}

static void call_verify(const call_t *c)
{
    if (!c->live)
        return;
    check_sendbuf(c);
    check_result(c);
}

/* ------------------------------------------------------------------------ */
/* Which algorithm served a call                                             */
/* ------------------------------------------------------------------------ */

enum { NEEDS_COMMUTATIVE = 1u, NEEDS_COUNT_GE_POF2 = 2u, NEEDS_ORDERED_NODES = 4u,
       NEEDS_COUNT_GE_P = 8u };
typedef struct {
    const char *name;
    unsigned needs;
} known_alg;

/* Restrictions of the algorithms this test knows (each algorithm's
 * descriptor, listed in algorithms/rabred_table.c; allreduce and reduce
 * agree on the names they share).  For any other item we cannot know when
 * it falls back, so only "exactly one counter moved" is required of it. */
static const known_alg KNOWN_ALGS[] = {
    {"previous", 0},
    {"recursive_doubling", 0},
    {"rabenseifner", NEEDS_COUNT_GE_POF2},
    {"pairwise_ring", NEEDS_COMMUTATIVE},
    {"linear", 0},
    {"binary_tree", 0},
    {"binary_blocks", 0},
    {"bruck", NEEDS_COMMUTATIVE},
    {"neighbor_ring", NEEDS_COMMUTATIVE},
    {"sorted_linear_tree", NEEDS_COMMUTATIVE},
    {"prereduced_ring", NEEDS_COMMUTATIVE},
    {"prereduced_scatter", NEEDS_COMMUTATIVE},
    {"node_lanes", NEEDS_ORDERED_NODES},
    {"node_leaders", NEEDS_ORDERED_NODES},
    {"node_lanes_ring", NEEDS_COMMUTATIVE},
    {"binomial", 0},
    {"pairwise_gather", NEEDS_COMMUTATIVE},
    {"pipeline", 0},
    {"node_chain", NEEDS_ORDERED_NODES},
    {"direct", NEEDS_COUNT_GE_P},
    {"node_leaders_direct", NEEDS_ORDERED_NODES},
};

static int pow2_floor(int p)
{
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    return q;
}

static bool forced_must_serve(const char *alg, const call_t *c)
{
    for (size_t k = 0; k < sizeof KNOWN_ALGS / sizeof KNOWN_ALGS[0]; k++) {
        unsigned needs = KNOWN_ALGS[k].needs;
        if (strcmp(KNOWN_ALGS[k].name, alg) != 0)
            continue;
        if ((needs & NEEDS_COMMUTATIVE) && !c->op->commute)
            return false;
        if ((needs & NEEDS_COUNT_GE_POF2) && c->count < pow2_floor(c->comm->size))
            return false;
        if ((needs & NEEDS_COUNT_GE_P) && c->count < c->comm->size)
            return false;
        return !((needs & NEEDS_ORDERED_NODES) && !c->op->commute && !g.nodes_ordered);
    }
    return false;
}

static const char *item_name(coll_id c, int item)
{
    return item >= 0 ? g_ctl[c].alg[item].name : "-";
}

static bool item_is_previous(coll_id c, int item)
{
    return strcmp(item_name(c, item), "previous") == 0;
}

/* The first counter outside the call's family that moved (and may not),
 * for the FAIL line. */
static void name_stray(const counts_t *before, const counts_t *after, const bool *may_move,
                       char *out, size_t len)
{
    snprintf(out, len, "-");
    for (int f = 0; f < NFAMS; f++)
        for (int a = 0; a < MAX_ALGS; a++)
            if (!may_move[f] && after->v[f][a] != before->v[f][a]) {
                snprintf(out, len, "coll_rabred_%s_%s_calls", FAM_NAMES[f],
                         g_ctl[f % NCOLLS].alg[a].name);
                return;
            }
}

/* Around one call: exactly one counter of the call's family moved, by one,
 * and it is the forced item's when that one must serve; no counter of
 * another family moved.  One exception: the component below rabred may
 * serve a call with rabred's other collective of the same kind (coll/basic's
 * MPI_Allreduce is an MPI_Reduce and an MPI_Bcast on the same
 * communicator), so under "previous" that family may move too.  Returns
 * the item that served, or -1. */
static int check_served(const call_t *c, bool nonblocking, const counts_t *before,
                        const counts_t *after)
{
    const coll_ctl *ctl = &g_ctl[c->coll];
    family_id want = family_of(c->coll, nonblocking);
    family_id nested = family_of((coll_id)(NCOLLS - 1 - c->coll), nonblocking);
    int moved[NFAMS] = {0}, served = -1, stray = 0;
    bool may_move[NFAMS] = {false};
    unsigned long long delta = 0;
    char stray_name[2 * NAME_LEN];
    if (g.no_rabred || !c->live)
        return -1;
    for (int f = 0; f < NFAMS; f++)
        for (int a = 0; a < MAX_ALGS; a++)
            if (after->v[f][a] != before->v[f][a]) {
                moved[f]++;
                if (f == (int)want) {
                    served = a;
                    delta = after->v[f][a] - before->v[f][a];
                }
            }
    may_move[want] = true;
    may_move[nested] = moved[want] == 1 && served == ctl->previous_idx;
    for (int f = 0; f < NFAMS; f++)
        stray += may_move[f] ? 0 : moved[f];
    name_stray(before, after, may_move, stray_name, sizeof stray_name);
    if (!expect(moved[want] == 1 && delta == 1 && stray == 0,
                "%s %s: %d coll_rabred_%s_*_calls counters moved (the last, %s, by %llu) and "
                "%d others (first: %s); want exactly one of the first, by 1, and none of the "
                "others%s", mpi_name(c->coll, nonblocking), c->what, moved[want],
                FAM_NAMES[want], item_name(c->coll, served), delta, stray, stray_name,
                moved[want] == 0 ? " (rabred did not serve this call)" : ""))
        return -1;
    c->comm->served_hash = mix64(c->comm->served_hash ^ (uint64_t)(served + 64 * (int)want));
    if (ctl->current != ctl->auto_idx && forced_must_serve(ctl->alg[ctl->current].name, c))
        expect(served == ctl->current, "%s %s: served by '%s', but the forced '%s' allows "
               "this call", mpi_name(c->coll, nonblocking), c->what, ctl->alg[served].name,
               ctl->alg[ctl->current].name);
    return served;
}

/* All ranks of a communicator must have counted the same algorithms (else
 * they ran different ones).  MPI_Allgather is not served by rabred. */
static void compare_served_hashes(comm_desc *cm)
{
    uint64_t *all = xmalloc((size_t)cm->size * sizeof *all);
    int first_diff_rank = -1;
    if (g.no_rabred) {
        free(all);
        return;
    }
    MPI_Allgather(&cm->served_hash, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, cm->comm);
    for (int r = 0; r < cm->size && first_diff_rank < 0; r++)
        if (all[r] != all[0])
            first_diff_rank = r;
    expect(first_diff_rank < 0, "comm %s: rank %d counted other algorithms than rank 0 in the "
           "same calls", cm->name, first_diff_rank);
    cm->served_hash = 0;
    free(all);
}

/* Phases with many calls in flight check totals: each collective's
 * counters moved, in all, by the calls of that collective issued. */
typedef struct {
    counts_t before;
    long issued[NFAMS];
} tally_t;

static void tally_begin(tally_t *t)
{
    memset(t->issued, 0, sizeof t->issued);
    snapshot(&t->before);
}

static void tally_issued(tally_t *t, const call_t *c, bool nonblocking)
{
    if (c->live)
        t->issued[family_of(c->coll, nonblocking)]++;
}

static void tally_end(const tally_t *t, const char *what)
{
    counts_t after;
    if (g.no_rabred)
        return;
    snapshot(&after);
    for (int f = 0; f < NFAMS; f++) {
        unsigned long long sum = 0;
        for (int a = 0; a < MAX_ALGS; a++)
            sum += after.v[f][a] - t->before.v[f][a];
        expect(sum == (unsigned long long)t->issued[f], "%s: coll_rabred_%s_*_calls moved by "
               "%llu in all; %ld such calls were issued", what, FAM_NAMES[f], sum,
               t->issued[f]);
    }
}

/* ------------------------------------------------------------------------ */
/* Phases 1 and 8: nonblocking against blocking, bit for bit                 */
/* ------------------------------------------------------------------------ */

static void compare_bits(const call_t *b, const call_t *n, int served_b, int served_n)
{
    int bad;
    if (b->result == NULL || n->result == NULL)
        return;
    /* `previous` is two other components (coll/tuned blocking, libnbc
     * nonblocking) with their own orders: only exact results must agree */
    if (!b->op->exact && item_is_previous(b->coll, served_b) && item_is_previous(n->coll, served_n))
        return;
    bad = first_diff(b->result, n->result, b->count, b->op->esize);
    if (bad >= 0) {
        char bs[128], ns[128];
        b->op->format(b->result + (size_t)bad * b->op->esize, bs, sizeof bs);
        n->op->format(n->result + (size_t)bad * n->op->esize, ns, sizeof ns);
        expect(false, "%s: nonblocking result differs from the blocking one at index %d: %s, "
               "blocking %s (served by %s and %s)", n->what, bad, ns, bs,
               item_name(n->coll, served_n), item_name(b->coll, served_b));
        return;
    }
    expect(true, "%s", n->what);
}

/* The blocking call, then the nonblocking one with the same inputs. */
static void run_pair(coll_id coll, const op_desc *op, int count, int root, bool inplace,
                     comm_desc *cm)
{
    call_t b = make_call(coll, (int)(op - OPS), count, root, inplace, cm, 0), n = b;
    counts_t s0, s1, s2;
    MPI_Request req;
    int served_b, served_n;
    call_prepare(&b);
    call_prepare(&n);
    snapshot(&s0);
    call_issue(&b, NULL);
    snapshot(&s1);
    served_b = check_served(&b, false, &s0, &s1);
    if (call_issue(&n, &req))
        call_wait(&n, &req);
    snapshot(&s2);
    served_n = check_served(&n, true, &s1, &s2);
    call_verify(&b);
    call_verify(&n);
    if (b.live && n.live)
        compare_bits(&b, &n, served_b, served_n);
    call_free(&b);
    call_free(&n);
}

enum { MAX_LIST = 8 };
typedef struct {
    int n;
    int v[MAX_LIST];
} int_list;

static void list_add(int_list *l, int v)
{
    for (int k = 0; k < l->n; k++)
        if (l->v[k] == v)
            return;
    if (l->n < MAX_LIST)
        l->v[l->n++] = v;
}

static int_list phase1_counts(int p)
{
    int_list l = {0, {0}};
    list_add(&l, 1);
    if (p > 1)
        list_add(&l, p - 1);
    if (!g.quick)
        list_add(&l, p);
    list_add(&l, p + 1);
    list_add(&l, ODD_COUNT);
    if (!g.quick)
        list_add(&l, BIG_COUNT);
    return l;
}

/* Allreduce has no root: one pass with root 0. */
static int_list phase1_roots(coll_id coll, int p)
{
    int_list l = {0, {0}};
    list_add(&l, 0);
    if (coll == COLL_REDUCE) {
        if (!g.quick)
            list_add(&l, p / 2);
        list_add(&l, p - 1);
    }
    return l;
}

static void run_item(coll_id coll, int item, comm_desc *world)
{
    const op_desc *ops[4] = {&OPS[OP_SUM_I64], fp_op(), &OPS[OP_MAX_I32], &OPS[OP_MATRIX]};
    int_list counts = phase1_counts(world->size), roots = phase1_roots(coll, world->size);
    char block[160];
    snprintf(block, sizeof block, "phase 1: %s/i%s alg=%s", COLL_NAMES[coll], COLL_NAMES[coll],
             g_ctl[coll].alg[item].name);
    start_phase(block);
    force_algorithm(coll, item);
    for (int o = 0; o < 4; o++)
        for (int n = 0; n < counts.n; n++)
            for (int r = 0; r < roots.n; r++)
                for (int inplace = 0; inplace < 2; inplace++)
                    run_pair(coll, ops[o], counts.v[n], roots.v[r], inplace == 1, world);
    compare_served_hashes(world);
}

/* Phase 8: what auto picks for a large call (a bandwidth-bound plan, with
 * big temporaries), in place and not. */
static void run_large_auto(comm_desc *world)
{
    start_phase("phase 8: auto, 4 MiB double SUM");
    force_auto();
    for (int inplace = 0; inplace < 2; inplace++)
        run_pair(COLL_ALLREDUCE, fp_op(), LARGE_COUNT, 0, inplace == 1, world);
    compare_served_hashes(world);
}

static void run_bitwise(comm_desc *world)
{
    int arrival = set_arrival(0);
    for (int coll = 0; coll < NCOLLS; coll++)
        for (int item = 0; item < g_ctl[coll].nalgs; item++)
            run_item((coll_id)coll, item, world);
    run_large_auto(world);
    set_arrival(arrival);
}

/* ------------------------------------------------------------------------ */
/* Phase 9 (MPI-4: Open MPI 5): persistent MPI_Allreduce_init/MPI_Reduce_init */
/* ------------------------------------------------------------------------ */

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5) /* 5.0 says MPI 3.1 */
/* New inputs in the same buffers (a persistent request keeps them). */
static void refill(call_t *c, uint64_t salt)
{
    c->salt = salt;
    for (int i = 0; i < c->count; i++)
        c->op->gen(c->comm->rank, salt + (uint64_t)i, c->data + (size_t)i * c->op->esize);
    if (c->pristine != NULL)
        memcpy(c->pristine, c->data, c->bytes);
    if (c->recv != NULL)
        memset(c->recv, RECV_CANARY, c->bytes);
    describe(c);
}

static bool persistent_init(call_t *c, MPI_Request *req)
{
    MPI_Comm comm = c->comm->comm;
    int rc = c->coll == COLL_ALLREDUCE
                 ? MPI_Allreduce_init(c->sbuf, c->rbuf, c->count, c->op->dt, c->op->op, comm,
                                      MPI_INFO_NULL, req)
                 : MPI_Reduce_init(c->sbuf, c->rbuf, c->count, c->op->dt, c->op->op, c->root,
                                   comm, MPI_INFO_NULL, req);
    return expect(rc == MPI_SUCCESS, "MPI_%s_init %s: error %d",
                  c->coll == COLL_ALLREDUCE ? "Allreduce" : "Reduce", c->what, rc);
}

/* One request, three starts with new inputs: each start's result has the
 * blocking call's bits for the same inputs and moves one counter. */
static void run_persistent_pair(coll_id coll, const op_desc *op, int count, bool inplace,
                                comm_desc *cm)
{
    call_t n = make_call(coll, (int)(op - OPS), count, 0, inplace, cm, 0);
    MPI_Request req = MPI_REQUEST_NULL;
    call_prepare(&n);
    if (persistent_init(&n, &req)) {
        for (uint64_t salt = 0; salt < 3; salt++) {
            call_t b = make_call(coll, (int)(op - OPS), count, 0, inplace, cm, salt);
            counts_t s0, s1, s2;
            call_prepare(&b);
            refill(&n, salt);
            snapshot(&s0);
            call_issue(&b, NULL);
            snapshot(&s1);
            int served_b = check_served(&b, false, &s0, &s1);
            int rc = MPI_Start(&req);
            n.live = expect(rc == MPI_SUCCESS, "MPI_Start %s: error %d", n.what, rc);
            if (n.live)
                call_wait(&n, &req);
            snapshot(&s2);
            int served_n = check_served(&n, true, &s1, &s2);
            call_verify(&b);
            call_verify(&n);
            if (b.live && n.live)
                compare_bits(&b, &n, served_b, served_n);
            call_free(&b);
        }
        expect(MPI_Request_free(&req) == MPI_SUCCESS, "MPI_Request_free of %s", n.what);
    }
    call_free(&n);
}

static void run_persistent(comm_desc *world)
{
    const op_desc *ops[3] = {&OPS[OP_SUM_I64], fp_op(), &OPS[OP_MATRIX]};
    int counts[2] = {world->size + 1, ODD_COUNT};
    int arrival = set_arrival(0);
    for (int coll = 0; coll < NCOLLS; coll++) {
        for (int item = 0; item < g_ctl[coll].nalgs; item++) {
            char block[160];
            snprintf(block, sizeof block, "phase 9: %s_init alg=%s", COLL_NAMES[coll],
                     g_ctl[coll].alg[item].name);
            start_phase(block);
            force_algorithm((coll_id)coll, item);
            for (int o = 0; o < 3; o++)
                for (int k = 0; k < 2; k++)
                    for (int inplace = 0; inplace < 2; inplace++)
                        run_persistent_pair((coll_id)coll, ops[o], counts[k], inplace == 1, world);
        }
    }
    force_auto();
    set_arrival(arrival);
}
#endif

/* ------------------------------------------------------------------------ */
/* Completion styles                                                         */
/* ------------------------------------------------------------------------ */

static void check_hang(double start, const char *what)
{
    if (MPI_Wtime() - start > HANG_SECONDS)
        fatal("%s: requests not complete after %.0f s: hung", what, HANG_SECONDS);
}

/* One request, polled with MPI_Test and local work in between. */
static void poll_until_done(MPI_Request *req, const char *what)
{
    double start = MPI_Wtime();
    int flag = 0;
    while (!flag) {
        if (MPI_Test(req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            fatal("%s: MPI_Test failed", what);
        if (!flag) {
            local_work();
            check_hang(start, what);
        }
    }
}

typedef void (*complete_fn)(call_t *calls, MPI_Request *reqs, int n);

static void complete_reverse(call_t *calls, MPI_Request *reqs, int n)
{
    for (int k = n - 1; k >= 0; k--)
        if (calls[k].live && call_wait(&calls[k], &reqs[k]))
            call_verify(&calls[k]);
}

static void complete_waitany(call_t *calls, MPI_Request *reqs, int n)
{
    for (;;) {
        int idx = MPI_UNDEFINED;
        int rc = MPI_Waitany(n, reqs, &idx, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            fatal("MPI_Waitany: error %d", rc);
        if (idx == MPI_UNDEFINED)
            return; /* every request done */
        call_verify(&calls[idx]);
    }
}

/* The application polls while it computes: MPI_Testall must eventually
 * say yes, with only these calls driving progress. */
static void complete_testall(call_t *calls, MPI_Request *reqs, int n)
{
    double start = MPI_Wtime();
    int flag = 0;
    while (!flag) {
        if (MPI_Testall(n, reqs, &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            fatal("MPI_Testall failed");
        if (!flag) {
            local_work();
            check_hang(start, "MPI_Testall polling");
        }
    }
    for (int k = 0; k < n; k++)
        call_verify(&calls[k]);
}

static void complete_waitall(call_t *calls, MPI_Request *reqs, int n)
{
    int rc = MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    if (!expect(rc == MPI_SUCCESS, "MPI_Waitall: error %d", rc))
        return;
    for (int k = 0; k < n; k++)
        call_verify(&calls[k]);
}

static const complete_fn COMPLETIONS[NFLIGHT_ROUNDS] = {complete_reverse, complete_waitany,
                                                        complete_testall, complete_waitall};
static const char *const COMPLETION_NAMES[NFLIGHT_ROUNDS] = {
    "reverse MPI_Wait", "MPI_Waitany", "MPI_Testall polling", "MPI_Waitall"};

/* ------------------------------------------------------------------------ */
/* Phase 2: 8 in flight on one communicator                                  */
/* ------------------------------------------------------------------------ */

/* Mixed collectives, ops, sizes (one to 160 KiB) and roots, in place and
 * not; a new salt per round gives fresh values. */
static void flight_calls(call_t *calls, comm_desc *cm, int round)
{
    int p = cm->size;
    uint64_t salt = (uint64_t)round * 1000003u;
    calls[0] = make_call(COLL_ALLREDUCE, OP_SUM_I64, 1, 0, false, cm, salt);
    calls[1] = make_call(COLL_REDUCE, OP_MATRIX, p + 1, 0, true, cm, salt + 10);
    calls[2] = make_call(COLL_ALLREDUCE, OP_MAX_I32, ODD_COUNT, 0, true, cm, salt + 20);
    calls[3] = make_call(COLL_REDUCE, OP_DSUM_EXACT, 4099, p - 1, false, cm, salt + 30);
    calls[4] = make_call(COLL_ALLREDUCE, OP_MATRIX, 37, 0, false, cm, salt + 40);
    calls[5] = make_call(COLL_REDUCE, OP_SUM_I64, ODD_COUNT, p / 2, true, cm, salt + 50);
    calls[6] = make_call(COLL_ALLREDUCE, OP_DSUM_EXACT, 20011, 0, false, cm, salt + 60);
    calls[7] = make_call(COLL_REDUCE, OP_MAX_I32, 3, round % p, false, cm, salt + 70);
    for (int k = 0; k < NFLIGHT; k++)
        call_prepare(&calls[k]);
}

static void run_flight_round(comm_desc *cm, int round)
{
    call_t calls[NFLIGHT];
    MPI_Request reqs[NFLIGHT];
    tally_t t;
    char what[64];
    tally_begin(&t);
    flight_calls(calls, cm, round);
    for (int k = 0; k < NFLIGHT; k++) {
        call_issue(&calls[k], &reqs[k]);
        tally_issued(&t, &calls[k], true);
    }
    COMPLETIONS[round](calls, reqs, NFLIGHT);
    snprintf(what, sizeof what, "8 in flight, %s", COMPLETION_NAMES[round]);
    tally_end(&t, what);
    for (int k = 0; k < NFLIGHT; k++)
        call_free(&calls[k]);
}

/* Under auto (item 0) and under every forced item (allreduce's and
 * reduce's items side by side), each on a fresh communicator. */
static void run_in_flight(void)
{
    int nall = g_ctl[COLL_ALLREDUCE].nalgs, nred = g_ctl[COLL_REDUCE].nalgs;
    int configs = nall > nred ? nall : nred;
    for (int k = 0; k < configs; k++) {
        char phase[160];
        comm_desc cm;
        snprintf(phase, sizeof phase, "phase 2: in flight, iallreduce=%s ireduce=%s",
                 g_ctl[COLL_ALLREDUCE].alg[k % nall].name, g_ctl[COLL_REDUCE].alg[k % nred].name);
        start_phase(phase);
        force_algorithm(COLL_ALLREDUCE, k % nall);
        force_algorithm(COLL_REDUCE, k % nred);
        make_dup(&cm, "dup");
        for (int round = 0; round < NFLIGHT_ROUNDS; round++)
            run_flight_round(&cm, round);
        MPI_Comm_free(&cm.comm);
    }
    force_auto();
}

/* ------------------------------------------------------------------------ */
/* Phase 3: one request on each of several communicators                     */
/* ------------------------------------------------------------------------ */


/* World, two fresh dups and a fresh split in halves: the dups' and the
 * halves' first rabred calls are these nonblocking ones, all in flight at
 * once. */
static void make_phase3_comms(comm_desc *cms)
{
    int p = g.world_size, r = g.world_rank, color = r < (p + 1) / 2 ? 0 : 1;
    MPI_Comm half;
    make_comm(&cms[0], MPI_COMM_WORLD, "world");
    make_dup(&cms[1], "dup1");
    make_dup(&cms[2], "dup2");
    MPI_Comm_split(MPI_COMM_WORLD, color, r, &half);
    make_comm(&cms[3], half, color == 0 ? "split_half0" : "split_half1");
}

static void comm_calls(call_t *calls, comm_desc *cms, int round)
{
    uint64_t salt = 5000000u + (uint64_t)round * 1000u;
    calls[0] = make_call(COLL_REDUCE, OP_MAX_I32, 65, 0, false, &cms[0], salt);
    calls[1] = make_call(COLL_ALLREDUCE, OP_MATRIX, cms[1].size + 3, 0, false, &cms[1],
                         salt + 100);
    calls[2] = make_call(COLL_REDUCE, OP_SUM_I64, ODD_COUNT, cms[2].size - 1, true, &cms[2],
                         salt + 200);
    calls[3] = make_call(COLL_ALLREDUCE, OP_DSUM_EXACT, 513, 0, true, &cms[3], salt + 300);
    for (int k = 0; k < NCOMMS; k++)
        call_prepare(&calls[k]);
}

/* Started dup1, dup2, half, world; completed in an order unrelated to it
 * (two rounds: first calls on the fresh communicators, then later ones). */
static void run_comms(void)
{
    static const int START[NCOMMS] = {1, 2, 3, 0};
    static const int FINISH[2][NCOMMS] = {{3, 0, 1, 2}, {2, 0, 3, 1}};
    comm_desc cms[NCOMMS];
    start_phase("phase 3: several communicators");
    make_phase3_comms(cms);
    for (int round = 0; round < 2; round++) {
        call_t calls[NCOMMS];
        MPI_Request reqs[NCOMMS];
        tally_t t;
        tally_begin(&t);
        comm_calls(calls, cms, round);
        for (int k = 0; k < NCOMMS; k++) {
            call_issue(&calls[START[k]], &reqs[START[k]]);
            tally_issued(&t, &calls[START[k]], true);
        }
        for (int k = 0; k < NCOMMS; k++) {
            call_t *c = &calls[FINISH[round][k]];
            if (c->live && call_wait(c, &reqs[FINISH[round][k]]))
                call_verify(c);
        }
        tally_end(&t, round == 0 ? "first calls on fresh communicators" : "later calls");
        for (int k = 0; k < NCOMMS; k++)
            call_free(&calls[k]);
    }
    for (int k = 1; k < NCOMMS; k++)
        MPI_Comm_free(&cms[k].comm);
}

/* ------------------------------------------------------------------------ */
/* Phase 4: a nonblocking call in flight across blocking ones                */
/* ------------------------------------------------------------------------ */

static void run_mixed_on(comm_desc *cm, coll_id first)
{
    int p = cm->size;
    call_t nb = first == COLL_ALLREDUCE
                    ? make_call(COLL_ALLREDUCE, OP_SUM_I64, ODD_COUNT, 0, true, cm, 6000000)
                    : make_call(COLL_REDUCE, OP_MATRIX, p + 2, p - 1, true, cm, 6000000);
    call_t ba = make_call(COLL_ALLREDUCE, OP_MATRIX, p, 0, false, cm, 6100000);
    call_t br = make_call(COLL_REDUCE, OP_DSUM_EXACT, 100, 0, true, cm, 6200000);
    MPI_Request req;
    tally_t t;
    char what[96];
    call_prepare(&nb);
    call_prepare(&ba);
    call_prepare(&br);
    tally_begin(&t);
    call_issue(&nb, &req);
    tally_issued(&t, &nb, true);
    call_issue(&ba, NULL);
    tally_issued(&t, &ba, false);
    call_issue(&br, NULL);
    tally_issued(&t, &br, false);
    if (nb.live)
        call_wait(&nb, &req);
    call_verify(&nb);
    call_verify(&ba);
    call_verify(&br);
    snprintf(what, sizeof what, "%s across blocking calls on %s", mpi_name(first, true),
             cm->name);
    tally_end(&t, what);
    call_free(&nb);
    call_free(&ba);
    call_free(&br);
}

/* On a fresh communicator (the nonblocking call is rabred's first there,
 * its settings check still in flight when the blocking calls come) and on
 * world. */
static void run_mixed(comm_desc *world)
{
    start_phase("phase 4: mixed with blocking calls");
    for (int first = 0; first < NCOLLS; first++) {
        comm_desc cm;
        make_dup(&cm, "fresh_dup");
        run_mixed_on(&cm, (coll_id)first);
        MPI_Comm_free(&cm.comm);
        run_mixed_on(world, (coll_id)first);
    }
}

/* ------------------------------------------------------------------------ */
/* Phase 5: MPI_Request_free on an active request                            */
/* ------------------------------------------------------------------------ */

static bool holds_result(const call_t *c)
{
    const unsigned char *want = expected(c->op, c->comm->size, c->salt, c->count);
    return first_diff(c->result, want, c->count, c->op->esize) < 0;
}

/* Each round a fresh MPI_Iallreduce, polled with MPI_Test, drives progress
 * and carries every rank's "holds the result" and "still in time" to all
 * (MIN), so that the ranks leave the loop together.  *fresh counts them. */
static bool drive_until_result(const call_t *freed, long *fresh)
{
    double start = MPI_Wtime();
    for (;;) {
        int flags[2] = {holds_result(freed), MPI_Wtime() - start < FREED_SECONDS};
        MPI_Request req;
        int rc = MPI_Iallreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MIN, freed->comm->comm,
                                &req);
        if (rc != MPI_SUCCESS)
            fatal("progress MPI_Iallreduce: error %d", rc);
        (*fresh)++;
        poll_until_done(&req, "progress MPI_Iallreduce");
        if (flags[0])
            return true;
        if (!flags[1])
            return false;
    }
}

/* rabred accepts MPI_Request_free on an active request.  Open MPI's libnbc
 * (what serves under --no-rabred, and rabred's "previous") may refuse it,
 * as MPI allows for an erroneous call; the request is then still ours to
 * wait for.  Returns true when the request was freed. */
static bool free_active(call_t *c, MPI_Request *req, int served)
{
    bool below = g.no_rabred || served == g_ctl[COLL_ALLREDUCE].previous_idx;
    int rc = MPI_Request_free(req);
    if (rc == MPI_SUCCESS)
        return expect(*req == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
    if (below && g.world_rank == 0)
        printf("note: %s refused MPI_Request_free of an active MPI_Iallreduce (error %d), "
               "as MPI allows; waiting for it instead\n",
               g.no_rabred ? "Open MPI's own component" : "the component below rabred", rc);
    expect(below, "MPI_Request_free of an active MPI_Iallreduce served by '%s': error %d",
           item_name(COLL_ALLREDUCE, served), rc);
    if (*req != MPI_REQUEST_NULL && call_wait(c, req))
        call_verify(c);
    return false;
}

static void run_request_free(void)
{
    comm_desc cm;
    call_t warm, freed, after;
    MPI_Request req;
    tally_t t;
    counts_t issued;
    long fresh = 0;
    bool was_freed, done = true;
    start_phase("phase 5: MPI_Request_free on an active request");
    make_dup(&cm, "dup");
    warm = make_call(COLL_ALLREDUCE, OP_SUM_I64, 1, 0, false, &cm, 7000000);
    freed = make_call(COLL_ALLREDUCE, OP_SUM_I64, ODD_COUNT, 0, false, &cm, 7100000);
    after = make_call(COLL_ALLREDUCE, OP_MATRIX, cm.size + 2, 0, false, &cm, 7200000);
    call_prepare(&warm);
    call_prepare(&freed);
    call_prepare(&after);
    /* A blocking first call: the nonblocking counter then moves when the
     * call is issued, which tells who serves it before it is freed. */
    call_issue(&warm, NULL);
    call_verify(&warm);
    tally_begin(&t);
    was_freed = call_issue(&freed, &req);
    tally_issued(&t, &freed, true);
    snapshot(&issued);
    if (was_freed)
        was_freed = free_active(&freed, &req, check_served(&freed, true, &t.before, &issued));
    call_issue(&after, NULL);
    tally_issued(&t, &after, false);
    call_verify(&after);
    MPI_Barrier(cm.comm);
    if (was_freed) {
        done = drive_until_result(&freed, &fresh);
        expect(done, "the freed MPI_Iallreduce's receive buffer does not hold the result %.0f s "
               "later (%ld calls driving progress)", FREED_SECONDS, fresh);
        if (done)
            call_verify(&freed);
    }
    t.issued[FAM_IALLREDUCE] += fresh;
    tally_end(&t, "freed request, blocking call, progress calls");
    call_free(&warm);
    call_free(&after);
    /* A freed call that never finished may still write its buffers and use
     * the communicator: leave both alone. */
    if (done) {
        call_free(&freed);
        MPI_Comm_free(&cm.comm);
    }
}

/* ------------------------------------------------------------------------ */
/* Phase 6: hammer                                                           */
/* ------------------------------------------------------------------------ */

static int free_slot(const MPI_Request *reqs)
{
    for (int k = 0; k < HAMMER_SLOTS; k++)
        if (reqs[k] == MPI_REQUEST_NULL)
            return k;
    return -1;
}

/* Completes one request (MPI_Waitany, or MPI_Testany polling), checks and
 * frees its call; MPI_UNDEFINED when none was active. */
static int complete_one(call_t *calls, MPI_Request *reqs, bool poll)
{
    int idx = MPI_UNDEFINED, flag = 0, rc;
    double start = MPI_Wtime();
    if (!poll)
        rc = MPI_Waitany(HAMMER_SLOTS, reqs, &idx, MPI_STATUS_IGNORE);
    else
        while ((rc = MPI_Testany(HAMMER_SLOTS, reqs, &idx, &flag, MPI_STATUS_IGNORE))
                   == MPI_SUCCESS && !flag) {
            local_work();
            check_hang(start, "MPI_Testany polling");
        }
    if (rc != MPI_SUCCESS)
        fatal("%s: error %d", poll ? "MPI_Testany" : "MPI_Waitany", rc);
    if (idx != MPI_UNDEFINED) {
        call_verify(&calls[idx]);
        call_free(&calls[idx]);
    }
    return idx;
}

/* Small sums, up to HAMMER_SLOTS in flight: a slot is freed by completing
 * whichever request is done (Waitany and Testany in turn). */
static void run_hammer(void)
{
    call_t *calls = xmalloc(HAMMER_SLOTS * sizeof *calls);
    MPI_Request reqs[HAMMER_SLOTS];
    comm_desc cm;
    tally_t t;
    long completions = 0;
    start_phase("phase 6: hammer");
    make_dup(&cm, "hammer_dup");
    for (int k = 0; k < HAMMER_SLOTS; k++)
        reqs[k] = MPI_REQUEST_NULL;
    tally_begin(&t);
    for (long k = 0; k < g.hammer; k++) {
        int slot = free_slot(reqs);
        if (slot < 0) {
            complete_one(calls, reqs, completions++ % 2 == 1);
            slot = free_slot(reqs);
        }
        calls[slot] = make_call(COLL_ALLREDUCE, OP_SUM_I64, 1 + (int)((k * 37) % HAMMER_MAX_COUNT),
                                0, k % 2 == 1, &cm, 9000000u + (uint64_t)k * HAMMER_MAX_COUNT);
        call_prepare(&calls[slot]);
        if (!call_issue(&calls[slot], &reqs[slot]))
            call_free(&calls[slot]);
        tally_issued(&t, &calls[slot], true);
    }
    while (complete_one(calls, reqs, completions++ % 2 == 1) != MPI_UNDEFINED)
        ;
    tally_end(&t, "hammer");
    MPI_Comm_free(&cm.comm);
    free(calls);
}

/* ------------------------------------------------------------------------ */
/* Options, tally, main                                                      */
/* ------------------------------------------------------------------------ */

static bool parse_count(const char *s, long *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0)
        return false;
    *out = v;
    return true;
}

static bool parse_args(int argc, char **argv)
{
    g.hammer = DEFAULT_HAMMER;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--quick") == 0)
            g.quick = true;
        else if (strcmp(argv[k], "--no-rabred") == 0)
            g.no_rabred = true;
        else if (strcmp(argv[k], "--hammer") == 0 && k + 1 < argc
                 && parse_count(argv[k + 1], &g.hammer))
            k++;
        else {
            if (g.world_rank == 0)
                fprintf(stderr, "bad argument '%s'\nusage: %s [--quick] [--hammer N]\n",
                        argv[k], argv[0]);
            return false;
        }
    }
    return true;
}

/* MPI_Gather and MPI_Bcast, not rabred's collectives, carry the tally. */
static long final_tally(void)
{
    long mine[2] = {g.checks, g.failed}, total[2] = {0, 0};
    long *all = xmalloc(2 * (size_t)g.world_size * sizeof *all);
    MPI_Gather(mine, 2, MPI_LONG, all, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    if (g.world_rank == 0) {
        for (int r = 0; r < g.world_size; r++) {
            total[0] += all[2 * r];
            total[1] += all[2 * r + 1];
        }
        if (total[1] == 0)
            printf("test_mpi_nonblocking: %ld checks passed\n", total[0]);
        else
            printf("FAIL test_mpi_nonblocking p=%d: %ld of %ld checks failed\n", g.world_size,
                   total[1], total[0]);
        fflush(stdout);
    }
    MPI_Bcast(&total[1], 1, MPI_LONG, 0, MPI_COMM_WORLD);
    free(all);
    return total[1];
}

int main(int argc, char **argv)
{
    long failed;
    comm_desc world;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g.world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.world_size);
    if (!parse_args(argc, argv)) {
        MPI_Finalize();
        return 2;
    }
    /* Errors come back as return codes and are reported per call; the
     * communicators made later inherit this handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    start_phase("setup");
    setup_ops();
    if (setup_mpi_t()) {
        make_comm(&world, MPI_COMM_WORLD, "world");
        run_bitwise(&world);
        run_in_flight();
        run_comms();
        run_mixed(&world);
        run_request_free();
        run_hammer();
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5) /* 5.0 says MPI 3.1 */
        run_persistent(&world);
#endif
    }
    failed = final_tally();
    free_references();
    free_ops();
    teardown_mpi_t();
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
