/*
 * rabred-plan --svg: the data flow of one call as an SVG picture, in the
 * style of Rabenseifner's (2004) Fig. 1 (see rabred_plan_svg.h).  Derived from the
 * plans alone: no MPI, no simulator.
 */
#include "rabred_plan_svg.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/rabred_toolkit.h"

#define PROG "rabred-plan"

/* ---- data flow: what the picture shows --------------------------------- */

/* The picture is derived from the plans alone, in three passes:
 *  1. rows: every round gets a global step (row).  "Round k of every rank
 *     in row k" would misalign algorithms whose ranks start or stop at
 *     different times (fold pairs, linear, trees), so instead: a round
 *     comes after the rank's previous round, and the two ends of a message
 *     share a row (in the simulator's model a message holds both rounds
 *     open, so they overlap in time).  Longest-path relaxation finds the
 *     earliest such rows; plans that the simulator accepts always converge.
 *  2. forward: each buffer is tracked per "atom" (the finest ranges any
 *     plan uses; with p <= 32 a contribution set is a bit mask), replaying
 *     messages and local steps row by row;
 *  3. backward: liveness of every atom (will it still be sent, reduced or
 *     returned as the result?), so a cell shows what a rank really holds,
 *     as in Fig. 1, and not stale halves it has already handed on. */

enum { CHG_NONE = 0, CHG_STORED = 1, CHG_REDUCED = 2 };
enum { CELL_ACTIVE, CELL_WAITING, CELL_IDLE, CELL_DONE };
#define MAX_DRAW_CELLS ((size_t)60 * 1000 * 1000) /* atoms x rows x ranks x buffers */

typedef struct {
    int src, dst, row;
    int src_round, dst_round;
    const rabred_xfer_t *send, *recv;
    int reduced; /* the receiver reduces the data in the same round */
} fmsg_t;

typedef struct {
    int p, nrows, natoms, wants_all;
    int root;
    int64_t count;
    const rabred_plan_t *plans;
    int64_t *bound;      /* natoms + 1 atom boundaries */
    fmsg_t *msgs;        /* sorted by row once rows are known */
    int nmsgs;
    int *row_msg;        /* messages of row k: row_msg[k] .. row_msg[k + 1] - 1 */
    int *first;          /* first[r]: rank r's round 0 in row_of */
    int *row_of;         /* row of every round */
    int *act;            /* act[row * p + r]: r's round in that row, or -1 */
    uint64_t *held;      /* contributions after each row, per buffer and atom */
    uint8_t *chg, *live; /* CHG_* and liveness, same layout as held */
    uint64_t *state;     /* working buffers, [(r * NBUFS + b) * natoms + a] */
    uint8_t *lstate;
} flow_t;

/* Per step, rank and buffer: [((row * p + r) * NBUFS + b) * natoms + atom];
 * one rank's buffers are contiguous, as in the working state. */
static size_t cell_at(const flow_t *f, int row, int r, int b)
{
    return (((size_t)row * (size_t)f->p + (size_t)r) * RABRED_NBUFS + (size_t)b) *
           (size_t)f->natoms;
}

