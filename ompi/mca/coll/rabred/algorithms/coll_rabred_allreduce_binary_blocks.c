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

const rabred_alg_t rabred_alg_allreduce_binary_blocks = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 6,
    .name = "binary_blocks",
    .build = build,
    .description = "binary blocks: p split into power-of-two blocks that halve inside themselves "
                   "and cascade their windows to the largest block, which allgathers and feeds the "
                   "others (seed 000 sec. 2.6); long vectors, p with blocks of similar size",
    .formula = "p = 2^k: as rabenseifner; else block 0 halving + cascade + allgather + feeding "
               "(see coll_rabred_allreduce_binary_blocks.c)",
    .tuned_ids = {0},
};
