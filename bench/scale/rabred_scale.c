/*
 * rabred_scale: rabred's plans, rabred's decision and the MPI library's own
 * MPI_Allreduce / MPI_Reduce, timed side by side on one (simulated)
 * machine, every result checked.  Built with smpicc and run under smpirun
 * (scripts/run-scale.sh); it is plain MPI, so it also runs under a real
 * MPI, where its times are wall-clock times.
 *
 * Variants (--variants, comma-separated):
 *   NAME   one of rabred's algorithms (rabred-plan --list), run by the
 *          MPI-level runner (rabred_mpi_runner.c); `all`: every one that
 *          may differ here (every_algorithm);
 *   auto   rabred's selection unit, priced with the platform's model
 *          (--alpha-us, --mbs, or --link measure; with --group G, the
 *          ranks of a group, G consecutive ranks that share one link out
 *          (a node's NIC, a leaf switch's uplinks), priced with two levels:
 *          --intra-alpha-us, --intra-mbs inside a group, --mbs the group's
 *          link), then run like NAME;
 *   mpi    the library's MPI_Allreduce (MPI_Reduce): under SMPI the
 *          algorithm or selector smpirun was given (--cfg=smpi/allreduce:X).
 *
 * Each variant runs once per size after a barrier (a simulation is
 * deterministic: no repeats).  Allreduce's time is the completion time,
 * the last rank's end minus the first rank's start; reduce's is the mean
 * over ranks of each rank's own time (rabred_model_metric), with the
 * completion time beside it.  For rabred's algorithms the line adds what
 * rabred's own simulator predicts with the same parameters in its
 * flow-level mode (latency overlapped but for the measured per-message
 * overhead, ports shared, sends below 64 KiB detached): the cross-check
 * on a contention-free crossbar.
 *
 * Reductions: SMPI charges no simulated time for MPI_Reduce_local nor for
 * its own algorithms' reductions, so by default nothing charges gamma and
 * the comparison is the network alone, the same for every variant.
 * --reduce-mbs R charges rabred's reductions at R MB/s (through
 * smpi_execute_flops at --host-speed), for studies of rabred alone.
 *
 * Data: rank r's element i is (r % 13 + 1) * (i % 17 + 1) in doubles, so
 * every sum is exact and checked element by element.  When p times the
 * buffers exceed --mem-bytes, the timed call runs on SMPI_SHARED_MALLOC
 * buffers (one copy for all ranks: the data means nothing) and an extra,
 * untimed call of the same variant on real buffers at the largest count
 * that fits is what the line's check reports (check=ok@COUNT).
 *
 * Output (rank 0), one line per cell:
 *   RESULT variant=V coll=C p=P bytes=N time_s=T [complete_s=T2] chosen=A sim_s=S check=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef SMPI_SHARED_MALLOC /* not SMPI (its mpi.h defines it): a real MPI */
#define SMPI_SHARED_MALLOC(bytes) malloc(bytes)
#define SMPI_SHARED_FREE(ptr) free(ptr)
static void smpi_execute_flops(double flops)
{
    (void)flops; /* a real machine spends the reduction's time itself */
}
#endif

#include "rabred_calibrate_fit.h"
#include "rabred_mpi_runner.h"
#include "plan/rabred_nodes.h"
#include "select/rabred_model.h"
#include "select/rabred_select.h"
#include "sim/rabred_sim.h"

#define MAX_SIZES 64
#define MAX_VARIANTS 48

typedef struct {
    rabred_coll_t coll;
    int root;
    int64_t sizes[MAX_SIZES];
    int nsizes;
    char *variants[MAX_VARIANTS];
    int nvariants;
    const char *label; /* what `mpi` is called in the output */
    rabred_link_units_t inter, intra;
    double inter_overhead_us, intra_overhead_us; /* --link measure: of alpha, what a
                        * message holds its port for (the simulator's overhead) */
    int ppn;           /* ranks that share one link out, consecutive: a node's ranks
                        * (its NIC) or a leaf switch's hosts (its uplinks); 1: none */
    double reduce_mbs; /* > 0: charge rabred's reductions */
    double host_speed; /* flops per second of a simulated host */
    int64_t mem_bytes; /* all ranks' real buffers together may use this much */
    int measure;       /* --link measure: the links' terms from exchanges on the machine */
} options_t;

typedef struct {
    const options_t *o;
    int p, rank;
    rabred_nodes_t nodes;
    int32_t *node_of;
    /* common_start's wait after the latest rank left the barrier.  Per
     * rank, not static: under smpirun -no-privatize the ranks share this
     * process's statics, and each rank's doubling would compound.  A
     * pointer so that the bench stays const where it is read. */
    double *margin;
} bench_t;

/* The ranks of a simulation share this process (smpirun -no-privatize):
 * one set of price books serves them all, priced once per p, as the
 * component shares its books across communicators. */