static size_t buf_at(const flow_t *f, int r, int b)
{
    return ((size_t)r * RABRED_NBUFS + (size_t)b) * (size_t)f->natoms;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* First atom of the range starting at off (off is always a boundary). */
static int atom_of(const flow_t *f, int64_t off)
{
    int lo = 0, hi = f->natoms;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (f->bound[mid] < off) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static int collect_atoms(flow_t *f)
{
    size_t n = 2;
    for (int r = 0; r < f->p; r++) {
        n += 2 * (size_t)(f->plans[r].nxfers + f->plans[r].nlocals);
    }
    f->bound = malloc(n * sizeof(int64_t));
    if (NULL == f->bound) {
        return -1;
    }
    size_t k = 0;
    f->bound[k++] = 0;
    f->bound[k++] = f->count;
    for (int r = 0; r < f->p; r++) {
        const rabred_plan_t *pl = &f->plans[r];
        for (int i = 0; i < pl->nxfers; i++) {
            f->bound[k++] = pl->xfers[i].off;
            f->bound[k++] = pl->xfers[i].off + pl->xfers[i].len;
        }
        for (int i = 0; i < pl->nlocals; i++) {
            f->bound[k++] = pl->locals[i].off;
            f->bound[k++] = pl->locals[i].off + pl->locals[i].len;
        }
    }
    qsort(f->bound, k, sizeof(int64_t), cmp_i64);
    size_t u = 1;
    for (size_t i = 1; i < k; i++) {
        if (f->bound[i] != f->bound[u - 1]) {
            f->bound[u++] = f->bound[i];
        }
    }
    f->natoms = (int)u - 1;
    return 0;
}

/* One transfer, keyed so that a send and its receive sort next to each
 * other: the n-th send from s to d meets the n-th receive at d from s. */
typedef struct {
    int src, dst, seq, dir, rank, round, idx;
} xrec_t;

static int cmp_xrec(const void *a, const void *b)
{
    const xrec_t *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    return x->dir - y->dir;
}

static xrec_t *list_xfers(const flow_t *f, int *n)
{
    int total = 0, k = 0;
    for (int r = 0; r < f->p; r++) {
        total += f->plans[r].nxfers;
    }
    xrec_t *recs = malloc((size_t)(total ? total : 1) * sizeof(xrec_t));
    int *seq = calloc((size_t)f->p * (size_t)f->p * 2, sizeof(int));
    for (int r = 0; recs && seq && r < f->p; r++) {
        const rabred_plan_t *pl = &f->plans[r];
        for (int j = 0; j < pl->nrounds; j++) {
            const rabred_round_t *rd = &pl->rounds[j];
            for (int i = rd->first_xfer; i < rd->first_xfer + rd->nxfer; i++) {
                const rabred_xfer_t *x = &pl->xfers[i];
                int send = RABRED_XFER_SEND == x->dir, peer = x->peer;
                int s = send ? r : peer, d = send ? peer : r;
                int *c = &seq[((size_t)s * (size_t)f->p + (size_t)d) * 2 + (size_t)x->dir];
                recs[k++] = (xrec_t){s, d, (*c)++, x->dir, r, j, i};
            }
        }
    }
    free(seq);
    if (NULL == seq) {
        free(recs);
        return NULL;
    }
    *n = k;
    return recs;
}

/* Pairs sends with receives; messages the simulator would reject (no
 * partner) are left out of the picture, the verdict line reports them. */
static int pair_messages(flow_t *f)
{
    int n = 0;
    xrec_t *recs = list_xfers(f, &n);
    f->msgs = malloc((size_t)(n ? n : 1) * sizeof(fmsg_t));
    if (NULL == recs || NULL == f->msgs) {
        free(recs);
        return -1;
    }
    qsort(recs, (size_t)n, sizeof(xrec_t), cmp_xrec);
    for (int i = 0; i + 1 < n; i++) {
        const xrec_t *rv = &recs[i], *sd = &recs[i + 1];
        if (rv->src != sd->src || rv->dst != sd->dst || rv->seq != sd->seq ||
            RABRED_XFER_RECV != rv->dir || RABRED_XFER_SEND != sd->dir) {
            continue;
        }
        fmsg_t *m = &f->msgs[f->nmsgs++];
        memset(m, 0, sizeof(*m));
        m->src = sd->rank;
        m->dst = rv->rank;
        m->src_round = sd->round;
        m->dst_round = rv->round;
        m->send = &f->plans[sd->rank].xfers[sd->idx];
        m->recv = &f->plans[rv->rank].xfers[rv->idx];
        i++;
    }
    free(recs);
    return 0;
}

/* Pass 1 (see above): longest-path relaxation. */
static int assign_rows(flow_t *f)
{
    int total = 0;
    f->first = malloc((size_t)f->p * sizeof(int));
    for (int r = 0; f->first && r < f->p; r++) {
        f->first[r] = total;
        total += f->plans[r].nrounds;
    }
    f->row_of = malloc((size_t)(total ? total : 1) * sizeof(int));
    if (NULL == f->first || NULL == f->row_of) {
        return -1;
    }
    for (int r = 0; r < f->p; r++) {
        for (int k = 0; k < f->plans[r].nrounds; k++) {
            f->row_of[f->first[r] + k] = k;
        }
    }
    for (int iter = 0; iter <= 2 * total + 2; iter++) {
        int changed = 0;
        for (int r = 0; r < f->p; r++) {
            int *row = &f->row_of[f->first[r]];
            for (int k = 1; k < f->plans[r].nrounds; k++) {
                changed |= row[k] <= row[k - 1];
                row[k] = row[k] <= row[k - 1] ? row[k - 1] + 1 : row[k];
            }
        }
        for (int i = 0; i < f->nmsgs; i++) {
            int *a = &f->row_of[f->first[f->msgs[i].src] + f->msgs[i].src_round];
            int *b = &f->row_of[f->first[f->msgs[i].dst] + f->msgs[i].dst_round];
            changed |= *a != *b;
            *a = *b = *a > *b ? *a : *b;
            f->msgs[i].row = *a;
        }
        if (!changed) {
            for (int i = 0; i < total; i++) {
                f->nrows = f->row_of[i] + 1 > f->nrows ? f->row_of[i] + 1 : f->nrows;
            }
            return 0;
        }
    }
    return 1; /* a message would have to happen before itself */
}

static int cmp_msg_row(const void *a, const void *b)
{
    const fmsg_t *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* Groups the messages by row, so a step's messages are one slice. */
static int index_rows(flow_t *f)
{
    qsort(f->msgs, (size_t)f->nmsgs, sizeof(fmsg_t), cmp_msg_row);
    f->row_msg = calloc((size_t)f->nrows + 2, sizeof(int));
    if (NULL == f->row_msg) {
        return -1;
    }
    for (int i = 0; i < f->nmsgs; i++) {
        f->row_msg[f->msgs[i].row + 1]++;
    }
    for (int k = 0; k <= f->nrows; k++) {
        f->row_msg[k + 1] += f->row_msg[k];
    }
    return 0;
}

static int alloc_flow_tables(flow_t *f)
{
    size_t cells = (size_t)f->nrows * (size_t)f->p * RABRED_NBUFS * (size_t)f->natoms;
    size_t work = (size_t)f->p * RABRED_NBUFS * (size_t)f->natoms;
    if (cells > MAX_DRAW_CELLS) {
        fprintf(stderr, PROG ": the plans use too many distinct ranges to draw (%d ranges x "
                        "%d steps); try a smaller --count or a larger --segment\n",
                f->natoms, f->nrows);
        return -1;
    }
    f->act = malloc((size_t)(f->nrows ? f->nrows : 1) * (size_t)f->p * sizeof(int));
    f->held = calloc(cells ? cells : 1, sizeof(uint64_t));
    f->chg = calloc(cells ? cells : 1, 1);
    f->live = calloc(cells ? cells : 1, 1);
    f->state = calloc(work, sizeof(uint64_t));
    f->lstate = calloc(work, 1);
    if (!f->act || !f->held || !f->chg || !f->live || !f->state || !f->lstate) {
        fprintf(stderr, PROG ": out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < (size_t)f->nrows * (size_t)f->p; i++) {
        f->act[i] = -1;
    }
    for (int r = 0; r < f->p; r++) {
        for (int k = 0; k < f->plans[r].nrounds; k++) {
            f->act[(size_t)f->row_of[f->first[r] + k] * (size_t)f->p + (size_t)r] = k;
        }
    }
    return 0;
}

static int act_round(const flow_t *f, int row, int r)
{
    return f->act[(size_t)row * (size_t)f->p + (size_t)r];
}

/* Forward replay of one rank's local steps in `row`. */
static void forward_locals(flow_t *f, int row, int r)
{
    const rabred_plan_t *pl = &f->plans[r];
    const rabred_round_t *rd = &pl->rounds[act_round(f, row, r)];
    for (int i = rd->first_local; i < rd->first_local + rd->nlocal; i++) {
        const rabred_local_t *l = &pl->locals[i];
        uint64_t *src = &f->state[buf_at(f, r, l->src)], *dst = &f->state[buf_at(f, r, l->dst)];
        int reduce = RABRED_LOCAL_REDUCE == l->kind;
        for (int a = atom_of(f, l->off); a < atom_of(f, l->off + l->len); a++) {
            dst[a] = reduce ? dst[a] | src[a] : src[a];
            f->chg[cell_at(f, row, r, l->dst) + (size_t)a] = reduce ? CHG_REDUCED : CHG_STORED;
        }
    }
}

/* Does the receiver reduce what message m brought, in the same round? */
static int reduces_message(const flow_t *f, const fmsg_t *m)
{
    const rabred_plan_t *pl = &f->plans[m->dst];
    const rabred_round_t *rd = &pl->rounds[m->dst_round];
    for (int i = rd->first_local; i < rd->first_local + rd->nlocal; i++) {
        const rabred_local_t *l = &pl->locals[i];
        if (RABRED_LOCAL_REDUCE == l->kind && l->src == m->recv->buf &&
            l->off < m->recv->off + m->recv->len && m->recv->off < l->off + l->len) {
            return 1;
        }
    }
    return 0;
}

/* Pass 2.  Within a row no receive overlaps another transfer of its round
 * (the simulator checks this), so messages can be delivered one by one. */
static void flow_forward(flow_t *f)
{
    for (int r = 0; r < f->p; r++) {
        uint64_t *in = &f->state[buf_at(f, r, RABRED_BUF_INPUT)];
        for (int a = 0; a < f->natoms; a++) {
            in[a] = (uint64_t)1 << r;
        }
    }
    for (int row = 0; row < f->nrows; row++) {
        for (int i = f->row_msg[row]; i < f->row_msg[row + 1]; i++) {
            fmsg_t *m = &f->msgs[i];
            const uint64_t *src = &f->state[buf_at(f, m->src, m->send->buf)];
            uint64_t *dst = &f->state[buf_at(f, m->dst, m->recv->buf)];
            for (int a = atom_of(f, m->recv->off); a < atom_of(f, m->recv->off + m->recv->len);
                 a++) {
                dst[a] = src[a];
                f->chg[cell_at(f, row, m->dst, m->recv->buf) + (size_t)a] = CHG_STORED;
            }
            m->reduced = reduces_message(f, m);
        }
        for (int r = 0; r < f->p; r++) {
            if (act_round(f, row, r) >= 0) {
                forward_locals(f, row, r);
            }
            memcpy(&f->held[cell_at(f, row, r, 0)], &f->state[buf_at(f, r, 0)],
                   RABRED_NBUFS * (size_t)f->natoms * sizeof(uint64_t));
        }
    }
}

/* Backward through one rank's local steps: a copy's source is needed where
 * its destination is; a reduction needs both operands where its result is
 * needed (the destination stays needed). */
static void backward_locals(flow_t *f, int row, int r)
{
    const rabred_plan_t *pl = &f->plans[r];
    const rabred_round_t *rd = &pl->rounds[act_round(f, row, r)];
    for (int i = rd->first_local + rd->nlocal - 1; i >= rd->first_local; i--) {
        const rabred_local_t *l = &pl->locals[i];
        uint8_t *src = &f->lstate[buf_at(f, r, l->src)], *dst = &f->lstate[buf_at(f, r, l->dst)];
        if (src == dst) {
            continue;
        }
        for (int a = atom_of(f, l->off); a < atom_of(f, l->off + l->len); a++) {
            src[a] |= dst[a];
            dst[a] = RABRED_LOCAL_COPY == l->kind ? 0 : dst[a];
        }
    }
}

/* Pass 3: the result buffers are needed at the end; walk back. */
static void flow_backward(flow_t *f)
{
    for (int r = 0; r < f->p; r++) {
        if (f->wants_all || r == f->root) {
            memset(&f->lstate[buf_at(f, r, RABRED_BUF_ACC)], 1, (size_t)f->natoms);
        }
    }
    for (int row = f->nrows - 1; row >= 0; row--) {
        for (int r = 0; r < f->p; r++) {
            memcpy(&f->live[cell_at(f, row, r, 0)], &f->lstate[buf_at(f, r, 0)],
                   RABRED_NBUFS * (size_t)f->natoms);
            if (act_round(f, row, r) >= 0) {
                backward_locals(f, row, r);
            }
        }
        for (int i = f->row_msg[row]; i < f->row_msg[row + 1]; i++) {
            const fmsg_t *m = &f->msgs[i];
            uint8_t *src = &f->lstate[buf_at(f, m->src, m->send->buf)];
            uint8_t *dst = &f->lstate[buf_at(f, m->dst, m->recv->buf)];
            for (int a = atom_of(f, m->recv->off); a < atom_of(f, m->recv->off + m->recv->len);
                 a++) {
                src[a] |= dst[a];
                dst[a] = 0;
            }
        }
    }
}

static void flow_free(flow_t *f)
{
    free(f->bound);
    free(f->msgs);
    free(f->row_msg);
    free(f->first);
    free(f->row_of);
    free(f->act);
    free(f->held);
    free(f->chg);
    free(f->live);
    free(f->state);
    free(f->lstate);
}

/* Send and receive ranges must coincide for the per-atom replay; every
 * builder does this (rabred_plan.h: "a range is the same element range in
 * every buffer") except into receive slots (allreduce direct), which are
 * not drawn. */
static int check_ranges_match(const flow_t *f)
{
    for (int i = 0; i < f->nmsgs; i++) {
        const fmsg_t *m = &f->msgs[i];
        if (m->send->off != m->recv->off || m->send->len != m->recv->len) {
            fprintf(stderr, PROG ": rank %d sends [%lld, +%lld) into [%lld, +%lld) of rank %d: "
                            "moved ranges cannot be drawn\n", m->src, (long long)m->send->off,
                    (long long)m->send->len, (long long)m->recv->off, (long long)m->recv->len,
                    m->dst);
            return -1;
        }
    }
    return 0;
}

static int flow_build(const rabred_plan_svg_t *svg, flow_t *f)
{
    memset(f, 0, sizeof(*f));
    f->p = svg->p;
    f->count = svg->count;
    f->root = svg->root;
    f->wants_all = RABRED_COLL_ALLREDUCE == svg->coll;
    f->plans = svg->plans;
    if (collect_atoms(f) || pair_messages(f)) {
        fprintf(stderr, PROG ": cannot analyse the plans (out of memory?)\n");
        return -1;
    }
    int rc = assign_rows(f);
    if (rc) {
        fprintf(stderr, PROG ": %s\n", rc < 0 ? "out of memory"
                                              : "the rounds cannot be ordered into steps "
                                                "(a message would precede itself)");
        return -1;
    }
    if (check_ranges_match(f) || index_rows(f) || alloc_flow_tables(f)) {
        return -1;
    }
    flow_forward(f);
    flow_backward(f);
    return 0;
}

/* ---- the picture -------------------------------------------------------- */

#define SVG_LEFT 150.0   /* room for the step labels */
#define SVG_BAND 54.0    /* height of a row's message band */
#define SVG_QUIET 12.0   /* band of a row without messages */
#define SVG_LINE 13.0
#define SVG_BAR 9.0
#define SVG_MAX_LINES 5
#define SVG_CHAR 6.1     /* average width of a 10-11px sans character */

/* Colours: orange = reduced, blue = received or copied, grey = unchanged. */
static const char *const chg_fill[3] = {"#d4d4d4", "#9ecae1", "#fdae6b"};
static const char *const chg_ink[3] = {"#252525", "#08519c", "#a63603"};
static const char *const arrow_ink[2] = {"#3182bd", "#e6550d"}; /* stored, reduced */

typedef struct {
    int a0, a1; /* atoms */
    uint64_t mask;
    int chg;
} run_t;

typedef struct {
    double colw, width, height, grid_top, grid_bottom, legend_top;
    double *band_top, *cell_top, *cell_h; /* per row */
    int *folded;    /* per rank: idle between two active rows */
    int *proxy_for; /* per rank: the folded-out rank it holds data for, or -1 */
    int title_lines;
} layout_t;

static int cell_status(const flow_t *f, int row, int r)
{
    int n = f->plans[r].nrounds;
    if (act_round(f, row, r) >= 0) {
        return CELL_ACTIVE;
    }
    if (0 == n || row > f->row_of[f->first[r] + n - 1]) {
        return CELL_DONE;
    }
    return row < f->row_of[f->first[r]] ? CELL_WAITING : CELL_IDLE;
}

/* The rank r last sent data to before `row` (who holds its data), or -1. */
static int handoff(const flow_t *f, int r, int row)
{
    int best = -1, peer = -1;
    for (int i = 0; i < f->nmsgs; i++) {
        if (f->msgs[i].src == r && f->msgs[i].row < row && f->msgs[i].row >= best) {
            best = f->msgs[i].row;
            peer = f->msgs[i].dst;
        }
    }
    return peer;
}

/* Next run of live atoms of buffer b with the same contributions and
 * change, from atom a on; 0 when there is none. */
static int next_run(const flow_t *f, int row, int r, int b, int a, run_t *run)
{
    size_t at = cell_at(f, row, r, b);
    const uint64_t *mask = &f->held[at];
    const uint8_t *live = &f->live[at], *chg = &f->chg[at];
    while (a < f->natoms && !live[a]) {
        a++;
    }
    if (a >= f->natoms) {
        return 0;
    }
    run->a0 = a;
    run->mask = mask[a];
    run->chg = chg[a];
    while (a < f->natoms && live[a] && mask[a] == run->mask && chg[a] == run->chg) {
        a++;
    }
    run->a1 = a;
    return 1;
}

/* Runs of live data in all of a rank's buffers: what it still holds. */
static int cell_runs(const flow_t *f, int row, int r)
{
    run_t run;
    int n = 0;
    for (int b = 0; b < RABRED_NBUFS; b++) {
        for (int a = 0; next_run(f, row, r, b, a, &run); a = run.a1) {
            n++;
        }
    }
    return n;
}

/* Text lines of a cell: one per run, or two saying why it is empty. */
static int cell_lines(const flow_t *f, int row, int r)
{
    int n = cell_runs(f, row, r);
    return n > SVG_MAX_LINES ? SVG_MAX_LINES : (n ? n : 2);
}

/* Idle or finished, holding nothing that is still needed. */
static int is_out(const flow_t *f, int row, int r)
{
    int status = cell_status(f, row, r);
    return (CELL_IDLE == status || CELL_DONE == status) && 0 == cell_runs(f, row, r);
}

/* Whether any rank reduces or copies locally in `row`. */
static void row_local_kinds(const flow_t *f, int row, int *reduce, int *copy)
{
    *reduce = *copy = 0;
    for (int r = 0; r < f->p; r++) {
        int k = act_round(f, row, r);
        const rabred_round_t *rd = k >= 0 ? &f->plans[r].rounds[k] : NULL;
        for (int i = 0; rd && i < rd->nlocal; i++) {
            *reduce |= RABRED_LOCAL_REDUCE == f->plans[r].locals[rd->first_local + i].kind;
            *copy |= RABRED_LOCAL_COPY == f->plans[r].locals[rd->first_local + i].kind;
        }
    }
}

/* "A-D" (en dash) when the atoms can be lettered like the paper's blocks,
 * else the element range. */
static void format_blocks(const flow_t *f, int a0, int a1, char *out, size_t size)
{
    if (f->natoms > 26) {
        snprintf(out, size, "[%lld,%lld)", (long long)f->bound[a0], (long long)f->bound[a1]);
    } else if (a1 - a0 == 1) {
        snprintf(out, size, "%c", 'A' + a0);
    } else {
        snprintf(out, size, "%c&#8211;%c", 'A' + a0, 'A' + a1 - 1);
    }
}

/* "0-3,8" for the contributing ranks (out needs 16 bytes per rank). */
static void format_mask(uint64_t mask, int p, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int r = 0; r < p && used + 24 < size; r++) {
        if (!(mask >> r & 1) || (r > 0 && (mask >> (r - 1) & 1))) {
            continue; /* not a contributor, or inside a run already printed */
        }
        int e = r;
        while (e + 1 < p && (mask >> (e + 1) & 1)) {
            e++;
        }
        used += (size_t)snprintf(out + used, size - used, "%s%d", used ? "," : "", r);
        if (e > r) {
            used += (size_t)snprintf(out + used, size - used, "%s%d", e == r + 1 ? "," : "&#8211;", e);
        }
    }
    if (0 == mask) {
        snprintf(out, size, "?");
    }
}

/* "n/4" for a message or block length, as the papers write it. */
static void format_fraction(int64_t len, int64_t count, char *out, size_t size)
{
    int64_t k = (count + len / 2) / len;
    /* blocks differ by an element, so a window of them is n/k give or take
     * a few elements: 2% of n is close enough for a label */
    if (k >= 1 && llabs(k * len - count) <= (k > count / 50 ? k : count / 50)) {
        snprintf(out, size, k == 1 ? "n" : "n/%lld", (long long)k);
    } else {
        snprintf(out, size, "%.2gn", (double)len / (double)count);
    }
}

static double col_x(const layout_t *L, int r)
{
    return SVG_LEFT + L->colw * r;
}

static int row_messages(const flow_t *f, int row)
{
    return f->row_msg[row + 1] - f->row_msg[row];
}

/* Writes n bytes of s escaped for XML. */
static void xml_write(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(s[i], out);
        }
    }
}

/* Word-wraps text into <text> lines from y on when out is set; returns the
 * number of lines. */
static int wrap_text(FILE *out, const char *text, int width, double x, double y,
                     const char *style)
{
    int lines = 0;
    for (const char *s = text; *s; lines++) {
        int take = rabred_plan_line_take(s, width);
        if (out) {
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y + 14.0 * lines, style);
            xml_write(out, s, (size_t)take);
            fputs("</text>\n", out);
        }
        for (s += take; ' ' == *s; s++) {
        }
    }
    return lines;
}

