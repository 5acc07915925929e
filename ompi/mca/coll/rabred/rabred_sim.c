/*
 * The rabred simulator: see rabred_sim.h for what it proves and its model.
 */
#include "rabred_sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- contributions: what an element holds ------------------------------ */

/* An element's value as a set of rank contributions.  lo..hi and `ordered`
 * say whether they were combined as one rank-ordered run; n and the hash
 * sum identify the multiset (hashes are random 64-bit words per rank). */
typedef struct {
    int32_t lo, hi, n;
    uint8_t valid, ordered;
    uint64_t hash;
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
    if (!first.valid || !second.valid) {
        return c; /* garbage in, garbage out */
    }
    c.valid = 1;
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
           a.n == b.n && a.hash == b.hash;
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

/* out = the runs of b over [off, off+len), positions relative to off. */
static int runs_extract(const runs_t *b, int64_t off, int64_t len, runs_t *out)
{
    out->n = 0;
    for (int i = run_at(b, off); i < b->n && b->runs[i].start < off + len; i++) {
        int64_t s = b->runs[i].start > off ? b->runs[i].start - off : 0;
        if (runs_push(out, s, b->runs[i].c) != RABRED_OK) {
            return RABRED_ERR_NOMEM;
        }
    }
    return RABRED_OK;
}

/* Replace [off, off+len) of *b (total length total) by src (relative). */
static int runs_store(runs_t *b, int64_t total, int64_t off, int64_t len, const runs_t *src,
                      runs_t *scratch)
{
    scratch->n = 0;
    int rc = RABRED_OK, i;
    for (i = 0; i < b->n && b->runs[i].start < off && RABRED_OK == rc; i++) {
        rc = runs_push(scratch, b->runs[i].start, b->runs[i].c);
    }
    for (int k = 0; k < src->n && RABRED_OK == rc; k++) {
        rc = runs_push(scratch, off + src->runs[k].start, src->runs[k].c);
    }
    if (off + len < total && RABRED_OK == rc) {
        int j = run_at(b, off + len);
        rc = runs_push(scratch, off + len, b->runs[j].c);
        for (j = j + 1; j < b->n && RABRED_OK == rc; j++) {
            rc = runs_push(scratch, b->runs[j].start, b->runs[j].c);
        }
    }
    if (RABRED_OK == rc) {
        runs_t t = *b;
        *b = *scratch;
        *scratch = t;
    }
    return rc;
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

/* ---- the engine -------------------------------------------------------- */

typedef struct msg_s {
    int src, dst;
    int64_t len;
    double send_post, ready;
    int one_way;
    int recv_buf;       /* receiver's buffer and offset, once matched */
    int64_t recv_off;
    int matched;
    uint64_t seq;       /* tie-break: keeps runs deterministic */
    runs_t data;        /* snapshot of the sent range */
    struct msg_s *next; /* in the receiver's list of unmatched messages */
} msg_t;

typedef struct {
    rabred_plan_t plan;
    runs_t *buf[RABRED_NBUFS]; /* INPUT may alias ACC */
    runs_t own[RABRED_NBUFS];
    int round;                 /* current round, nrounds when done */
    double post;               /* when the current round was posted */
    double done;               /* latest end of the current round's messages */
    int pending;               /* messages of the current round not finished */
    double in_free, out_free;  /* when the ports are free */
    double cpu_free;           /* when the last reduction ends */
    msg_t *unmatched;          /* sends that arrived before their receive */
    int *wanted;               /* per xfer of the round: recv not yet matched */
    int nwanted;
} simrank_t;

typedef struct {
    const rabred_sim_call_t *call;
    const rabred_sim_model_t *model;
    rabred_sim_result_t *res;
    simrank_t *ranks;
    msg_t **heap; /* matched messages by ready time */
    int nheap, capheap;
    uint64_t seq;
    runs_t s1, s2, s3; /* scratch */
    int rc;
} sim_t;

static void fail(sim_t *s, const char *fmt, ...)
{
    if (!s->res->ok) {
        return; /* keep the first problem */
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->res->error, sizeof(s->res->error), fmt, ap);
    va_end(ap);
    s->res->ok = 0;
}

static int heap_less(const msg_t *a, const msg_t *b)
{
    return a->ready < b->ready || (a->ready == b->ready && a->seq < b->seq);
}

static void heap_push(sim_t *s, msg_t *m)
{
    if (s->nheap == s->capheap) {
        int ncap = s->capheap ? 2 * s->capheap : 64;
        msg_t **grown = realloc(s->heap, (size_t)ncap * sizeof(msg_t *));
        if (NULL == grown) {
            s->rc = RABRED_ERR_NOMEM;
            return;
        }
        s->heap = grown;
        s->capheap = ncap;
    }
    int i = s->nheap++;
    while (i > 0 && heap_less(m, s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = m;
}

static msg_t *heap_pop(sim_t *s)
{
    msg_t *top = s->heap[0], *last = s->heap[--s->nheap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= s->nheap) {
            break;
        }
        if (c + 1 < s->nheap && heap_less(s->heap[c + 1], s->heap[c])) {
            c++;
        }
        if (!heap_less(s->heap[c], last)) {
            break;
        }
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->nheap > 0) {
        s->heap[i] = last;
    }
    return top;
}

static const rabred_round_t *cur_round(const simrank_t *r)
{
    return &r->plan.rounds[r->round];
}

/* A send and its receive met: the message may start at `ready`. */
static void match(sim_t *s, msg_t *m, const rabred_xfer_t *recv, double recv_post)
{
    if (recv->len != m->len) {
        fail(s, "rank %d receives %lld elements from rank %d, which sends %lld", m->dst,
             (long long)recv->len, m->src, (long long)m->len);
    }
    m->matched = 1;
    m->recv_buf = recv->buf;
    m->recv_off = recv->off;
    m->ready = m->send_post > recv_post ? m->send_post : recv_post;
    heap_push(s, m);
}

/* Find the receiver's first unmatched receive from m->src in its current round. */
static void try_match_send(sim_t *s, msg_t *m)
{
    simrank_t *d = &s->ranks[m->dst];
    if (d->round < d->plan.nrounds) {
        const rabred_round_t *rd = cur_round(d);
        for (int k = 0; k < rd->nxfer; k++) {
            const rabred_xfer_t *x = &d->plan.xfers[rd->first_xfer + k];
            if (d->wanted[k] && x->peer == m->src) {
                d->wanted[k] = 0;
                match(s, m, x, d->post);
                return;
            }
        }
    }
    msg_t **tail = &d->unmatched; /* keep arrival order per sender */
    while (*tail) {
        tail = &(*tail)->next;
    }
    m->next = NULL;
    *tail = m;
}

/* A range of a rank's storage (INPUT and ACC may be the same storage). */
typedef struct {
    const runs_t *store;
    int64_t off, end;
} span_t;

static int span_cmp(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    if (x->store != y->store) {
        return (uintptr_t)x->store < (uintptr_t)y->store ? -1 : 1;
    }
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Does [off, end) of `store` overlap one of the sorted, disjoint recvs? */
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

/* Valid peers and ranges; no receive overlaps another transfer of the round
 * (MPI forbids touching a receive buffer before the receive completes).
 * Sorting keeps this O(n log n) for a root that receives from every rank. */
static int check_round_ranges(sim_t *s, int rank, const rabred_round_t *rd)
{
    const simrank_t *r = &s->ranks[rank];
    const rabred_xfer_t *xs = &r->plan.xfers[rd->first_xfer];
    span_t few[8];
    span_t *recvs = rd->nxfer <= 8 ? few : malloc((size_t)rd->nxfer * sizeof(span_t));
    int nrecv = 0, ok = NULL != recvs;
    for (int a = 0; a < rd->nxfer && ok; a++) {
        const rabred_xfer_t *x = &xs[a];
        if (x->off < 0 || x->off + x->len > s->call->count || x->peer < 0 ||
            x->peer >= s->call->p || x->peer == rank) {
            fail(s, "rank %d: bad transfer (peer %d, range %lld+%lld)", rank, x->peer,
                 (long long)x->off, (long long)x->len);
            ok = 0;
        } else if (RABRED_XFER_RECV == x->dir) {
            recvs[nrecv++] = (span_t){r->buf[x->buf], x->off, x->off + x->len};
        }
    }
    if (ok) {
        qsort(recvs, (size_t)nrecv, sizeof(span_t), span_cmp);
        for (int i = 1; i < nrecv && ok; i++) {
            ok = !(recvs[i].store == recvs[i - 1].store && recvs[i].off < recvs[i - 1].end);
        }
        for (int a = 0; a < rd->nxfer && ok; a++) {
            span_t q = {r->buf[xs[a].buf], xs[a].off, xs[a].off + xs[a].len};
            ok = RABRED_XFER_RECV == xs[a].dir || !hits_recv(recvs, nrecv, q);
        }
        if (!ok) {
            fail(s, "rank %d round %d: a receive overlaps another transfer", rank,
                 (int)(rd - r->plan.rounds));
        }
    }
    if (NULL == recvs) {
        s->rc = RABRED_ERR_NOMEM;
    }
    if (recvs != few) {
        free(recvs);
    }
    return ok;
}

static void apply_locals(sim_t *s, simrank_t *r, const rabred_round_t *rd, int64_t *reduced)
{
    for (int k = 0; k < rd->nlocal && RABRED_OK == s->rc; k++) {
        const rabred_local_t *l = &r->plan.locals[rd->first_local + k];
        runs_t *src = r->buf[l->src], *dst = r->buf[l->dst];
        if (l->off < 0 || l->off + l->len > s->call->count) {
            fail(s, "local step outside the vector");
            return;
        }
        if (s->call->cost_only) {
            *reduced += RABRED_LOCAL_REDUCE == l->kind ? l->len : 0;
            continue;
        }
        if (RABRED_LOCAL_COPY == l->kind) {
            if (src != dst) {
                s->rc = runs_extract(src, l->off, l->len, &s->s1);
                if (RABRED_OK == s->rc) {
                    s->rc = runs_store(dst, s->call->count, l->off, l->len, &s->s1, &s->s3);
                }
            }
            continue;
        }
        *reduced += l->len;
        s->rc = runs_extract(src, l->off, l->len, &s->s1);
        if (RABRED_OK == s->rc) {
            s->rc = runs_extract(dst, l->off, l->len, &s->s2);
        }
        if (RABRED_OK == s->rc) {
            s->rc = l->src_first ? runs_combine(&s->s1, &s->s2, l->len, &s->s3)
                                 : runs_combine(&s->s2, &s->s1, l->len, &s->s3);
        }
        if (RABRED_OK == s->rc) {
            s->rc = runs_store(dst, s->call->count, l->off, l->len, &s->s3, &s->s1);
        }
    }
}

static int has_recv_from(const rabred_plan_t *plan, const rabred_round_t *rd, int peer)
{
    for (int k = 0; k < rd->nxfer; k++) {
        const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
        if (x->dir == RABRED_XFER_RECV && x->peer == peer) {
            return 1;
        }
    }
    return 0;
}

static void post_send(sim_t *s, int rank, const rabred_round_t *rd, const rabred_xfer_t *x)
{
    simrank_t *r = &s->ranks[rank];
    msg_t *m = calloc(1, sizeof(*m));
    if (NULL == m) {
        s->rc = RABRED_ERR_NOMEM;
        return;
    }
    m->src = rank;
    m->dst = x->peer;
    m->len = x->len;
    m->send_post = r->post;
    m->one_way = !has_recv_from(&r->plan, rd, x->peer);
    m->seq = s->seq++;
    if (!s->call->cost_only) {
        s->rc = runs_extract(r->buf[x->buf], x->off, x->len, &m->data);
    }
    s->res->messages++;
    s->res->elements_sent += x->len;
    try_match_send(s, m);
}

static void post_recv(sim_t *s, int rank, int k, const rabred_xfer_t *x)
{
    simrank_t *r = &s->ranks[rank];
    for (msg_t **pm = &r->unmatched; *pm; pm = &(*pm)->next) {
        if ((*pm)->src == x->peer) {
            msg_t *m = *pm;
            *pm = m->next;
            r->wanted[k] = 0;
            match(s, m, x, r->post);
            return;
        }
    }
}

/* Post rounds of `rank` from time t until one has messages to wait for. */
static void advance(sim_t *s, int rank, double t)
{
    simrank_t *r = &s->ranks[rank];
    while (r->round < r->plan.nrounds && RABRED_OK == s->rc && s->res->ok) {
        const rabred_round_t *rd = cur_round(r);
        r->post = r->done = t;
        r->pending = rd->nxfer;
        if (!check_round_ranges(s, rank, rd)) {
            return;
        }
        for (int k = 0; k < rd->nxfer; k++) {
            r->wanted[k] = r->plan.xfers[rd->first_xfer + k].dir == RABRED_XFER_RECV;
        }
        for (int k = 0; k < rd->nxfer && RABRED_OK == s->rc; k++) {
            const rabred_xfer_t *x = &r->plan.xfers[rd->first_xfer + k];
            if (x->dir == RABRED_XFER_SEND) {
                post_send(s, rank, rd, x);
            } else {
                post_recv(s, rank, k, x);
            }
        }
        if (rd->nxfer > 0) {
            return;
        }
        int64_t reduced = 0;
        t = t > r->cpu_free ? t : r->cpu_free;
        apply_locals(s, r, rd, &reduced);
        t += s->model->gamma * (double)reduced;
        r->cpu_free = t;
        r->round++;
    }
    r->done = t > r->cpu_free ? t : r->cpu_free;
}

/* The messages of a rank's round are all done: reduce, and post the next
 * round before the reduction when the plan allows it
 * (rabred_plan_can_post_early), so transfers overlap the reduction as in the
 * executor; the rank's CPU is busy until cpu_free either way. */
static void round_done(sim_t *s, int rank)
{
    simrank_t *r = &s->ranks[rank];
    double t = r->done > r->cpu_free ? r->done : r->cpu_free;
    int early = rabred_plan_can_post_early(&r->plan, r->round,
                                           r->buf[RABRED_BUF_INPUT] == r->buf[RABRED_BUF_ACC]);
    int64_t reduced = 0;
    apply_locals(s, r, cur_round(r), &reduced);
    r->cpu_free = t + s->model->gamma * (double)reduced;
    r->round++;
    advance(s, rank, early ? t : r->cpu_free);
}

/* One message ends: deliver it, and move on the ranks it completes. */
static void finish_message(sim_t *s, msg_t *m)
{
    simrank_t *src = &s->ranks[m->src], *dst = &s->ranks[m->dst];
    double fa = m->one_way ? s->model->f_alpha : 1.0, fb = m->one_way ? s->model->f_beta : 1.0;
    double start = m->ready;
    start = src->out_free > start ? src->out_free : start;
    start = dst->in_free > start ? dst->in_free : start;
    double end = start + fa * s->model->alpha + fb * s->model->beta * (double)m->len;
    src->out_free = dst->in_free = end;
    if (!s->call->cost_only) {
        s->rc = runs_store(dst->buf[m->recv_buf], s->call->count, m->recv_off, m->len, &m->data,
                           &s->s3);
    }
    int ends[2] = {m->src, m->dst};
    free(m->data.runs);
    free(m);
    for (int i = 0; i < 2 && RABRED_OK == s->rc; i++) {
        simrank_t *r = &s->ranks[ends[i]];
        r->done = end > r->done ? end : r->done;
        if (0 == --r->pending) {
            round_done(s, ends[i]);
        }
    }
}

/* ---- set-up, checks, tear-down ----------------------------------------- */

void rabred_sim_model_default(rabred_sim_model_t *model)
{
    model->alpha = model->beta = model->gamma = 1.0;
    model->f_alpha = model->f_beta = 1.0;
    model->arrival = NULL;
}

static int wants_result(const rabred_sim_call_t *call, int rank)
{
    return call->root < 0 || call->root == rank;
}

static int setup_rank(sim_t *s, int rank)
{
    const rabred_sim_call_t *call = s->call;
    simrank_t *r = &s->ranks[rank];
    rabred_plan_args_t args = {call->p, rank, call->root, call->count, call->commutative,
                               call->seg_count};
    int rc = rabred_plan_build(call->build, &args, &r->plan);
    if (RABRED_OK != rc) {
        return rc;
    }
    int maxx = 1;
    for (int k = 0; k < r->plan.nrounds; k++) {
        maxx = r->plan.rounds[k].nxfer > maxx ? r->plan.rounds[k].nxfer : maxx;
    }
    r->wanted = calloc((size_t)maxx, sizeof(int));
    contrib_t mine = {rank, rank, 1, 1, 1, rank_hash(rank)}, garbage;
    memset(&garbage, 0, sizeof(garbage));
    for (int b = 0; b < RABRED_NBUFS; b++) {
        r->buf[b] = &r->own[b];
        rc = runs_push(&r->own[b], 0, b == RABRED_BUF_INPUT ? mine : garbage);
    }
    if (call->in_place && wants_result(call, rank)) {
        r->buf[RABRED_BUF_INPUT] = r->buf[RABRED_BUF_ACC];
        r->own[RABRED_BUF_ACC].runs[0].c = mine;
    }
    if (r->plan.nrounds > s->res->max_rounds) {
        s->res->max_rounds = r->plan.nrounds;
    }
    return NULL == r->wanted ? RABRED_ERR_NOMEM : rc;
}

static void check_rank(sim_t *s, int rank, uint64_t total_hash)
{
    const rabred_sim_call_t *call = s->call;
    simrank_t *r = &s->ranks[rank];
    if (r->round < r->plan.nrounds) {
        fail(s, "deadlock: rank %d waits in round %d of %d", rank, r->round, r->plan.nrounds);
        return;
    }
    if (NULL != r->unmatched) {
        fail(s, "rank %d never received a message from rank %d", rank, r->unmatched->src);
        return;
    }
    if (call->cost_only) {
        return;
    }
    if (r->buf[RABRED_BUF_INPUT] != r->buf[RABRED_BUF_ACC] &&
        (r->own[RABRED_BUF_INPUT].n != 1 || r->own[RABRED_BUF_INPUT].runs[0].c.n != 1)) {
        fail(s, "rank %d wrote into its input buffer", rank);
        return;
    }
    if (!wants_result(call, rank) || 0 == call->count) {
        return;
    }
    const runs_t *acc = r->buf[RABRED_BUF_ACC];
    for (int i = 0; i < acc->n; i++) {
        contrib_t c = acc->runs[i].c;
        int full = c.valid && c.n == call->p && c.hash == total_hash;
        int in_order = c.ordered && c.lo == 0 && c.hi == call->p - 1;
        if (!full || (!call->commutative && !in_order)) {
            fail(s, "rank %d element %lld: %s (holds %d contributions, ranks %d..%d%s)", rank,
                 (long long)acc->runs[i].start,
                 !c.valid ? "never written or built from garbage"
                 : !full  ? "wrong set of contributions"
                          : "contributions out of rank order",
                 c.n, c.lo, c.hi, c.ordered ? ", ordered" : "");
            return;
        }
    }
}

static void teardown(sim_t *s)
{
    for (int i = 0; i < s->call->p; i++) {
        simrank_t *r = &s->ranks[i];
        while (r->unmatched) {
            msg_t *m = r->unmatched;
            r->unmatched = m->next;
            free(m->data.runs);
            free(m);
        }
        for (int b = 0; b < RABRED_NBUFS; b++) {
            free(r->own[b].runs);
        }
        free(r->wanted);
        rabred_plan_free(&r->plan);
    }
    for (int i = 0; i < s->nheap; i++) {
        free(s->heap[i]->data.runs);
        free(s->heap[i]);
    }
    free(s->heap);
    free(s->ranks);
    free(s->s1.runs);
    free(s->s2.runs);
    free(s->s3.runs);
}

static void run(sim_t *s)
{
    const rabred_sim_call_t *call = s->call;
    const double *arrival = s->model->arrival;
    for (int i = 0; i < call->p && RABRED_OK == s->rc; i++) {
        advance(s, i, arrival ? arrival[i] : 0.0);
    }
    while (s->nheap > 0 && RABRED_OK == s->rc && s->res->ok) {
        finish_message(s, heap_pop(s));
    }
    uint64_t total = 0;
    for (int i = 0; i < call->p; i++) {
        total += rank_hash(i);
    }
    double sum = 0.0;
    for (int i = 0; i < call->p && RABRED_OK == s->rc; i++) {
        check_rank(s, i, total);
        double t = s->ranks[i].done;
        s->res->time = t > s->res->time ? t : s->res->time;
        sum += t - (arrival ? arrival[i] : 0.0);
    }
    s->res->avg_elapsed = call->p > 0 ? sum / call->p : 0.0;
}

int rabred_simulate(const rabred_sim_call_t *call, const rabred_sim_model_t *model,
                    rabred_sim_result_t *res)
{
    memset(res, 0, sizeof(*res));
    res->ok = 1;
    if (call->p < 1 || call->count < 0 || call->root >= call->p || NULL == call->build) {
        return RABRED_ERR_ARG;
    }
    sim_t s;
    memset(&s, 0, sizeof(s));
    s.call = call;
    s.model = model;
    s.res = res;
    s.ranks = calloc((size_t)call->p, sizeof(simrank_t));
    s.rc = NULL == s.ranks ? RABRED_ERR_NOMEM : RABRED_OK;
    for (int i = 0; i < call->p && RABRED_OK == s.rc; i++) {
        s.rc = setup_rank(&s, i);
    }
    if (RABRED_OK == s.rc) {
        run(&s);
    }
    if (NULL != s.ranks) {
        teardown(&s);
    }
    return s.rc;
}