static rabred_pricebooks_t shared_books;

static void usage(void)
{
    fprintf(stderr,
            "usage: rabred_scale --variants V1,V2,.. --sizes B1,B2,.. [--coll allreduce|reduce]\n"
            "         [--root R] [--label NAME] [--alpha-us A --mbs B] [--group G\n"
            "         --intra-alpha-us A --intra-mbs B] [--reduce-mbs R] [--host-speed F]\n"
            "         [--mem-bytes N] [--link measure]\n"
            "  variants: rabred algorithm names, all (every one), auto, mpi (the\n"
            "    library's own call)\n"
            "  sizes: bytes per rank, with K/M/G suffixes (powers of 2)\n"
            "  --group G: G consecutive ranks share one link out (a node, a leaf switch)\n"
            "  --link measure: alpha and bandwidth from exchanges between the first and\n"
            "    the last group (all ranks of a group at once) and ranks 0 and 1; the\n"
            "    per-message overhead, whether messages in flight share a link, and\n"
            "    the distance terms (the LINK, SHARING, DISTANCE and SHIFT lines)\n");
}

static int64_t parse_bytes(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    int64_t unit = 'K' == *end ? 1 << 10 : 'M' == *end ? 1 << 20 : 'G' == *end ? 1 << 30 : 1;
    return (int64_t)(v * (double)unit);
}

static void parse_sizes(options_t *o, char *list)
{
    for (char *t = strtok(list, ","); NULL != t && o->nsizes < MAX_SIZES; t = strtok(NULL, ",")) {
        o->sizes[o->nsizes++] = parse_bytes(t);
    }
}

static void parse_variants(options_t *o, char *list)
{
    for (char *t = strtok(list, ","); NULL != t && o->nvariants < MAX_VARIANTS;
         t = strtok(NULL, ",")) {
        o->variants[o->nvariants++] = t;
    }
}

/* A link of the simulated machine as rabred's model sees it: latency and
 * bandwidth of an exchange, full duplex, no protocol switch, none of the
 * TCP terms (a flow-level network shows none of them). */
static rabred_link_units_t plain_link(double alpha_us, double mbs)
{
    rabred_link_units_t l = {.alpha_us = alpha_us, .mbs = mbs, .oneway_alpha = 1,
                             .oneway_beta = 1, .repeat = 1, .duplex = 1};
    return l;
}

static int parse_options(int argc, char **argv, options_t *o)
{
    memset(o, 0, sizeof(*o));
    o->root = 0;
    o->label = "mpi";
    o->inter = plain_link(1.0, 1250.0);
    o->intra = plain_link(0.2, 20000.0);
    o->ppn = 1;
    o->host_speed = 1e9;
    o->mem_bytes = (int64_t)2 << 30;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i];
        char *v = argv[i + 1];
        if (!strcmp(k, "--variants")) parse_variants(o, v);
        else if (!strcmp(k, "--sizes")) parse_sizes(o, v);
        else if (!strcmp(k, "--coll")) o->coll = !strcmp(v, "reduce") ? RABRED_COLL_REDUCE : RABRED_COLL_ALLREDUCE;
        else if (!strcmp(k, "--root")) o->root = atoi(v);
        else if (!strcmp(k, "--label")) o->label = v;
        else if (!strcmp(k, "--alpha-us")) o->inter.alpha_us = atof(v);
        else if (!strcmp(k, "--mbs")) o->inter.mbs = atof(v);
        else if (!strcmp(k, "--intra-alpha-us")) o->intra.alpha_us = atof(v);
        else if (!strcmp(k, "--intra-mbs")) o->intra.mbs = atof(v);
        else if (!strcmp(k, "--ppn") || !strcmp(k, "--group")) o->ppn = atoi(v);
        else if (!strcmp(k, "--reduce-mbs")) o->reduce_mbs = atof(v);
        else if (!strcmp(k, "--host-speed")) o->host_speed = atof(v);
        else if (!strcmp(k, "--mem-bytes")) o->mem_bytes = parse_bytes(v);
        else if (!strcmp(k, "--link")) o->measure = !strcmp(v, "measure");
        else return -1;
    }
    return (0 == o->nsizes || 0 == o->nvariants || o->ppn < 1) ? -1 : 0;
}

/* ---- data ---------------------------------------------------------------- */

typedef struct {
    double *input, *acc, *tmp, *tmp2;
    int64_t count;
    int shared; /* SMPI_SHARED_MALLOC: the data means nothing */
} buffers_t;

static double *buffer(int64_t count, int shared)
{
    size_t bytes = (size_t)(count > 0 ? count : 1) * sizeof(double);
    return shared ? SMPI_SHARED_MALLOC(bytes) : malloc(bytes);
}

static void buffer_free(double *b, int shared)
{
    if (shared) {
        SMPI_SHARED_FREE(b);
    } else {
        free(b);
    }
}

