/*
 * reduce: binary blocks (Rabenseifner, ICCS 2004, sec. 2.6).
 *
 * Steps
 *  1. copy the input into ACC (a temporary except at the root);
 *  2. reduce up as for allreduce (rabred_phase_blocks_reduce_up): block 0,
 *     the largest, ends with the whole vector reduced and scattered;
 *  3. root inside block 0: binomial gather inside block 0 to the root.
 *     Root outside block 0 (sec. 2.6): rank 0 sends its reduced window to
 *     the root, and the root plays rank 0's part in the gather.
 *
 * Cost: the reduce-up of the allreduce version, then
 *   lg s_0 alpha_uni + (1 - 1/s_0) n beta_uni for the gather, plus
 *   alpha + n/s_0 beta when the root is outside block 0.  p a power of two:
 *   exactly Rabenseifner's reduce.
 *
 * Limitations: none; exact rank order.
 *
 * Memory per process: TMP of count elements; ACC of count elements except
 * at the root.
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_price_reduce.h"
#include "algorithms/rabred_table.h"
#include "plan/rabred_toolkit.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_blocks_t b, at_root;
    rabred_team_t team;
    rabred_halving_t h;
    rabred_phase_blocks_start(plan, a, &b, &team, &h);
    rabred_blocks_init(&at_root, a->p, a->root);
    int root_member = at_root.block == 0 ? at_root.member : 0;
    int outside = at_root.block != 0;
    if (outside && (a->rank == a->root || 0 == a->rank)) { /* root stands in for rank 0 */
        int64_t off, len;
        rabred_blocks_window(&b, a->count, 0, 0, &off, &len);
        rabred_plan_round(plan);
        if (0 == a->rank) {
            rabred_plan_send(plan, a->root, RABRED_BUF_ACC, off, len);
            return plan->error;
        }
        rabred_plan_recv(plan, 0, RABRED_BUF_ACC, off, len);
        team = (rabred_team_t){NULL, 0, b.size[0], 0, b.size[0], 0, a->root};
        rabred_halving_init(&h, team.size, 0);
    } else if (outside && 0 == b.block) {
        team.subst_member = 0;
        team.subst_rank = a->root;
    }
    if (0 == b.block || a->rank == a->root) {
        rabred_phase_gather(plan, &team, &h, a->count, root_member);
    }
    return plan->error;
}

/* ---- price ------------------------------------------------------------ */

/* Positions: member i of block b holds the grid window of position
 * bit_reverse(i) (block b's windows: G / 2^lg[b] grid blocks each).  The
 * cascade's level b carries block b+1's windows to block b: the sender at
 * position Q sends k = 2^(lg[b] - lg[b+1]) pieces, one round, in order to
 * positions Q k .. Q k + k-1.  Its one outgoing port takes them first come
 * first served: by ready time (both ends posted), then in send order.
 * Every window clear of grid block e is uniform, so all the pieces of a
 * group are ready together, except in the one group around e's block
 * (`special`), where they are ready at up to lg k + 1 different times, in
 * runs: e's position and, for each step, the positions that leave e's
 * chain there (rabred_halving_price_t).  That group's runs are kept,
 * sorted; at most lg G + number of blocks of them in all. */
typedef struct {
    double base, x; /* its t-th position's piece is in at base + (t+1) x */
} run_t;

typedef struct {
    const rabred_model_t *m;
    rabred_halving_price_t h;
    int nblocks, lg[31];
    int64_t special[31]; /* block b's position of grid block e; -1: e = 0 */
    int run_base[31];    /* block b's special runs: runs[run_base[b] + idx] */
    run_t runs[64];
    double special_end[31];  /* its sender's round ends */
    double special_done[31]; /* its sender leaves (rabred_price_released) */
    int64_t cached[31];      /* member_ready's last position per block */
    double cached_ready[31];
    int root_block;
    int64_t root_pos;
} blocks_price_t;

