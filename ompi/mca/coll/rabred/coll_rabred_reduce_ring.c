/*
 * reduce: ring (Rabenseifner, ICCS 2004, sec. 2.7).
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
#include "rabred_phases.h"
#include "rabred_table.h"
#include "rabred_toolkit.h"

int rabred_build_reduce_ring(const rabred_plan_args_t *a, rabred_plan_t *plan)
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
