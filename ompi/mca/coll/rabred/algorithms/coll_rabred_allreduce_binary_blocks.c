/*
 * allreduce: binary blocks (Rabenseifner, ICCS 2004, sec. 2.6, Fig. 2).
 *
 * p is split into blocks of distinct powers of two, largest first, e.g.
 * 13 = 8 + 4 + 1 (rabred_blocks_t).  No rank sits idle as in the fold.
 *
 * Steps
 *  1. copy the input into ACC;
 *  2. reduce up (rabred_phase_blocks_reduce_up): recursive halving inside
 *     every block at once, then the windows move from each block to the
 *     next larger one, smallest first, and are reduced there; block 0 ends
 *     with the whole vector reduced, scattered over its members;
 *  3. allgather by recursive doubling inside block 0;
 *  4. member j of block 0 sends member j of every smaller block that block
 *     member's window; each smaller block then allgathers inside itself.
 *
 * Cost, blocks of sizes s_0 > s_1 > ... (s_0 = p' when p is not a power
 * of two), n bytes: block 0 pays lg s_0 alpha + (1 - 1/s_0) n (beta + gamma)
 * for its halving, then waits for the cascade from the smaller blocks, each
 * step alpha + (n / s_b) beta + (n / s_{b-1}) gamma, then the allgather
 * lg s_0 alpha + (1 - 1/s_0) n beta; block b then needs
 * alpha + n/s_b beta + lg s_b alpha + (1 - 1/s_b) n beta.  For p a power of
 * two it is exactly recursive halving and doubling:
 * 2 lg p alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma.  The cascade is
 * the price: good when consecutive blocks have similar sizes (12 = 8 + 4),
 * poor when a tiny block must feed and be fed by a big one (the paper's
 * delta_expo_max); the decision chooses accordingly.
 *
 * Limitations: none; exact rank order (inside a block the lower member's
 * data goes first, and smaller blocks hold higher ranks).
 *
 * Memory per process: TMP of count elements.
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_price_allreduce.h"
#include "algorithms/rabred_table.h"
#include "plan/rabred_toolkit.h"

/* Step 4: block 0 hands each smaller block's members their windows. */
static void feed_smaller_blocks(rabred_plan_t *plan, const rabred_blocks_t *b, int64_t count)
{
    int64_t off, len;
    rabred_plan_round(plan);
    if (0 != b->block) {
        rabred_blocks_window(b, count, b->block, b->member, &off, &len);
        rabred_plan_recv(plan, b->base[0] + b->member, RABRED_BUF_ACC, off, len);
        return;
    }
    for (int blk = 1; blk < b->count; blk++) {
        if (b->member < b->size[blk]) {
            rabred_blocks_window(b, count, blk, b->member, &off, &len);
            rabred_plan_send(plan, b->base[blk] + b->member, RABRED_BUF_ACC, off, len);
        }
    }
}

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_blocks_t b;
    rabred_team_t team;
    rabred_halving_t h;
    rabred_phase_blocks_start(plan, a, &b, &team, &h);
    if (0 == b.block) {
        rabred_phase_allgather(plan, &team, &h, a->count);
    }
    feed_smaller_blocks(plan, &b, a->count);
    if (0 != b.block) {
        rabred_phase_allgather(plan, &team, &h, a->count);
    }
    return plan->error;
}

/* Bytes of grid window [0, w) of a count-byte vector on block 0's grid of
 * s0 blocks: the window member 0 of a block holds, the largest of its size
 * (the first count % s0 grid blocks are one byte longer). */
static double low_window(int64_t count, int s0, int w)
{
    return (double)rabred_block_offset(count, s0, w);
}

/* A block of s members halving (reduce = 1) or doubling inside itself:
 * member 0's pair moves the largest windows at every step, as in
 * rabenseifner, and a block's step j is block 0's step j (the same grid
 * windows, halved s0/2^(j+1) blocks each), so it is the first lg s of
 * those. */
static double inside_block(const rabred_model_t *m, int64_t count, int s0, int s, int reduce)
{
    double t = 0.0;
    for (int half = s0 / 2; half >= s0 / s; half /= 2) {
        double lo = low_window(count, s0, half);
        t += rabred_price_pair(m, lo, low_window(count, s0, 2 * half) - lo) +
             reduce * lo * m->gamma;
    }
    return t;
}

/* One member of the next smaller block (s_next members) hands member 0's
 * window of s0/s_next grid blocks to k members of a block of s, one
 * one-way piece of s0/s grid blocks after the other; the last of them then
 * reduces its piece.  Empty pieces are no messages: below count = s0 only
 * the first count grid blocks hold a byte. */
static double cascade_step(const rabred_model_t *m, int64_t count, int s0, int s, int s_next)
{
    int64_t span = s0 / s, k = s / s_next, full = (count + span - 1) / span;
    int64_t pieces = count >= s0 || full > k ? k : full;
    return (double)pieces * m->f_alpha * m->alpha +
           low_window(count, s0, (int)(k * span)) * m->f_beta * m->beta +
           low_window(count, s0, (int)span) * m->gamma;
}

/* Block sizes s_0 > s_1 > ... (the bits of p): every block halves inside
 * itself (H_b); the cascade from the smallest block up reaches block b at
 * M_b = max(M_{b+1}, H_b) + its cascade step; block 0 then doubles
 * (T_0 = M_0 + A_0) and member j feeds member j of blocks 1, 2, ... one
 * one-way window after the other, after which block b doubles:
 * T = max_b (T_0 + c_1 + ... + c_b + A_b).  Every quantity is member 0's,
 * the largest of its block: the simulator's time when p' divides n (all
 * members alike).  Otherwise members with smaller windows finish halving
 * earlier, and a cascade sender serves them first: the price is above the
 * simulator's time, by at most what member 0 carries beyond the even
 * count p' floor(n/p'), and below n = p' (empty windows make some steps
 * one-way) by at most lg p' (1 - f_alpha) alpha + n (beta + gamma)
 * (test_prices_allreduce). */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    int64_t count = c->bytes;
    int s0 = rabred_pof2_floor(c->p), s_next = 0;
    double cascade = 0.0;
    if (0 == count) {
        return 0.0;
    }
    for (int s = 1; s <= s0; s *= 2) { /* from the smallest block up */
        if (c->p & s) {
            double halving = inside_block(m, count, s0, s, 1);
            cascade = 0 == s_next ? halving
                                  : (cascade > halving ? cascade : halving) +
                                        cascade_step(m, count, s0, s, s_next);
            s_next = s;
        }
    }
    double t = cascade + inside_block(m, count, s0, s0, 0), fed = t;
    for (int s = s0 / 2; s >= 1; s /= 2) { /* block 0 feeds the others, largest first */
        if (c->p & s) {
            fed += rabred_price_one_way(m, low_window(count, s0, s0 / s));
            double done = fed + inside_block(m, count, s0, s, 0);
            t = done > t ? done : t;
        }
    }
    return t;
}

const rabred_alg_t rabred_alg_allreduce_binary_blocks = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 6,
    .name = "binary_blocks",
    .build = build,
    .description = "binary blocks: p split into power-of-two blocks that halve inside themselves "
                   "and cascade their windows to the largest block, which allgathers and feeds the "
                   "others (Rabenseifner 2004 sec. 2.6); long vectors, p with blocks of similar size",
    .formula = "p = 2^k: as rabenseifner; else block 0 halving + cascade + allgather + feeding "
               "(see coll_rabred_allreduce_binary_blocks.c)",
    .tuned_ids = {0},
    .price = price,
};