static int64_t grid_first(const blocks_price_t *bp, int b, int64_t q)
{
    return q << (bp->h.levels - bp->lg[b]);
}

static double window_len(const blocks_price_t *bp, int b, int64_t q)
{
    return rabred_grid_len(&bp->h.grid, grid_first(bp, b, q),
                           (int64_t)1 << (bp->h.levels - bp->lg[b]));
}

/* When block b's member at position q is done with its own halving. */
static double halving_done(const blocks_price_t *bp, int b, int64_t q)
{
    return rabred_halving_time(&bp->h, grid_first(bp, b, q), bp->lg[b]);
}

static int is_special(const blocks_price_t *bp, int b, int64_t Q)
{
    return bp->special[b] >= 0 && bp->special[b] >> (bp->lg[b] - bp->lg[b + 1]) == Q;
}

/* The run of the special group of level b that position q belongs to,
 * idx = the step q leaves e's chain at minus the group's first step (k:
 * e's position itself), and its first position. */
static int special_run(const blocks_price_t *bp, int b, int64_t q, int64_t *start)
{
    int lg = bp->lg[b], kappa = lg - bp->lg[b + 1];
    int64_t pe = bp->special[b];
    int d = lg - rabred_price_bits((unsigned)(q ^ pe)); /* d = lg: q is e's position */
    int below = lg - d - 1;
    *start = d == lg ? pe : ((pe >> below) ^ 1) << below;
    return d - (lg - kappa);
}

static double member_ready(blocks_price_t *bp, int b, int64_t q);

/* When block b's member at position q has the piece from block b+1 in
 * (receive posted when its own halving is done), or that time alone when
 * its window is empty (no message). */
static double arrival(blocks_price_t *bp, int b, int64_t q)
{
    int kappa = bp->lg[b] - bp->lg[b + 1];
    double len = window_len(bp, b, q), own = halving_done(bp, b, q);
    if (0 == len) {
        return own;
    }
    if (is_special(bp, b, q >> kappa)) {
        int64_t start;
        const run_t *r = &bp->runs[bp->run_base[b] + special_run(bp, b, q, &start)];
        return r->base + (double)(q - start + 1) * r->x;
    }
    double sent = member_ready(bp, b + 1, q >> kappa);
    return (sent > own ? sent : own) +
           (double)((q & (((int64_t)1 << kappa) - 1)) + 1) * rabred_price_one_way(bp->m, len);
}

/* When block b's member at position q has reduced all it gets before it
 * sends up (or gathers): its halving, then the piece from block b+1. */
static double member_ready(blocks_price_t *bp, int b, int64_t q)
{
    if (bp->cached[b] == q) {
        return bp->cached_ready[b];
    }
    double t = b + 1 == bp->nblocks ? halving_done(bp, b, q)
                                    : arrival(bp, b, q) + window_len(bp, b, q) * bp->m->gamma;
    bp->cached[b] = q;
    bp->cached_ready[b] = t;
    return t;
}

/* When the sender at position Q of block b+1 is done with its round of
 * pieces to block b (it posts them when ready: member_ready): they match
 * at once and leave back to back.  `leaving`: the round is its last, and
 * it leaves when its send buffer holds the rest (rabred_price_released);
 * else when the last piece is in. */
static double sender_done(blocks_price_t *bp, int b, int64_t Q, int leaving)
{
    if (is_special(bp, b, Q)) {
        return leaving ? bp->special_done[b] : bp->special_end[b];
    }
    int kappa = bp->lg[b] - bp->lg[b + 1];
    int64_t q = Q << kappa;
    double sent = member_ready(bp, b + 1, Q), own = halving_done(bp, b, q);
    double len = window_len(bp, b, q);
    if (0 == len) {
        return sent;
    }
    double pieces = (double)((int64_t)1 << kappa) * rabred_price_one_way(bp->m, len);
    double matched = sent > own ? sent : own;
    return leaving ? rabred_price_released(bp->m, matched, matched + pieces) : matched + pieces;
}

