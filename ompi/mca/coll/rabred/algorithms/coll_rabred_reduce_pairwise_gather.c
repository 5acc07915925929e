/*
 * reduce: pairwise_gather (Rabenseifner, ICCS 2004, sec. 2.7, "ring").
 *
 * Steps
 *  1. copy the input into ACC (a temporary except at the root);
 *  2. reduce-scatter by pairwise exchange over p blocks, as for allreduce;
 *  3. every rank sends its reduced block straight to the root, which
 *     receives them all in one round into place.
 *
 * Cost: (p-1) (alpha + alpha_uni) + (1 - 1/p) n (beta + beta_uni)
 *       + (1 - 1/p) n gamma; the root's receiving port serialises step 3.
 *
 * Limitations: commutative ops only.
 *
 * Memory per process: ACC (non-root) and TMP of count elements each.
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"
#include "plan/rabred_toolkit.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    int p = a->p;
    rabred_phase_copy_in(plan, a->count);
    rabred_phase_pairwise_reduce_scatter(plan, p, a->rank, a->count);
    rabred_plan_round(plan);
    if (a->rank != a->root) {
        rabred_plan_send(plan, a->root, RABRED_BUF_ACC, rabred_block_offset(a->count, p, a->rank),
                         rabred_block_length(a->count, p, a->rank));
        return plan->error;
    }
    for (int k = 0; k < p; k++) {
        if (k != a->root) {
            rabred_plan_recv(plan, k, RABRED_BUF_ACC, rabred_block_offset(a->count, p, k),
                             rabred_block_length(a->count, p, k));
        }
    }
    return plan->error;
}

/* The reduce-scatter, then the root's in-port takes the p-1 blocks one
 * after another.  Priced by the average elapsed time (rabred_price.h): the
 * k-th sender is done after k one-way blocks, the root after p-1, so on
 * average (p-1)(p+2)/(2p) of them. */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    int p = c->p;
    double n = rabred_price_block_bytes(c) * p;
    if (0 == c->bytes) {
        return 0; /* the plans drop empty messages */
    }
    return rabred_price_pairwise_reduce_scatter(m, p, n) +
           (double)(p - 1) * (p + 2) / (2.0 * p) * rabred_price_one_way(m, n / p);
}

const rabred_alg_t rabred_alg_reduce_pairwise_gather = {
    .coll = RABRED_COLL_REDUCE,
    .id = 3,
    .name = "pairwise_gather",
    .alias = "ring", /* also accepted, in MCA values and rules files */
    .build = build,
    .restrictions = RABRED_NEEDS_COMMUTATIVE,
    .description = "pairwise gather: pairwise-exchange reduce-scatter, then every rank sends its "
                   "block straight to the root (Rabenseifner 2004 sec. 2.7); long vectors, small p",
    .formula = "2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma",
    .tuned_ids = {0},
    .price = price,
};