static void layout_free(layout_t *L)
{
    free(L->band_top);
    free(L->cell_top);
    free(L->cell_h);
    free(L->folded);
    free(L->proxy_for);
}

/* Which ranks fold out and who is their proxy.  Seed 000's fold removes
 * r = p - p' ranks, which hand their data to a partner (the proxy) and sit
 * idle while the p' others reduce.  So: in a step where someone reduces and
 * every rank has started, a rank that is idle or finished and holds nothing
 * is folded out when exactly r ranks are; its proxy is the rank it last
 * sent to.  That catches every fold to p' (and binary blocks' small blocks
 * waiting for the large one) without calling the senders of a linear
 * algorithm or the leaves of a tree on p' ranks folded out. */
static void find_folds(const flow_t *f, layout_t *L)
{
    int rem = f->p - rabred_pof2_floor(f->p);
    for (int r = 0; r < f->p; r++) {
        L->proxy_for[r] = -1;
    }
    for (int row = 0; row < f->nrows && rem > 0; row++) {
        int reduce = 0, copy = 0, out = 0, waiting = 0;
        row_local_kinds(f, row, &reduce, &copy);
        for (int r = 0; r < f->p; r++) {
            out += is_out(f, row, r);
            waiting |= CELL_WAITING == cell_status(f, row, r);
        }
        for (int r = 0; r < f->p && reduce && !waiting && out == rem; r++) {
            int proxy = is_out(f, row, r) ? handoff(f, r, row) : -1;
            if (proxy >= 0 && !L->folded[r]) {
                L->folded[r] = 1;
                L->proxy_for[proxy] = L->proxy_for[proxy] < 0 ? r : L->proxy_for[proxy];
            }
        }
    }
}

