/*
 * The simulator's verification: what rabred_simulate proves besides the
 * time (rabred_sim.h).
 *
 *  - contributions: an element's value as the set of ranks it combines,
 *    whether they were combined in rank order, and which element of the
 *    vector it is (a receive slot holds an element elsewhere);
 *  - run-length buffers: every rank's buffers and every message's payload
 *    as runs of elements with the same contributions, so that a check costs
 *    O(p and the plan), not O(count);
 *  - the checks: each round of each plan while it is compiled (peers,
 *    ranges, local steps inside the vector, no receive overlapping another
 *    transfer), and after the run each rank's input (never written) and
 *    result (exactly ranks 0..p-1, in rank order for non-commutative ops).
 *
 * Separate from the timing engine (rabred_sim.c) so that each reads on its
 * own: the engine is about time and never sees a buffer, this file is
 * about what the data holds and never sees a port, the queue or a message
 * (a message is a slot number here).  A new check touches only this file,
 * a new cost term only the engine, and pricing (cost_only) runs none of
 * this but rabred_sim_check_round.  The engine drives it through
 * rabred_sim_internal.h.
 */
#include "sim/rabred_sim_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- contributions: what an element holds ------------------------------ */

/* An element's value as a set of rank contributions.  lo..hi and `ordered`
 * say whether they were combined as one rank-ordered run; n and the hash
 * sum identify the multiset (hashes are random 64-bit words per rank).
 * shift says which element of the vector it is: the element at position x
 * of a buffer is element x + shift (0 everywhere but in receive slots,
 * rabred_plan_reduce_from); inside a message or an extracted range the
 * positions count from the range's start.  Combining two different
 * elements gives garbage, and a result must hold every element at its
 * own place: so the checks prove that both ends of every message name
 * the same elements. */
typedef struct {
    int32_t lo, hi, n;
    uint8_t valid, ordered;
    uint64_t hash;
    int64_t shift;
} contrib_t;

