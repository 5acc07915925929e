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

const rabred_alg_t rabred_alg_reduce_binary_blocks = {
    .coll = RABRED_COLL_REDUCE,
    .id = 6,
    .name = "binary_blocks",
    .build = build,
    .description = "binary blocks: blocks halve inside themselves and cascade to the largest, "
                   "which gathers to the root; a root outside it stands in for rank 0 (seed 000 "
                   "sec. 2.6)",
    .formula = "p = 2^k: as rabenseifner; else reduce-up + gather in block 0 (see "
               "coll_rabred_reduce_binary_blocks.c)",
    .tuned_ids = {0},
};