static int layout_init(const flow_t *f, const rabred_plan_svg_t *svg, layout_t *L)
{
    memset(L, 0, sizeof(*L));
    size_t rows = (size_t)(f->nrows ? f->nrows : 1);
    L->colw = f->p <= 8 ? 124.0 : f->p <= 16 ? 100.0 : 86.0;
    L->width = SVG_LEFT + L->colw * f->p + 20.0;
    L->width = L->width < 900.0 ? 900.0 : L->width;
    L->band_top = malloc(rows * sizeof(double));
    L->cell_top = malloc(rows * sizeof(double));
    L->cell_h = malloc(rows * sizeof(double));
    L->folded = calloc((size_t)f->p, sizeof(int));
    L->proxy_for = malloc((size_t)f->p * sizeof(int));
    if (!L->band_top || !L->cell_top || !L->cell_h || !L->folded || !L->proxy_for) {
        return -1;
    }
    find_folds(f, L);
    L->title_lines = wrap_text(NULL, svg->description, (int)((L->width - 40) / SVG_CHAR),
                               0, 0, "");
    double y = 44.0 + 14.0 * L->title_lines + 2 * 14.0 + 44.0;
    L->grid_top = y;
    for (int row = 0; row < f->nrows; row++) {
        int lines = 1;
        for (int r = 0; r < f->p; r++) {
            int n = cell_lines(f, row, r);
            lines = n > lines ? n : lines;
        }
        L->band_top[row] = y;
        y += row_messages(f, row) ? SVG_BAND : SVG_QUIET;
        L->cell_top[row] = y;
        L->cell_h[row] = 9.0 + SVG_BAR + 4.0 + SVG_LINE * (lines > 2 ? lines : 2);
        y += L->cell_h[row];
    }
    L->grid_bottom = y;
    L->legend_top = y + 30.0;
    L->height = L->legend_top + 92.0;
    return 0;
}