/* The same halving time as halving_done, summed step by step.  The
 * special group's order rests on equal ready times: the simulator's are
 * equal to the bit when two positions' steps cost the same one by one
 * (each adds the same terms in the same order), and so are these; the
 * table's sums may differ in the last bit, which would reorder the runs. */
static double halving_done_stepwise(const blocks_price_t *bp, int b, int64_t q)
{
    int64_t first = grid_first(bp, b, q), G = (int64_t)1 << bp->h.levels;
    double t = 0.0;
    for (int k = 0; k < bp->lg[b]; k++) {
        int64_t half = G >> (k + 1), lo_first = first / (2 * half) * (2 * half);
        double lo = rabred_grid_len(&bp->h.grid, lo_first, half);
        double hi = rabred_grid_len(&bp->h.grid, lo_first + half, half);
        t += rabred_halving_term(bp->m, lo, hi, first - lo_first < half ? lo : hi);
    }
    return t;
}

/* Level b's special group: its runs' ready times and pieces, served in
 * (ready, first position) order: the order of (ready, send order) for
 * every piece, as positions in a run are ready together. */
static void special_init(blocks_price_t *bp, int b, int next_run)
{
    int lg = bp->lg[b], kappa = lg - bp->lg[b + 1], order[32];
    int64_t start[32];
    double ready[32], len[32];
    double sent = member_ready(bp, b + 1, bp->special[b] >> kappa), end = 0.0, done = sent;
    bp->run_base[b] = next_run;
    for (int idx = 0; idx <= kappa; idx++) {
        int64_t q = bp->special[b] ^ (idx < kappa ? (int64_t)1 << (kappa - 1 - idx) : 0);
        special_run(bp, b, q, &start[idx]);
        double own = halving_done_stepwise(bp, b, start[idx]);
        ready[idx] = sent > own ? sent : own;
        len[idx] = window_len(bp, b, start[idx]);
        int j = idx;
        for (; j > 0 && (ready[order[j - 1]] > ready[idx] ||
                         (ready[order[j - 1]] == ready[idx] && start[order[j - 1]] > start[idx]));
             j--) {
            order[j] = order[j - 1];
        }
        order[j] = idx;
    }
    for (int j = 0; j <= kappa; j++) {
        int idx = order[j];
        run_t *r = &bp->runs[next_run + idx];
        r->x = rabred_price_one_way(bp->m, len[idx]);
        r->base = ready[idx] > end ? ready[idx] : end;
        int64_t size = idx < kappa ? (int64_t)1 << (kappa - 1 - idx) : 1;
        if (len[idx] > 0) {
            end = r->base + (double)size * r->x;
            double left = rabred_price_released(bp->m, ready[idx], end);
            done = left > done ? left : done;
        }
    }
    bp->special_end[b] = end > sent ? end : sent;
    bp->special_done[b] = done;
}

static void blocks_price_init(blocks_price_t *bp, const rabred_price_call_t *c,
                              const rabred_model_t *m)
{
    rabred_blocks_t at_root;
    rabred_blocks_init(&at_root, c->p, c->root);
    bp->m = m;
    bp->nblocks = at_root.count;
    for (int b = 0; b < at_root.count; b++) {
        bp->lg[b] = rabred_log2_floor(at_root.size[b]);
    }
    rabred_halving_price_init(&bp->h, m, c->bytes, bp->lg[0]);
    for (int b = 0; b < bp->nblocks; b++) {
        int64_t e = bp->h.grid.e;
        bp->special[b] = e > 0 ? e >> (bp->lg[0] - bp->lg[b]) : -1;
        bp->cached[b] = -1;
    }
    for (int b = bp->nblocks - 2, next = 0; b >= 0; b--) {
        if (bp->special[b] >= 0) {
            special_init(bp, b, next);
            next += bp->lg[b] - bp->lg[b + 1] + 1;
        }
    }
    bp->root_block = at_root.block;
    bp->root_pos = rabred_bit_reverse(at_root.member, bp->lg[at_root.block]);
}