static uint64_t rank_hash(int rank)
{
    uint64_t z = (uint64_t)rank + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static contrib_t combine(contrib_t first, contrib_t second)
{
    contrib_t c;
    memset(&c, 0, sizeof(c));
    if (!first.valid || !second.valid || first.shift != second.shift) {
        return c; /* garbage in, garbage out; two different elements: garbage */
    }
    c.valid = 1;
    c.shift = first.shift;
    c.n = first.n + second.n;
    c.hash = first.hash + second.hash;
    c.ordered = first.ordered && second.ordered && first.hi + 1 == second.lo;
    c.lo = first.lo < second.lo ? first.lo : second.lo;
    c.hi = first.hi > second.hi ? first.hi : second.hi;
    return c;
}

static int same(contrib_t a, contrib_t b)
{
    return a.valid == b.valid && a.ordered == b.ordered && a.lo == b.lo && a.hi == b.hi &&
           a.n == b.n && a.hash == b.hash && a.shift == b.shift;
}

/* ---- run-length buffers ------------------------------------------------ */

typedef struct {
    int64_t start; /* the run lasts until the next run's start */
    contrib_t c;
} run_t;

typedef struct {
    run_t *runs;
    int n, cap;
} runs_t;

static int runs_push(runs_t *r, int64_t start, contrib_t c)
{
    if (r->n > 0 && same(r->runs[r->n - 1].c, c)) {
        return RABRED_OK; /* merge equal neighbours: keeps buffers short */
    }
    if (r->n == r->cap) {
        int ncap = r->cap ? 2 * r->cap : 8;
        run_t *grown = realloc(r->runs, (size_t)ncap * sizeof(run_t));
        if (NULL == grown) {
            return RABRED_ERR_NOMEM;
        }
        r->runs = grown;
        r->cap = ncap;
    }
    r->runs[r->n].start = start;
    r->runs[r->n].c = c;
    r->n++;
    return RABRED_OK;
}

/* Index of the run holding element pos (buffer must start at 0). */
static int run_at(const runs_t *b, int64_t pos)
{
    int lo = 0, hi = b->n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (b->runs[mid].start <= pos) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

/* A contribution moved by `by` positions keeps naming the same element. */
static contrib_t moved(contrib_t c, int64_t by)
{
    c.shift -= c.valid ? by : 0; /* garbage stays garbage, shift 0 */
    return c;
}

/* out = the runs of b over [off, off+len), positions relative to off. */
static int runs_extract(const runs_t *b, int64_t off, int64_t len, runs_t *out)
{
    out->n = 0;
    for (int i = run_at(b, off); i < b->n && b->runs[i].start < off + len; i++) {
        int64_t s = b->runs[i].start > off ? b->runs[i].start - off : 0;
        if (runs_push(out, s, moved(b->runs[i].c, -off)) != RABRED_OK) {
            return RABRED_ERR_NOMEM;
        }
    }
    return RABRED_OK;
}

/* Replace [off, off+len) of *b (total length total) by src (relative), in
 * place: only the runs after the range move, and only when their number
 * changes, so a store costs O(lg runs + src runs) in the common case (the
 * neighbour ring keeps p runs in ACC and rewrites one at a time).  scratch
 * holds the new runs on the way. */
static int runs_store(runs_t *b, int64_t total, int64_t off, int64_t len, const runs_t *src,
                      runs_t *scratch)
{
    int i = run_at(b, off), rc = RABRED_OK;
    int first = b->runs[i].start < off ? i + 1 : i, last = b->n; /* runs [first, last) go */
    scratch->n = 0;
    for (int k = 0; k < src->n && RABRED_OK == rc; k++) {
        rc = runs_push(scratch, off + src->runs[k].start, moved(src->runs[k].c, off));
    }
    if (off + len < total && RABRED_OK == rc) { /* the rest of the run holding off + len */
        int j = run_at(b, off + len);
        rc = runs_push(scratch, off + len, b->runs[j].c);
        last = j + 1;
    }
    if (RABRED_OK != rc) {
        return rc;
    }
    /* merge equal neighbours where the new runs meet the kept ones */
    const run_t *add = scratch->runs;
    int nadd = scratch->n;
    if (nadd > 0 && first > 0 && same(b->runs[first - 1].c, add[0].c)) {
        add++;
        nadd--;
    }
    if (last < b->n && (nadd > 0 ? same(add[nadd - 1].c, b->runs[last].c)
                                 : first > 0 && same(b->runs[first - 1].c, b->runs[last].c))) {
        last++;
    }
    int n = b->n - (last - first) + nadd;
    if (n > b->cap) {
        run_t *grown = realloc(b->runs, (size_t)n * 2 * sizeof(run_t));
        if (NULL == grown) {
            return RABRED_ERR_NOMEM;
        }
        b->runs = grown;
        b->cap = n * 2;
    }
    if (last != first + nadd) {
        memmove(&b->runs[first + nadd], &b->runs[last], (size_t)(b->n - last) * sizeof(run_t));
    }
    memcpy(&b->runs[first], add, (size_t)nadd * sizeof(run_t));
    b->n = n;
    return RABRED_OK;
}

/* out = first (op) second, elementwise; both cover [0, len). */
static int runs_combine(const runs_t *first, const runs_t *second, int64_t len, runs_t *out)
{
    out->n = 0;
    int i = 0, j = 0, rc = RABRED_OK;
    int64_t pos = 0;
    while (pos < len && RABRED_OK == rc) {
        rc = runs_push(out, pos, combine(first->runs[i].c, second->runs[j].c));
        int64_t ni = i + 1 < first->n ? first->runs[i + 1].start : len;
        int64_t nj = j + 1 < second->n ? second->runs[j + 1].start : len;
        pos = ni < nj ? ni : nj;
        i += ni == pos;
        j += nj == pos;
    }
    return rc;
}

/* ---- problems ---------------------------------------------------------- */

void rabred_sim_fail(rabred_sim_ctx_t *ctx, const char *fmt, ...)
{
    if (!ctx->res->ok) {
        return; /* keep the first problem */
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->res->error, sizeof(ctx->res->error), fmt, ap);
    va_end(ap);
    ctx->res->ok = 0;
}

/* ---- full mode's state ------------------------------------------------- */

/* The data a rank holds. */
typedef struct {
    rabred_plan_t plan;
    runs_t *buf[RABRED_NBUFS]; /* INPUT may alias ACC */
    runs_t own[RABRED_NBUFS];
} rankdata_t;

/* A range of one of a rank's storage buffers (INPUT may be ACC). */
typedef struct {
    int store;
    int64_t off, end;
} span_t;

struct rabred_sim_data_s {
    const rabred_sim_call_t *call;
    uint64_t total_hash; /* what every full result holds */
    rankdata_t *ranks;
    runs_t *msgdata; /* the snapshot of each message slot's sent range */
    int32_t capmsgdata;
    runs_t s1, s2, s3; /* scratch */
    span_t *spans;     /* rabred_sim_check_round's scratch */
    int32_t capspans;
};

rabred_sim_data_t *rabred_sim_data_new(const rabred_sim_call_t *call)
{
    rabred_sim_data_t *data = calloc(1, sizeof(*data));
    if (NULL == data) {
        return NULL;
    }
    data->call = call;
    data->ranks = calloc((size_t)call->p, sizeof(rankdata_t));
    if (NULL == data->ranks) {
        free(data);
        return NULL;
    }
    for (int i = 0; i < call->p; i++) {
        data->total_hash += rank_hash(i);
    }
    return data;
}

void rabred_sim_data_free(rabred_sim_data_t *data)
{
    if (NULL == data) {
        return;
    }
    for (int i = 0; i < data->call->p; i++) {
        for (int b = 0; b < RABRED_NBUFS; b++) {
            free(data->ranks[i].own[b].runs);
        }
        rabred_plan_free(&data->ranks[i].plan);
    }
    for (int32_t m = 0; m < data->capmsgdata; m++) {
        free(data->msgdata[m].runs);
    }
    free(data->ranks);
    free(data->msgdata);
    free(data->s1.runs);
    free(data->s2.runs);
    free(data->s3.runs);
    free(data->spans);
    free(data);
}

rabred_plan_t *rabred_sim_data_plan(rabred_sim_data_t *data, int rank)
{
    return &data->ranks[rank].plan;
}

int rabred_sim_data_setup_rank(rabred_sim_data_t *data, int rank)
{
    rankdata_t *d = &data->ranks[rank];
    contrib_t mine = {rank, rank, 1, 1, 1, rank_hash(rank), 0}, garbage;
    memset(&garbage, 0, sizeof(garbage));
    int rc = RABRED_OK;
    for (int b = 0; b < RABRED_NBUFS && RABRED_OK == rc; b++) {
        d->buf[b] = &d->own[b];
        rc = runs_push(&d->own[b], 0, b == RABRED_BUF_INPUT ? mine : garbage);
    }
    if (RABRED_OK == rc && rabred_sim_input_is_acc(data->call, rank)) {
        d->buf[RABRED_BUF_INPUT] = d->buf[RABRED_BUF_ACC];
        d->own[RABRED_BUF_ACC].runs[0].c = mine;
    }
    return rc;
}

/* ---- the data the engine moves ----------------------------------------- */

/* Room for message slot msg's snapshot. */
static int reserve_msg(rabred_sim_data_t *data, int32_t msg)
{
    if (msg < data->capmsgdata) {
        return RABRED_OK;
    }
    int64_t cap = data->capmsgdata ? data->capmsgdata : 64;
    while (cap <= msg) {
        cap *= 2;
    }
    runs_t *grown = cap <= INT32_MAX ? realloc(data->msgdata, (size_t)cap * sizeof(runs_t)) : NULL;
    if (NULL == grown) {
        return RABRED_ERR_NOMEM;
    }
    memset(grown + data->capmsgdata, 0, (size_t)(cap - data->capmsgdata) * sizeof(runs_t));
    data->msgdata = grown;
    data->capmsgdata = (int32_t)cap;
    return RABRED_OK;
}

/* A send is posted: the message carries the range as it is now. */
int rabred_sim_data_send(rabred_sim_data_t *data, int rank, int32_t xfer, int32_t msg)
{
    int rc = reserve_msg(data, msg);
    if (RABRED_OK != rc) {
        return rc;
    }
    rankdata_t *d = &data->ranks[rank];
    const rabred_xfer_t *px = &d->plan.xfers[xfer];
    return runs_extract(d->buf[px->buf], px->off, px->len, &data->msgdata[msg]);
}

/* A message ends: its snapshot lands in the receiver's range. */
int rabred_sim_data_deliver(rabred_sim_data_t *data, int rank, int32_t xfer, int32_t msg)
{
    rankdata_t *d = &data->ranks[rank];
    const rabred_xfer_t *px = &d->plan.xfers[xfer];
    return runs_store(d->buf[px->buf], data->call->count, px->off, px->len, &data->msgdata[msg],
                      &data->s3);
}

/* Run the local steps of round `round` on the rank's data. */
int rabred_sim_data_locals(rabred_sim_data_t *data, int rank, int round)
{
    rankdata_t *d = &data->ranks[rank];
    const rabred_round_t *rd = &d->plan.rounds[round];
    int64_t count = data->call->count;
    int rc = RABRED_OK;
    for (int k = 0; k < rd->nlocal && RABRED_OK == rc; k++) {
        const rabred_local_t *l = &d->plan.locals[rd->first_local + k];
        runs_t *src = d->buf[l->src], *dst = d->buf[l->dst];
        if (RABRED_LOCAL_COPY == l->kind) {
            if (src != dst) {
                rc = runs_extract(src, l->src_off, l->len, &data->s1);
                if (RABRED_OK == rc) {
                    rc = runs_store(dst, count, l->off, l->len, &data->s1, &data->s3);
                }
            }
            continue;
        }
        rc = runs_extract(src, l->src_off, l->len, &data->s1);
        if (RABRED_OK == rc) {
            rc = runs_extract(dst, l->off, l->len, &data->s2);
        }
        if (RABRED_OK == rc) {
            rc = l->src_first ? runs_combine(&data->s1, &data->s2, l->len, &data->s3)
                              : runs_combine(&data->s2, &data->s1, l->len, &data->s3);
        }
        if (RABRED_OK == rc) {
            rc = runs_store(dst, count, l->off, l->len, &data->s3, &data->s1);
        }
    }
    return rc;
}

/* ---- checks of a plan's round, while compiling ------------------------- */

/* Valid peers and ranges. */
static int check_transfers(rabred_sim_ctx_t *ctx, int rank, const rabred_xfer_t *xs, int n)
{
    const rabred_sim_call_t *call = ctx->call;
    for (int a = 0; a < n; a++) {
        const rabred_xfer_t *x = &xs[a];
        if (x->off < 0 || x->len < 0 || x->off + x->len > call->count || x->peer < 0 ||
            x->peer >= call->p || x->peer == rank) {
            rabred_sim_fail(ctx, "rank %d: bad transfer (peer %d, range %lld+%lld)", rank,
                            x->peer, (long long)x->off, (long long)x->len);
            return 0;
        }
    }
    return 1;
}

/* The storage range a transfer touches (alias: INPUT is ACC). */
static span_t span_of(const rabred_xfer_t *x, int alias)
{
    int store = RABRED_BUF_INPUT == x->buf && alias ? RABRED_BUF_ACC : x->buf;
    return (span_t){store, x->off, x->off + x->len};
}

static int span_cmp(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    if (x->store != y->store) {
        return x->store < y->store ? -1 : 1;
    }
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Does q overlap one of the sorted, disjoint recvs? */
static int hits_recv(const span_t *recvs, int n, span_t q)
{
    int lo = 0, hi = n; /* first recv not before q in (store, off) order */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (span_cmp(&recvs[mid], &q) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (int i = lo - 1; i <= lo; i++) {
        if (i >= 0 && i < n && recvs[i].store == q.store && recvs[i].off < q.end &&
            q.off < recvs[i].end) {
            return 1;
        }
    }
    return 0;
}

/* No receive overlaps another transfer of the round (MPI forbids touching
 * a receive buffer before the receive completes).  Sorting keeps this
 * O(n log n) for a root that receives from every rank. */
static int check_overlaps(rabred_sim_ctx_t *ctx, rabred_sim_data_t *data, int rank, int round,
                          const rabred_xfer_t *xs, int n)
{
    int alias = rabred_sim_input_is_acc(ctx->call, rank), nrecv = 0, ok = 1;
    if (!rabred_sim_grow(ctx, (void **)&data->spans, &data->capspans, n, sizeof(span_t))) {
        return 0;
    }
    span_t *spans = data->spans;
    for (int a = 0; a < n; a++) {
        if (RABRED_XFER_RECV == xs[a].dir) {
            spans[nrecv++] = span_of(&xs[a], alias);
        }
    }
    if (nrecv > 1) {
        qsort(spans, (size_t)nrecv, sizeof(span_t), span_cmp);
    }
    for (int i = 1; i < nrecv && ok; i++) {
        ok = !(spans[i].store == spans[i - 1].store && spans[i].off < spans[i - 1].end);
    }
    for (int a = 0; a < n && ok && nrecv > 0; a++) {
        span_t q = span_of(&xs[a], alias), *r = &spans[0];
        ok = RABRED_XFER_RECV == xs[a].dir ||
             (1 == nrecv ? !(r->store == q.store && r->off < q.end && q.off < r->end)
                         : !hits_recv(spans, nrecv, q));
    }
    if (!ok) {
        rabred_sim_fail(ctx, "rank %d round %d: a receive overlaps another transfer", rank, round);
        return 0;
    }
    return 1;
}

/* Local steps inside the vector. */
static int check_locals(rabred_sim_ctx_t *ctx, int rank, const rabred_plan_t *plan, int round)
{
    const rabred_round_t *rd = &plan->rounds[round];
    for (int k = 0; k < rd->nlocal; k++) {
        const rabred_local_t *l = &plan->locals[rd->first_local + k];
        if (l->off < 0 || l->off + l->len > ctx->call->count || l->src_off < 0 ||
            l->src_off + l->len > ctx->call->count) {
            rabred_sim_fail(ctx, "rank %d round %d: local step outside the vector", rank, round);
            return 0;
        }
    }
    return 1;
}

/* The overlap check needs data: cost_only mode prices plans already proven. */
int rabred_sim_check_round(rabred_sim_ctx_t *ctx, rabred_sim_data_t *data, int rank,
                           const rabred_plan_t *plan, int round)
{
    const rabred_round_t *rd = &plan->rounds[round];
    const rabred_xfer_t *xs = &plan->xfers[rd->first_xfer];
    return check_transfers(ctx, rank, xs, rd->nxfer) &&
           (NULL == data || check_overlaps(ctx, data, rank, round, xs, rd->nxfer)) &&
           check_locals(ctx, rank, plan, round);
}

/* ---- checks of the results, after the run ------------------------------ */

void rabred_sim_check_data(rabred_sim_ctx_t *ctx, const rabred_sim_data_t *data, int rank)
{
    const rabred_sim_call_t *call = ctx->call;
    const rankdata_t *d = &data->ranks[rank];
    if (d->buf[RABRED_BUF_INPUT] != d->buf[RABRED_BUF_ACC] &&
        (d->own[RABRED_BUF_INPUT].n != 1 || d->own[RABRED_BUF_INPUT].runs[0].c.n != 1)) {
        rabred_sim_fail(ctx, "rank %d wrote into its input buffer", rank);
        return;
    }
    if (!rabred_sim_wants_result(call, rank) || 0 == call->count) {
        return;
    }
    const runs_t *acc = d->buf[RABRED_BUF_ACC];
    for (int i = 0; i < acc->n; i++) {
        contrib_t c = acc->runs[i].c;
        int full = c.valid && c.n == call->p && c.hash == data->total_hash && 0 == c.shift;
        int in_order = c.ordered && c.lo == 0 && c.hi == call->p - 1;
        if (!full || (!call->commutative && !in_order)) {
            rabred_sim_fail(ctx,
                            "rank %d element %lld: %s (holds %d contributions, ranks %d..%d%s)",
                            rank, (long long)acc->runs[i].start,
                            !c.valid ? "never written or built from garbage"
                            : 0 != c.shift ? "holds another element"
                            : !full  ? "wrong set of contributions"
                                     : "contributions out of rank order",
                            c.n, c.lo, c.hi, c.ordered ? ", ordered" : "");
            return;
        }
    }
}