static void svg_title(FILE *out, const flow_t *f, const rabred_plan_svg_t *svg,
                      const layout_t *L)
{
    char blocks[64];
    fprintf(out, "<text x=\"20\" y=\"28\" class=\"title\">");
    xml_write(out, svg->title, strlen(svg->title));
    fputs("</text>\n", out);
    wrap_text(out, svg->description, (int)((L->width - 40) / SVG_CHAR), 20, 48,
              "class=\"note\"");
    format_blocks(f, 0, f->natoms, blocks, sizeof(blocks));
    double y = 48.0 + 14.0 * L->title_lines;
    fprintf(out, "<text x=\"20\" y=\"%.1f\" class=\"note\">The vector of n = %lld elements "
                 "falls into %d block%s %s: the finest ranges the plans use. Rank i starts "
                 "with its own vector %s<tspan class=\"sub\" dy=\"3\">i</tspan>.</text>\n",
            y, (long long)f->count, f->natoms, f->natoms > 1 ? "s" : "",
            f->natoms <= 26 ? blocks : "(shown as element ranges)",
            f->natoms <= 26 ? blocks : "[0,n)");
    fprintf(out, "<text x=\"20\" y=\"%.1f\" class=\"note\">Rows are steps (rounds aligned by "
                 "their messages); a cell shows what the rank's result buffer holds after the "
                 "step and still needs; arrows are the step's messages.</text>\n", y + 14.0);
}