static double value(int rank, int64_t i)
{
    return (double)(rank % 13 + 1) * (double)(i % 17 + 1);
}

static int buffers_alloc(buffers_t *b, int64_t count, int rank, int shared)
{
    b->count = count;
    b->shared = shared;
    b->input = buffer(count, shared);
    b->acc = buffer(count, shared);
    b->tmp = buffer(count, shared);
    b->tmp2 = buffer(count, shared);
    if (NULL == b->input || NULL == b->acc || NULL == b->tmp || NULL == b->tmp2) {
        return MPI_ERR_NO_MEM;
    }
    for (int64_t i = 0; i < count && !shared; i++) {
        b->input[i] = value(rank, i);
        b->acc[i] = -1.0;
    }
    return MPI_SUCCESS;
}

static void buffers_free(buffers_t *b)
{
    buffer_free(b->input, b->shared);
    buffer_free(b->acc, b->shared);
    buffer_free(b->tmp, b->shared);
    buffer_free(b->tmp2, b->shared);
}

/* 1 when this rank's result is right (reduce: only the root has one). */
static int result_ok(const bench_t *bn, const buffers_t *b)
{
    if (RABRED_COLL_REDUCE == bn->o->coll && bn->rank != bn->o->root) {
        return 1;
    }
    double ranks = 0;
    for (int r = 0; r < bn->p; r++) {
        ranks += (double)(r % 13 + 1);
    }
    for (int64_t i = 0; i < b->count; i++) {
        if (b->acc[i] != ranks * (double)(i % 17 + 1)) {
            return 0;
        }
    }
    return 1;
}

/* ---- rabred's variants ----------------------------------------------------- */

static rabred_model_t model_of(const options_t *o, const rabred_link_units_t *link)
{
    return rabred_model_make(link, o->reduce_mbs, 0.0);
}

static const rabred_nodes_t *nodes_of(const bench_t *bn)
{
    return bn->o->ppn > 1 ? &bn->nodes : NULL;
}

/* auto: the selection unit with the platform's price book, as the
 * component does (two levels when ranks share nodes, up to its limit). */
static const rabred_alg_t *choose(const bench_t *bn, int64_t count)
{
    const options_t *o = bn->o;
    rabred_model_t inter = model_of(o, &o->inter), intra = model_of(o, &o->intra);
    const rabred_pricebook_t *book = NULL;
    const rabred_nodes_t *nodes = nodes_of(bn);
    int rc = NULL != nodes && rabred_nodes_matter(nodes, bn->p) && bn->p <= RABRED_TWO_LEVEL_MAX_P
                 ? rabred_pricebooks_get_nodes(&shared_books, o->coll, bn->p, 0, &inter, &intra,
                                               nodes, &book)
                 : rabred_pricebooks_get(&shared_books, o->coll, bn->p, 0, &inter, &book);
    if (RABRED_OK != rc) {
        return NULL;
    }
    rabred_select_in_t in = {.coll = o->coll, .call = {bn->p, count, 1, nodes},
                             .root = RABRED_COLL_REDUCE == o->coll ? o->root : -1,
                             .bytes = count * (int64_t)sizeof(double), .forced = RABRED_ALG_AUTO,
                             .book = book};
    char prices[1024] = "";
    if (0 == bn->rank) { /* every candidate's price, the decision's reasons */
        in.prices = prices;
        in.prices_len = sizeof(prices);
    }
    rabred_choice_t choice;
    if (RABRED_OK != rabred_select(&in, &choice)) {
        return NULL;
    }
    if (0 == bn->rank && prices[0]) {
        printf("PRICES p=%d bytes=%lld %s\n", bn->p, (long long)in.bytes, prices);
    }
    return choice.alg;
}

static const rabred_alg_t *algorithm(const bench_t *bn, const char *variant, int64_t count)
{
    if (!strcmp(variant, "auto")) {
        return choose(bn, count);
    }
    return rabred_table_by_name(bn->o->coll, variant);
}

static rabred_plan_args_t plan_args(const bench_t *bn, int64_t count)
{
    rabred_plan_args_t a = {bn->p, bn->rank,
                            RABRED_COLL_REDUCE == bn->o->coll ? bn->o->root : -1,
                            count, 1, 0, NULL, 0, nodes_of(bn)};
    return a;
}

static void charge(void *ctx, int64_t elements)
{
    const options_t *o = ctx;
    double seconds = (double)elements * sizeof(double) / (o->reduce_mbs * 1e6);
    smpi_execute_flops(seconds * o->host_speed);
}