/* The gather in block 0: a member's state before it (rabred_gather_price)
 * is its halving and the piece from block 1, whose reduction the first
 * receive does not wait for.  A root outside block 0 plays position 0
 * once rank 0's window is in. */
typedef struct {
    blocks_price_t *bp;
    int outside;
    double root_in;    /* an outside root: when rank 0's window is in */
    double root_ready; /* and when its own reductions are done */
} gather_state_t;

static void gather_state(const rabred_gather_price_t *g, int pos, double *done, double *cpu)
{
    const gather_state_t *s = g->ctx;
    blocks_price_t *bp = s->bp;
    if (s->outside && 0 == pos) {
        *done = s->root_in;
        *cpu = s->root_ready;
    } else if (1 == bp->nblocks) {
        *cpu = halving_done(bp, 0, pos);
        *done = *cpu - window_len(bp, 0, pos) * g->m->gamma;
    } else {
        *cpu = member_ready(bp, 0, pos);
        *done = arrival(bp, 0, pos);
    }
}

/* Every block halves inside itself (rabred_halving_price_t), then the
 * cascade from the smallest block up: each member posts its pieces when
 * its own reductions are done, and leaves when its last piece is out
 * (sender_done); block 0 gathers to the root (rabred_gather_price).  A root
 * outside block 0 posts its receive from rank 0 when its own pieces are
 * out; rank 0 sends once reduced and leaves.  The sum of every rank's
 * finish time over p.  Exact for every count, the uneven blocks and empty
 * windows of count < p' included (see "Positions" above), for any root and
 * either kind of op (the plans are the same); O(p).  One race is left to
 * rounding, here as in the simulator: a sender ready at the very moment a
 * receiver of the special group is, by a coincidence of the model's
 * numbers rather than of the plan (none in test_prices_reduce). */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    blocks_price_t bp;
    if (0 == c->bytes || c->p < 2) {
        return 0.0;
    }
    blocks_price_init(&bp, c, m);
    double sum = 0.0;
    for (int b = 1; b < bp.nblocks; b++) {
        for (int64_t q = 0; q < (int64_t)1 << bp.lg[b]; q++) {
            sum += b == bp.root_block && q == bp.root_pos ? 0.0 : sender_done(&bp, b - 1, q, 1);
        }
    }
    gather_state_t state = {&bp, 0 != bp.root_block, 0.0, 0.0};
    if (state.outside) {
        double posted = sender_done(&bp, bp.root_block - 1, bp.root_pos, 0);
        double sent = member_ready(&bp, 0, 0);
        double matched = sent > posted ? sent : posted;
        state.root_in = matched + rabred_price_one_way(m, window_len(&bp, 0, 0));
        state.root_ready = member_ready(&bp, bp.root_block, bp.root_pos);
        sum += rabred_price_released(m, matched, state.root_in); /* rank 0 */
    }
    rabred_gather_price_t g = {m, &bp.h.grid, state.outside ? 0 : (int)bp.root_pos, gather_state,
                               &state, 0.0};
    double root_done = rabred_gather_price(&g, 0, bp.lg[0]);
    return (sum + g.sum + root_done) / c->p;
}

const rabred_alg_t rabred_alg_reduce_binary_blocks = {
    .coll = RABRED_COLL_REDUCE,
    .id = 6,
    .name = "binary_blocks",
    .build = build,
    .description = "binary blocks: blocks halve inside themselves and cascade to the largest, "
                   "which gathers to the root; a root outside it stands in for rank 0 (Rabenseifner 2004 "
                   "sec. 2.6)",
    .formula = "p = 2^k: as rabenseifner; else reduce-up + gather in block 0 (see "
               "coll_rabred_reduce_binary_blocks.c)",
    .tuned_ids = {0},
    .price = price,
};