static void svg_headers(FILE *out, const flow_t *f, const rabred_plan_svg_t *svg,
                        const layout_t *L)
{
    for (int r = 0; r < f->p; r++) {
        double x = col_x(L, r);
        char sub[48] = "";
        if (L->folded[r]) {
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                         "class=\"foldcol\"/>\n", x + 1, L->grid_top - 38, L->colw - 2,
                    L->grid_bottom - L->grid_top + 44);
            snprintf(sub, sizeof(sub), "folded out");
        } else if (L->proxy_for[r] >= 0) {
            snprintf(sub, sizeof(sub), "proxy of P%d", L->proxy_for[r]);
        }
        if (RABRED_COLL_REDUCE == svg->coll && r == svg->root) {
            snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), "%sroot", sub[0] ? ", " : "");
        }
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"rank\">P%d</text>\n", x + L->colw / 2,
                L->grid_top - 20, r);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"rsub\">%s</text>\n", x + L->colw / 2,
                L->grid_top - 7, sub);
    }
}

/* What a step does, in two short lines: the message pattern (pairs that
 * exchange or one-way messages, with their distances) and the data volume
 * and local work. */
static void describe_row(const flow_t *f, int row, char *pattern, char *work, size_t size)
{
    int n = 0, paired = 0, nd = 0, dist[3], reduce = 0, copy = 0;
    int64_t lo = INT64_MAX, hi = 0;
    for (int i = f->row_msg[row]; i < f->row_msg[row + 1]; i++) {
        const fmsg_t *m = &f->msgs[i];
        int d = abs(m->dst - m->src), seen = 0;
        for (int j = i + 1; j < f->row_msg[row + 1]; j++) {
            paired += f->msgs[j].src == m->dst && f->msgs[j].dst == m->src;
        }
        for (int k = 0; k < nd && k < 3; k++) {
            seen |= dist[k] == d;
        }
        if (!seen && nd++ < 3) {
            dist[nd - 1] = d;
        }
        lo = m->send->len < lo ? m->send->len : lo;
        hi = m->send->len > hi ? m->send->len : hi;
        n++;
    }
    row_local_kinds(f, row, &reduce, &copy);
    char d[48] = "", a[24] = "", b[24] = "";
    if (nd > 3) {
        snprintf(d, sizeof(d), ", d varies");
    } else if (nd > 0) {
        snprintf(d, sizeof(d), nd == 1 ? ", d=%d" : nd == 2 ? ", d=%d,%d" : ", d=%d,%d,%d",
                 dist[0], nd > 1 ? dist[1] : 0, nd > 2 ? dist[2] : 0);
    }
    if (0 == n) {
        snprintf(pattern, size, reduce || copy ? "local work only" : "empty round");
    } else if (2 * paired == n) {
        snprintf(pattern, size, "%d pair%s exchange%s", paired, paired > 1 ? "s" : "", d);
    } else {
        snprintf(pattern, size, "%d message%s%s", n, n > 1 ? "s" : "", d);
    }
    const char *act = reduce ? "reduce" : copy ? "copy" : "";
    if (0 == n) {
        snprintf(work, size, "%s", reduce || copy ? act : "nothing");
        return;
    }
    format_fraction(lo, f->count, a, sizeof(a));
    format_fraction(hi, f->count, b, sizeof(b));
    int same = 0 == strcmp(a, b); /* blocks differ by an element at most */
    snprintf(work, size, "%s%s%s%s%s", a, same ? " each" : "..", same ? "" : b,
             reduce || copy ? ", " : "", act);
}

static void svg_row_label(FILE *out, const flow_t *f, const layout_t *L, int row)
{
    char pattern[96], work[96];
    double y = L->cell_top[row] + 12.0;
    describe_row(f, row, pattern, work, sizeof(pattern));
    fprintf(out, "<text x=\"14\" y=\"%.1f\" class=\"step\">step %d</text>\n", y, row + 1);
    fprintf(out, "<text x=\"14\" y=\"%.1f\" class=\"note\">%s</text>\n", y + 13, pattern);
    fprintf(out, "<text x=\"14\" y=\"%.1f\" class=\"note\">%s</text>\n", y + 26, work);
}

/* The bar: the whole vector, coloured where the rank holds data. */
static void svg_bar(FILE *out, const flow_t *f, int row, int r, double x, double y, double w)
{
    size_t at = cell_at(f, row, r, RABRED_BUF_ACC);
    const uint8_t *live = &f->live[at], *chg = &f->chg[at];
    double scale = w / (double)f->count;
    for (int a = 0; a < f->natoms;) {
        int cls = live[a] ? chg[a] : -1, b = a;
        while (b < f->natoms && (live[b] ? chg[b] : -1) == cls) {
            b++;
        }
        if (cls >= 0) {
            fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                         "fill=\"%s\"/>\n", x + scale * (double)f->bound[a], y,
                    scale * (double)(f->bound[b] - f->bound[a]), SVG_BAR, chg_fill[cls]);
        }
        a = b;
    }
    for (int a = 1; a < f->natoms && f->natoms <= 64; a++) { /* block ticks */
        fprintf(out, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" class=\"tick\"/>\n",
                x + scale * (double)f->bound[a], y, x + scale * (double)f->bound[a], y + SVG_BAR);
    }
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"bar\"/>\n",
            x, y, w, SVG_BAR);
}

/* The text lines: one per run, "A-D" with the contributors as subscript;
 * the result buffer first, then data still needed in the input or the
 * temporary buffer (a rank that sends straight from its input, say). */
