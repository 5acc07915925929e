/*
 * allreduce: binary tree reduce + binary tree broadcast (Rabenseifner,
 * ICCS 2004, sec. 2.3).
 *
 * Steps: reduce to rank 0 over the in-order binary tree of
 * coll_rabred_reduce_binary_tree.c (rank order kept), then broadcast down
 * the same tree: each node receives the result from its parent and sends
 * it to its first, then its second child.
 *
 * Cost: reduce T(p) as in the reduce file, plus broadcast B with B(1) = 0,
 *   B = max(c + B(a), 2c + B(b)) for subtrees of a and b nodes, where
 *   c = alpha_uni + n beta_uni; roughly 2 lg p (2c + g) in all.
 *
 * Limitations: none; exact rank order; the result is computed once (at
 * rank 0) and copied, so every rank has the same bits.
 *
 * Memory per process: TMP of count elements at inner nodes.
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"
#include "plan/rabred_toolkit.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_bintree_t node;
    rabred_bintree_init(&node, a->p, a->rank);
    rabred_phase_tree_reduce(plan, a->p, a->rank, 0, a->count);
    rabred_plan_round(plan);
    if (node.parent >= 0) {
        rabred_plan_recv(plan, node.parent, RABRED_BUF_ACC, 0, a->count);
        rabred_plan_round(plan);
    }
    for (int c = 0; c < 2; c++) {
        if (node.child[c] >= 0) {
            rabred_plan_send(plan, node.child[c], RABRED_BUF_ACC, 0, a->count);
        }
    }
    return plan->error;
}

const rabred_alg_t rabred_alg_allreduce_binary_tree = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 5,
    .name = "binary_tree",
    .build = build,
    .description = "binary tree: reduce to rank 0 over an in-order binary tree (rank order kept), "
                   "then broadcast down the same tree (seed 000 sec. 2.3)",
    .formula = "T(p) + B(p); T = max(T(a) + c + g, T(b)) + c + g, B = max(c + B(a), 2c + "
               "B(b)), c = alpha + n beta, g = n gamma, subtrees of a and b ranks",
    .tuned_ids = {2},
};