static int run_rabred(const bench_t *bn, const rabred_alg_t *alg, buffers_t *b)
{
    rabred_ready_plan_t ready;
    memset(&ready, 0, sizeof(ready));
    rabred_plan_args_t args = plan_args(bn, b->count);
    int rc = rabred_ready_plan_build(&ready, alg, &args, NULL);
    if (RABRED_OK == rc) {
        rabred_mpi_call_t call = {{(char *)b->input, (char *)b->acc, (char *)b->tmp,
                                   (char *)b->tmp2},
                                  sizeof(double), MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD, 4711,
                                  bn->o->reduce_mbs > 0 ? charge : NULL, (void *)bn->o};
        rc = rabred_mpi_run(&ready, &call);
    } else {
        rc = MPI_ERR_OTHER;
    }
    rabred_ready_plan_free(&ready);
    return rc;
}

static int run_library(const bench_t *bn, buffers_t *b)
{
    if (RABRED_COLL_REDUCE == bn->o->coll) {
        return MPI_Reduce(b->input, b->acc, (int)b->count, MPI_DOUBLE, MPI_SUM, bn->o->root,
                          MPI_COMM_WORLD);
    }
    return MPI_Allreduce(b->input, b->acc, (int)b->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static int run_variant(const bench_t *bn, const rabred_alg_t *alg, buffers_t *b)
{
    return NULL != alg ? run_rabred(bn, alg, b) : run_library(bn, b);
}

/* rabred's simulator's price of alg under the same model (flow-level). */
static double simulated(const bench_t *bn, const rabred_alg_t *alg, int64_t count)
{
    const options_t *o = bn->o;
    rabred_sim_call_t call = {alg->build, bn->p, RABRED_COLL_REDUCE == o->coll ? o->root : -1,
                              count, 1, 0, 0, 1, NULL, nodes_of(bn)};
    rabred_sim_model_t model;
    rabred_sim_model_default(&model);
    /* a flow-level network (rabred_sim.h): latency overlapped, a port
     * shared by its messages in flight, and sends below SMPI's detached
     * threshold (smpi/send-is-detached-thresh, 64 KiB) leaving their
     * sender when posted */
    model.latency_overlaps = 1;
    model.fair_share = 1;
    model.overhead = 1e-6 * o->inter_overhead_us;
    model.send_buffer = model.inter_send_buffer = (65536.0 - 1) / sizeof(double);
    model.alpha = 1e-6 * o->inter.alpha_us;
    model.beta = sizeof(double) * 1e-6 / o->inter.mbs;
    model.gamma = o->reduce_mbs > 0 ? sizeof(double) * 1e-6 / o->reduce_mbs : 0;
    if (NULL != call.nodes) {
        model.nodes = call.nodes;
        model.inter_alpha = model.alpha;
        model.inter_beta = model.beta;
        model.inter_rank_beta = o->inter.rank_mbs > 0 ? sizeof(double) * 1e-6 / o->inter.rank_mbs
                                                       : 0;
        model.alpha = 1e-6 * o->intra.alpha_us;
        model.beta = sizeof(double) * 1e-6 / o->intra.mbs;
        model.inter_overhead = model.overhead;
        model.overhead = 1e-6 * o->intra_overhead_us;
    }
    /* the link inside a node (the only link with one rank per host) may
     * have no ports: SMPI's loopback moves each message as if alone */
    model.parallel_ports = (int)(NULL != call.nodes ? o->intra.parallel_ports
                                                    : o->inter.parallel_ports);
    rabred_sim_result_t res;
    if (RABRED_OK != rabred_simulate(&call, &model, &res) || !res.ok) {
        return -1;
    }
    return rabred_model_metric(&res, o->coll);
}

/* ---- one cell -------------------------------------------------------------- */

typedef struct {
    double start, end; /* this rank's */
    int rc;
} timing_t;

/* Every rank starts at the same simulated instant: a barrier lets ranks
 * go microseconds apart (its own last messages), which would add a
 * barrier's skew to every time.  Ranks agree on an instant `margin` after
 * the latest of them has left the barrier and wait for it in simulated
 * time (smpi_execute_flops at the host's speed); if a rank gets there too
 * late the margin doubles and they try again.  The wait is measured after
 * the last agreement, which itself ends at different instants on
 * different ranks (measured before it, ranks started up to a latency
 * apart, and a plan's time carried that skew); a rank with less than half
 * the margin left counts as late, so that the agreement cannot make it
 * miss the instant.  Under a real MPI the wait is a no-op and the barrier
 * is the start. */
static double common_start(const bench_t *bn)
{
    for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        double now = MPI_Wtime(), latest;
        MPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double go = latest + *bn->margin;
        int late = go - MPI_Wtime() < *bn->margin / 2, any_late;
        MPI_Allreduce(&late, &any_late, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (!any_late) {
            double wait = go - MPI_Wtime();
            if (wait > 0) {
                smpi_execute_flops(wait * bn->o->host_speed);
            }
            return MPI_Wtime();
        }
        *bn->margin *= 2;
    }
}

static timing_t timed_call(const bench_t *bn, const rabred_alg_t *alg, buffers_t *b)
{
    timing_t t;
    t.start = common_start(bn);
    t.rc = run_variant(bn, alg, b);
    t.end = MPI_Wtime();
    return t;
}

/* The largest count whose real buffers, on every rank, fit mem_bytes. */
static int64_t checkable_count(const bench_t *bn, int64_t count)
{
    int64_t fit = bn->o->mem_bytes / (4 * (int64_t)sizeof(double) * bn->p);
    return count < fit ? count : fit;
}

/* Runs the variant on real buffers of `count` elements: 1 when every rank
 * got the right result and no call failed. */
static int checked_call(const bench_t *bn, const rabred_alg_t *alg, int64_t count,
                        timing_t *timing)
{
    buffers_t b;
    int ok = MPI_SUCCESS == buffers_alloc(&b, count, bn->rank, 0);
    timing_t t = timed_call(bn, alg, &b);
    ok = ok && MPI_SUCCESS == t.rc && result_ok(bn, &b);
    buffers_free(&b);
    if (NULL != timing) {
        *timing = t;
    }
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* A call on shared buffers (timed), then the check at a count that fits. */
static int shared_call(const bench_t *bn, const rabred_alg_t *alg, int64_t count,
                       int64_t check_count, timing_t *timing)
{
    buffers_t b;
    int ok = MPI_SUCCESS == buffers_alloc(&b, count, bn->rank, 1);
    *timing = timed_call(bn, alg, &b);
    ok = ok && MPI_SUCCESS == timing->rc;
    buffers_free(&b);
    return checked_call(bn, alg, check_count, NULL) && ok;
}

static void report(const bench_t *bn, const char *variant, const rabred_alg_t *alg,
                   int64_t bytes, const timing_t *t, int ok, int64_t checked)
{
    double start, end, mine = t->end - t->start, sum;
    MPI_Reduce(&t->start, &start, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t->end, &end, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 != bn->rank) {
        return;
    }
    int64_t count = bytes / (int64_t)sizeof(double);
    double complete = end - start, mean = sum / bn->p;
    double sim = NULL != alg ? simulated(bn, alg, count) : -1;
    printf("RESULT variant=%s coll=%s p=%d bytes=%lld time_s=%.9g complete_s=%.9g chosen=%s "
           "sim_s=%.9g check=%s",
           NULL == alg ? bn->o->label : variant,
           rabred_coll_name(bn->o->coll), bn->p, (long long)bytes,
           RABRED_COLL_REDUCE == bn->o->coll ? mean : complete, complete,
           NULL != alg ? alg->name : bn->o->label, sim, ok ? "ok" : "FAIL");
    if (ok && checked < count) {
        printf("@%lld", (long long)checked);
    }
    printf("\n");
    fflush(stdout);
}

/* One (variant, size): 0, or 1 when the result was wrong. */
static int cell(const bench_t *bn, const char *variant, int64_t bytes)
{
    int64_t count = bytes / (int64_t)sizeof(double);
    const rabred_alg_t *alg = NULL;
    if (strcmp(variant, "mpi")) {
        alg = algorithm(bn, variant, count);
        rabred_call_t call = {bn->p, count, 1, nodes_of(bn)};
        if (NULL == alg || NULL != rabred_alg_violation(alg, &call)) {
            if (0 == bn->rank) {
                printf("SKIP variant=%s p=%d bytes=%lld: %s\n", variant, bn->p, (long long)bytes,
                       NULL == alg ? "no such algorithm (or no choice)"
                                   : rabred_alg_violation(alg, &call));
            }
            return 0;
        }
    }
    int64_t fit = checkable_count(bn, count);
    timing_t t;
    int ok = fit >= count ? checked_call(bn, alg, count, &t)
                          : shared_call(bn, alg, count, fit, &t);
    report(bn, variant, alg, bytes, &t, ok, fit < count ? fit : count);
    return !ok;
}

/* ---- the machine's terms ----------------------------------------------------- */

/* Rank r's partner when ranks 0..lanes-1 exchange with ranks dist ..
 * dist+lanes-1 at once (i with dist + i; dist >= lanes), or -1. */
static int partner(int lanes, int dist, int r)
{
    return r < lanes ? r + dist : r >= dist && r < dist + lanes ? r - dist : -1;
}

/* Seconds of `reps` exchanges of `bytes` with `peer` (-1: none), one
 * after the other (both send and receive, as the runner does), after a
 * common start; every rank takes part in the start.  The clock is read
 * once, after the last: SMPI charges each MPI_Wtime simulated time
 * (smpi/wtime, 10 ns), which would count as latency of every exchange. */
static double exchange_with(const bench_t *bn, int peer, int bytes, int reps, char *buf)
{
    double start = common_start(bn), end = start;
    for (int i = 0; i < reps && peer >= 0; i++) {
        MPI_Request req[2];
        MPI_Irecv(buf + bytes, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(buf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    end = peer >= 0 ? MPI_Wtime() : end;
    double mine = end - start, longest;
    MPI_Allreduce(&mine, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return longest;
}

static double exchange_time(const bench_t *bn, int lanes, int dist, int bytes, int reps,
                            char *buf)
{
    return exchange_with(bn, partner(lanes, dist, bn->rank), bytes, reps, buf);
}

/* A link's alpha and bandwidth, as rabred-calibrate measures them: alpha
 * from the time one more 8-byte exchange between one pair adds (a timed
 * call also pays a constant of SMPI's, about 0.1 us, that a collective
 * pays once, not per round), less its 8 bytes' time at the pair's
 * bandwidth (the model charges those to beta); bandwidth from the slope
 * to 1 MiB with `lanes` pairs at once, times lanes: what a group's shared
 * link carries. */
static rabred_link_units_t measure_link(const bench_t *bn, int lanes, int dist)
{
    enum { SMALL = 8, LARGE = 1 << 20, REPS = 5 };
    char *buf = calloc(2, LARGE);
    if (NULL == buf) {
        fprintf(stderr, "rabred_scale: no memory for the link measurement\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double one = exchange_time(bn, 1, dist, SMALL, 1, buf);
    double many = exchange_time(bn, 1, dist, SMALL, REPS, buf);
    double pair_large = exchange_time(bn, 1, dist, LARGE, 1, buf);
    double small = lanes > 1 ? exchange_time(bn, lanes, dist, SMALL, 1, buf) : one;
    double large = lanes > 1 ? exchange_time(bn, lanes, dist, LARGE, 1, buf) : pair_large;
    free(buf);
    double pair_us_per_byte = 1e6 * (pair_large - one) / (LARGE - SMALL);
    return plain_link(1e6 * (many - one) / (REPS - 1) - SMALL * pair_us_per_byte,
                      lanes * (double)(LARGE - SMALL) / (large - small) / 1e6);
}

/* Of a link's alpha, what a message holds its receiver's port for: rank
 * `to` receives 8 bytes from each of `k` senders at once (first, first +
 * stride, ...), against from one; each more message adds the overhead
 * and its 8 bytes (at `mbs`).  A flow-level network's latency overlaps,
 * its per-message work does not (SMPI's: about 0.013 us a message). */
static double measure_overhead(const bench_t *bn, int to, int first, int stride, int k,
                               double mbs)
{
    enum { SMALL = 8 };
    char buf[SMALL * 64];
    double t[2];
    for (int i = 0; i < 2; i++) {
        int n = 0 == i ? 1 : k;
        double start = common_start(bn), mine = 0, longest;
        int sender = bn->rank >= first && (bn->rank - first) % stride == 0 &&
                     (bn->rank - first) / stride < n;
        if (bn->rank == to) {
            MPI_Request req[64];
            for (int j = 0; j < n; j++) {
                MPI_Irecv(buf + SMALL * j, SMALL, MPI_BYTE, first + j * stride, 9,
                          MPI_COMM_WORLD, &req[j]);
            }
            MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
            mine = MPI_Wtime() - start;
        } else if (sender) {
            MPI_Send(buf, SMALL, MPI_BYTE, to, 9, MPI_COMM_WORLD);
        }
        MPI_Allreduce(&mine, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[i] = longest;
    }
    double us = 1e6 * (t[1] - t[0]) / (k - 1) - SMALL / mbs;
    return us > 0 ? us : 0;
}

/* Do a rank's messages in flight share its link (rabred_link_units_t.
 * shared_ports)?  Rank `from` sends 1 MiB to rank a alone, then to a and
 * b at once; each receiver's time from a common start.  Taking turns, the
 * first of the pair is in after one message's time; shared, after about
 * two (a flow-level network shares: SMPI's does).  Shared when the first of
 * the pair took over 1.5 times the message alone (*shared = 1); with no
 * port at all the last of the pair is in within 1.5 times too (*parallel
 * = 1: SMPI's loopback inside a host). */
static void measure_sharing(const bench_t *bn, int from, int a, int b, double *shared,
                            double *parallel)
{
    enum { LARGE = 1 << 20 };
    char *buf = calloc(1, LARGE);
    if (NULL == buf) {
        fprintf(stderr, "rabred_scale: no memory for the sharing measurement\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double alone = 0, first = 0, last = 0;
    for (int pair = 0; pair < 2; pair++) {
        double start = common_start(bn), mine = 1e30, earliest, latest;
        if (bn->rank == from) {
            MPI_Request req[2];
            MPI_Isend(buf, LARGE, MPI_BYTE, a, 11, MPI_COMM_WORLD, &req[0]);
            if (pair) {
                MPI_Isend(buf, LARGE, MPI_BYTE, b, 11, MPI_COMM_WORLD, &req[1]);
            }
            MPI_Waitall(1 + pair, req, MPI_STATUSES_IGNORE);
        } else if (bn->rank == a || (pair && bn->rank == b)) {
            MPI_Recv(buf, LARGE, MPI_BYTE, from, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            mine = MPI_Wtime() - start;
        }
        MPI_Allreduce(&mine, &earliest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        mine = mine < 1e30 ? mine : 0;
        MPI_Allreduce(&mine, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        *(pair ? &first : &alone) = earliest;
        last = pair ? latest : last;
    }
    free(buf);
    if (0 == bn->rank) {
        printf("SHARING from=%d alone_us=%.6g first_of_two_us=%.6g last_of_two_us=%.6g\n", from,
               1e6 * alone, 1e6 * first, 1e6 * last);
    }
    *shared = first > 1.5 * alone;
    *parallel = !*shared && last < 1.5 * alone;
}

/* Every rank exchanges with rank XOR d at once (shift 0; ranks without
 * one in range sit out), or sends to rank + d and receives from rank - d
 * (shift 1, cyclically); the slowest rank's time. */
static double pattern_time(const bench_t *bn, int d, int shift, int bytes, char *buf)
{
    int peer = bn->rank ^ d;
    if (!shift) {
        return exchange_with(bn, peer < bn->p ? peer : -1, bytes, 1, buf);
    }
    double start = common_start(bn), longest;
    MPI_Request req[2];
    MPI_Irecv(buf + bytes, bytes, MPI_BYTE, (bn->rank - d + bn->p) % bn->p, 7, MPI_COMM_WORLD,
              &req[0]);
    MPI_Isend(buf, bytes, MPI_BYTE, (bn->rank + d) % bn->p, 7, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    double mine = MPI_Wtime() - start;
    MPI_Allreduce(&mine, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return longest;
}

/* The distance terms as rabred-calibrate measures them: every rank talks
 * 2^k places away at once, for every 2^k up to p/2 (beyond, the model's
 * cyclic distance is p - d), timed as the slope from 8 B to 1 MiB, in
 * XOR pairs (inter_distance_mbs) and in shifts (inter_shift_mbs), and
 * the 8-byte time as each pattern's latency by distance
 * (inter_distance_alpha_us, inter_shift_alpha_us); rabred_cal_distance_mbs
 * turns the slopes into each list (written when some distance is 1.1x
 * slower than 1), printed as measured either way. */
static void measure_pattern(const bench_t *bn, int shift, double link_mbs, double *out,
                            double *alpha_us)
{
    double t[RABRED_DISTANCE_CLASSES], mbs[RABRED_DISTANCE_CLASSES] = {0};
    double small[RABRED_DISTANCE_CLASSES];
    int n = 0;
    enum { SMALL = 8, LARGE = 1 << 20 };
    char *buf = calloc(2, LARGE);
    if (NULL == buf) {
        fprintf(stderr, "rabred_scale: no memory for the distance measurement\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (; n < RABRED_DISTANCE_CLASSES && (1 << n) <= bn->p / 2; n++) {
        small[n] = pattern_time(bn, 1 << n, shift, SMALL, buf);
        t[n] = pattern_time(bn, 1 << n, shift, LARGE, buf) - small[n];
    }
    for (int k = 0; k < n; k++) { /* one message each: its latency */
        alpha_us[k] = 1e6 * small[k];
    }
    if (0 == bn->rank) {
        printf("%s alpha_us=", shift ? "SHIFT" : "DISTANCE");
        for (int k = 0; k < n; k++) {
            printf("%s%.4g", k ? "," : "", alpha_us[k]);
        }
        printf("\n");
    }
    free(buf);
    /* the list as measured, also when no distance is slower: shifts at
     * full speed must not fall back to the XOR pairs' list */
    (void)rabred_cal_distance_mbs(link_mbs, t, n, 0, 0, mbs); /* simulated: no spread */
    memcpy(out, mbs, (size_t)n * sizeof(double));
    if (0 == bn->rank) {
        printf("%s mbs=", shift ? "SHIFT" : "DISTANCE");
        for (int k = 0; k < n; k++) {
            printf("%s%.6g", k ? "," : "", mbs[k]);
        }
        printf("\n");
    }
}

static void measure_distances(const bench_t *bn, rabred_link_units_t *link)
{
    measure_pattern(bn, 0, link->mbs, link->distance_mbs, link->distance_alpha_us);
    measure_pattern(bn, 1, link->mbs, link->shift_mbs, link->shift_alpha_us);
}

static void measure_links(bench_t *bn, options_t *o)
{
    if (bn->p < 2) {
        return;
    }
    /* between groups: the first and the last, the most hops apart, every
     * rank of the first group at once (what their shared link carries) */
    int lanes = o->ppn > 1 && bn->p >= 2 * o->ppn ? o->ppn : 1;
    o->inter = measure_link(bn, lanes, bn->p - lanes);
    if (lanes > 1) { /* and what one rank's message alone gets through it */
        o->inter.rank_mbs = measure_link(bn, 1, bn->p - 1).mbs;
    }
    /* the overhead: rank 0 receiving from 8 ranks at once (of other
     * groups between groups, of its own inside one) */
    int groups = o->ppn > 1 ? bn->p / o->ppn : bn->p;
    int k = groups - 1 < 8 ? groups - 1 : 8, stride = o->ppn > 1 ? o->ppn : 1;
    o->inter_overhead_us =
        k > 1 ? measure_overhead(bn, 0, stride, stride, k, o->inter.rank_mbs > 0 ? o->inter.rank_mbs
                                                                                  : o->inter.mbs)
              : 0;
    /* the model's terms for what the overhead leaves of alpha, and for a
     * port's messages in flight (rank 0 to the first ranks of two other
     * groups); SMPI's sends below its detached threshold
     * (smpi/send-is-detached-thresh, 64 KiB by default) leave their sender
     * when posted: the model's send buffer */
    o->inter.wire_us = k > 1 ? o->inter.alpha_us - o->inter_overhead_us : 0;
    if (groups > 2) {
        measure_sharing(bn, 0, stride, 2 * stride, &o->inter.shared_ports,
                        &o->inter.parallel_ports);
    }
    o->inter.send_buffer_bytes = o->intra.send_buffer_bytes = 65536 - 1;
    if (o->ppn > 1) { /* inside a group: ranks 0 and 1 */
        o->intra = measure_link(bn, 1, 1);
        int local = o->ppn - 1 < 8 ? o->ppn - 1 : 8;
        o->intra_overhead_us =
            local > 1 && bn->p >= o->ppn ? measure_overhead(bn, 0, 1, 1, local, o->intra.mbs) : 0;
        o->intra.wire_us = local > 1 ? o->intra.alpha_us - o->intra_overhead_us : 0;
        if (o->ppn > 2) {
            measure_sharing(bn, 0, 1, 2, &o->intra.shared_ports, &o->intra.parallel_ports);
        }
        o->intra.send_buffer_bytes = 65536 - 1;
    } else { /* one rank per node: the network by distance (the model's
              * distance term applies without a node map only) */
        measure_distances(bn, &o->inter);
    }
    if (0 == bn->rank) {
        printf("LINK inter alpha_us=%.6g mbs=%.6g rank_mbs=%.6g overhead_us=%.4g shared=%g intra "
               "alpha_us=%.6g mbs=%.6g overhead_us=%.4g shared=%g parallel=%g\n",
               o->inter.alpha_us, o->inter.mbs, o->inter.rank_mbs, o->inter_overhead_us,
               o->inter.shared_ports, o->intra.alpha_us, o->intra.mbs, o->intra_overhead_us,
               o->intra.shared_ports, o->intra.parallel_ports);
    }
}

/* `all`: every algorithm of the collective's table that may differ from
 * the others here.  Not the arrival-aware ones (with balanced arrivals,
 * as here, they are slower variants of the ring and the linear tree, and
 * their plans take O(p^2) to build on every rank), nor, without groups,
 * the node-aware ones (one rank per node: the flat plans they compose). */
static int every_algorithm(const bench_t *bn, int64_t bytes)
{
    int failures = 0;
    for (int i = 0; i < rabred_table_size(bn->o->coll); i++) {
        const rabred_alg_t *alg = rabred_table_at(bn->o->coll, i);
        if (!alg->arrival_aware && (!alg->node_aware || bn->o->ppn > 1)) {
            failures += cell(bn, alg->name, bytes);
        }
    }
    return failures;
}

static int make_nodes(bench_t *bn)
{
    bn->node_of = malloc((size_t)bn->p * sizeof(int32_t));
    if (NULL == bn->node_of) {
        return -1;
    }
    for (int r = 0; r < bn->p; r++) { /* smpirun places ranks in hostfile order */
        bn->node_of[r] = r / bn->o->ppn;
    }
    bn->nodes.nnodes = (bn->p + bn->o->ppn - 1) / bn->o->ppn;
    bn->nodes.node_of = bn->node_of;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    options_t o;
    double margin = 1e-3;
    bench_t bn = {&o, 0, 0, {0, NULL, NULL, NULL}, NULL, &margin};
    MPI_Comm_size(MPI_COMM_WORLD, &bn.p);
    MPI_Comm_rank(MPI_COMM_WORLD, &bn.rank);
    if (0 != parse_options(argc, argv, &o) || 0 != make_nodes(&bn)) {
        if (0 == bn.rank) {
            usage();
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (o.measure) {
        measure_links(&bn, &o);
    }
    int failures = 0;
    for (int s = 0; s < o.nsizes; s++) {
        for (int v = 0; v < o.nvariants; v++) {
            failures += strcmp(o.variants[v], "all") ? cell(&bn, o.variants[v], o.sizes[s])
                                                     : every_algorithm(&bn, o.sizes[s]);
        }
    }
    free(bn.node_of);
    MPI_Finalize();
    return 0 != failures;
}