static int svg_runs(FILE *out, const flow_t *f, int row, int r, double x, double y)
{
    static const int order[RABRED_NBUFS] = {RABRED_BUF_ACC, RABRED_BUF_INPUT, RABRED_BUF_TMP,
                                            RABRED_BUF_TMP2};
    static const char *const prefix[RABRED_NBUFS] = {"in: ", "", "tmp: ", "tmp2: "}; /* by buffer */
    uint64_t all = f->p >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << f->p) - 1);
    int n = 0, total = cell_runs(f, row, r);
    run_t run;
    for (int k = 0; k < RABRED_NBUFS; k++) {
        int b = order[k];
        for (int a = 0; next_run(f, row, r, b, a, &run); a = run.a1, n++) {
            char blocks[64], who[512];
            if (n == SVG_MAX_LINES - 1 && total > SVG_MAX_LINES) {
                fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"cell dim\">&#8230; %d more</text>\n",
                        x, y + SVG_LINE * n, total - n);
                return n + 1;
            }
            format_blocks(f, run.a0, run.a1, blocks, sizeof(blocks));
            format_mask(run.mask, f->p, who, sizeof(who));
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"cell%s\" fill=\"%s\"><tspan "
                         "class=\"buf\">%s</tspan>%s<tspan class=\"sub\" dy=\"3\">%s</tspan></text>\n",
                    x, y + SVG_LINE * n, run.mask == all ? " full" : "", chg_ink[run.chg],
                    prefix[b], blocks, who);
        }
    }
    return n;
}

static void svg_cell(FILE *out, const flow_t *f, const layout_t *L, int row, int r)
{
    static const char *const box[] = {"active", "waiting", "idle", "done"};
    int status = cell_status(f, row, r);
    double x = col_x(L, r) + 6, w = L->colw - 12, y = L->cell_top[row];
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"3\" "
                 "class=\"%s\"/>\n", x, y, w, L->cell_h[row], box[status]);
    svg_bar(out, f, row, r, x + 5, y + 5, w - 10);
    if (svg_runs(out, f, row, r, x + 6, y + 5 + SVG_BAR + 13)) {
        return;
    }
    int peer = handoff(f, r, row + 1);
    char line2[32] = "";
    const char *line1 = CELL_WAITING == status ? "waiting" : CELL_IDLE == status ? "idle"
                      : CELL_DONE == status ? "done" : "keeps nothing";
    if (peer >= 0 && CELL_WAITING != status) {
        snprintf(line2, sizeof(line2), "data at P%d", peer);
    }
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"cell dim\">%s</text>\n", x + 6,
            y + 5 + SVG_BAR + 13, line1);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"cell dim\">%s</text>\n", x + 6,
            y + 5 + SVG_BAR + 13 + SVG_LINE, line2);
}

/* Where message i leaves its sender (or reaches its receiver) inside the
 * column: several messages of one rank in a step fan out side by side. */
static double arrow_end_x(const flow_t *f, const layout_t *L, int i, int at_src)
{
    const fmsg_t *m = &f->msgs[i];
    int rank = at_src ? m->src : m->dst, slot = 0, n = 0;
    for (int j = f->row_msg[m->row]; j < f->row_msg[m->row + 1]; j++) {
        const fmsg_t *o = &f->msgs[j];
        if ((at_src ? o->src : o->dst) == rank) {
            slot += j < i;
            n++;
        }
    }
    double gap = L->colw * 0.6 / n;
    gap = gap > 16.0 ? 16.0 : gap;
    return col_x(L, rank) + L->colw / 2 + (slot - (n - 1) / 2.0) * gap;
}

typedef struct {
    double x, y, w;
} lblbox_t;

/* A point along the arrow for its label where it does not cover a label
 * already placed (the two labels of an exchange, or long arrows crossing):
 * the first free of a few positions, a third of the way down if none is. */
static void place_label(lblbox_t *placed, int n, double xs, double y0, double xe, double y1,
                        double w, double *x, double *y)
{
    static const double ts[] = {0.3, 0.5, 0.16, 0.68, 0.4, 0.23, 0.58};
    for (size_t k = 0; k < sizeof(ts) / sizeof(ts[0]); k++) {
        int clash = 0;
        *x = xs + ts[k] * (xe - xs);
        *y = y0 + ts[k] * (y1 - y0);
        for (int i = 0; i < n && !clash; i++) {
            clash = fabs(placed[i].x - *x) < (placed[i].w + w) / 2 + 14 &&
                    fabs(placed[i].y - *y) < 14;
        }
        if (!clash) {
            return;
        }
    }
    *x = xs + 0.3 * (xe - xs);
    *y = y0 + 0.3 * (y1 - y0);
}

static void svg_label(FILE *out, const fmsg_t *m, double x, double y, double w,
                      const char *blocks)
{
    fprintf(out, "<g><title>P%d sends %s [%lld, %lld) to P%d</title>"
                 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"13\" rx=\"2\" "
                 "class=\"lblbg\"/><text x=\"%.1f\" y=\"%.1f\" class=\"lbl\" "
                 "fill=\"%s\">%s</text></g>\n",
            m->src, rabred_plan_buf_name(m->send->buf), (long long)m->send->off,
            (long long)(m->send->off + m->send->len), m->dst, x - w / 2, y - 6.5, w, x, y + 3.5,
            arrow_ink[m->reduced], blocks);
}

/* Arrows from the sender's cell of the previous step to the receiver's
 * cell of this one, then their labels on top (the blocks sent). */
static void svg_arrows(FILE *out, const flow_t *f, const layout_t *L, int row)
{
    double y0 = L->band_top[row] + 3, y1 = L->cell_top[row] - 2;
    lblbox_t *placed = malloc((size_t)(f->nmsgs ? f->nmsgs : 1) * sizeof(lblbox_t));
    int nplaced = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = f->row_msg[row]; i < f->row_msg[row + 1]; i++) {
            const fmsg_t *m = &f->msgs[i];
            double xs = arrow_end_x(f, L, i, 1), xe = arrow_end_x(f, L, i, 0), x, y;
            if (0 == pass) {
                fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                             "class=\"msg\" stroke=\"%s\" marker-end=\"url(#head%d)\"/>\n",
                        xs, y0, xe, y1, arrow_ink[m->reduced], m->reduced);
                continue;
            }
            char blocks[64];
            int a0 = atom_of(f, m->send->off), a1 = atom_of(f, m->send->off + m->send->len);
            format_blocks(f, a0, a1, blocks, sizeof(blocks));
            double w = SVG_CHAR * (double)(strstr(blocks, "&#") ? 3 : strlen(blocks)) + 6;
            if (NULL == placed) {
                place_label(NULL, 0, xs, y0, xe, y1, w, &x, &y);
            } else {
                place_label(placed, nplaced, xs, y0, xe, y1, w, &x, &y);
                placed[nplaced++] = (lblbox_t){x, y, w};
            }
            svg_label(out, m, x, y, w, blocks);
        }
    }
    free(placed);
}

static void svg_legend(FILE *out, const layout_t *L)
{
    double y = L->legend_top, x = 20;
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"step\">legend</text>\n", x, y);
    for (int k = 0; k < 2; k++) {
        double lx = x + 70 + 300 * k;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"msg\" "
                     "stroke=\"%s\" marker-end=\"url(#head%d)\"/>\n", lx, y - 4, lx + 34, y - 4,
                arrow_ink[k], k);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"note\">message (label: blocks "
                     "sent); receiver %s</text>\n", lx + 42, y, k ? "reduces it" : "stores it");
    }
    static const char *const what[3] = {"held, unchanged", "received or copied this step",
                                        "reduced this step"};
    for (int k = 0; k < 3; k++) {
        double lx = x + 70 + 200 * k;
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"%.1f\" fill=\"%s\" "
                     "stroke=\"#777\" stroke-width=\"0.6\"/><text x=\"%.1f\" y=\"%.1f\" "
                     "class=\"note\" fill=\"%s\">%s</text>\n", lx, y + 12, SVG_BAR, chg_fill[k],
                lx + 30, y + 20, chg_ink[k], what[k]);
    }
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"14\" rx=\"3\" class=\"idle\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\" class=\"note\">idle in this step (a folded-out "
                 "rank's data is at its proxy)</text>\n", x + 70, y + 30, x + 100, y + 41);
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"14\" rx=\"3\" class=\"done\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\" class=\"note\">finished (or not started)</text>\n",
            x + 470, y + 30, x + 500, y + 41);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"cell\">A&#8211;D<tspan class=\"sub\" "
                 "dy=\"3\">0&#8211;3</tspan></text>\n", x + 70, y + 62);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"note\">= blocks A to D combined over "
                 "ranks 0 to 3, <tspan font-weight=\"bold\">bold</tspan> when over all ranks "
                 "(final values); in: / tmp: / tmp2: = still needed in the input / a temporary buffer."
                 "</text>\n", x + 114, y + 62);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"note\">The bar in a cell is the whole "
                 "vector, coloured where the result buffer holds data still needed; dashed "
                 "columns are folded-out ranks.</text>\n", x + 70, y + 77);
}

static void svg_style(FILE *out)
{
    fputs("<style>\n"
          "text { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; }\n"
          ".title { font-size: 16px; font-weight: bold; fill: #111; }\n"
          ".note { font-size: 10.5px; fill: #444; }\n"
          ".step { font-size: 12px; font-weight: bold; fill: #222; }\n"
          ".rank { font-size: 13px; font-weight: bold; text-anchor: middle; fill: #111; }\n"
          ".rsub { font-size: 9.5px; text-anchor: middle; fill: #666; }\n"
          ".cell { font-size: 11px; }\n .full { font-weight: bold; }\n"
          ".dim { fill: #888; font-style: italic; }\n .sub { font-size: 8px; }\n"
          ".buf { fill: #777; font-style: italic; font-weight: normal; }\n"
          ".lbl { font-size: 10px; text-anchor: middle; font-weight: bold; }\n"
          ".lblbg { fill: #fff; fill-opacity: 0.85; stroke: none; }\n"
          ".msg { stroke-width: 1.4; }\n"
          ".bar { fill: none; stroke: #777; stroke-width: 0.6; }\n"
          ".tick { stroke: #bbb; stroke-width: 0.5; }\n"
          ".active { fill: #fff; stroke: #888; stroke-width: 0.8; }\n"
          ".idle { fill: #e4e4e4; stroke: #999; stroke-width: 0.8; stroke-dasharray: 4 3; }\n"
          ".done, .waiting { fill: #f3f3f3; stroke: #d0d0d0; stroke-width: 0.8; }\n"
          ".foldcol { fill: none; stroke: #aaa; stroke-width: 1; stroke-dasharray: 6 4; }\n"
          "</style>\n", out);
    fputs("<defs>\n", out);
    for (int k = 0; k < 2; k++) {
        fprintf(out, "<marker id=\"head%d\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
                     "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
                     "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"%s\"/></marker>\n", k, arrow_ink[k]);
    }
    fputs("</defs>\n", out);
}

static int write_svg(const rabred_plan_svg_t *svg, const flow_t *f, const layout_t *L)
{
    FILE *out = fopen(svg->path, "w");
    if (NULL == out) {
        fprintf(stderr, PROG ": cannot write %s: %s\n", svg->path, strerror(errno));
        return -1;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                 "viewBox=\"0 0 %.0f %.0f\">\n", L->width, L->height, L->width, L->height);
    svg_style(out);
    fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
    svg_title(out, f, svg, L);
    for (int row = 1; row < f->nrows; row += 2) { /* zebra rows, under everything */
        fprintf(out, "<rect x=\"0\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                     "fill=\"#f5f6f8\"/>\n", L->band_top[row], L->width,
                L->cell_top[row] + L->cell_h[row] - L->band_top[row]);
    }
    for (int row = 0; row < f->nrows; row++) {
        svg_row_label(out, f, L, row);
    }
    svg_headers(out, f, svg, L);
    for (int row = 0; row < f->nrows; row++) {
        for (int r = 0; r < f->p; r++) {
            svg_cell(out, f, L, row, r);
        }
        svg_arrows(out, f, L, row);
    }
    svg_legend(out, L);
    fputs("</svg>\n", out);
    if (ferror(out) | fclose(out)) {
        fprintf(stderr, PROG ": writing %s failed\n", svg->path);
        return -1;
    }
    return 0;
}

int rabred_plan_svg_draw(const rabred_plan_svg_t *svg)
{
    flow_t f;
    layout_t L;
    memset(&L, 0, sizeof(L));
    int rc = flow_build(svg, &f);
    if (0 == rc && layout_init(&f, svg, &L)) {
        fprintf(stderr, PROG ": out of memory\n");
        rc = -1;
    }
    if (0 == rc) {
        rc = write_svg(svg, &f, &L);
    }
    layout_free(&L);
    flow_free(&f);
    return rc;
}
