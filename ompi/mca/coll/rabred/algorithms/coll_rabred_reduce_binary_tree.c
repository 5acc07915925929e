/*
 * reduce: binary tree (Rabenseifner, ICCS 2004, sec. 2.3, with a real
 * binary tree: every node has at most two children).
 *
 * Steps (rabred_bintree_t: an in-order tree whose subtrees are contiguous
 * runs of tree ranks, rooted at tree rank 0)
 *  - commutative op: tree rank t = (rank - root) mod p, so the tree is
 *    rooted at the root; non-commutative op: t = rank, rooted at rank 0,
 *    which forwards the result to the root at the end;
 *  - a node receives its first child's partial result and reduces it after
 *    its own data, then its second child's, then sends to its parent
 *    (node, first subtree, second subtree: rank order); a leaf sends its
 *    input as it is.
 *
 * Cost: with c = alpha_uni + n beta_uni and g = n gamma, T(1) = 0 and for a
 *   node whose subtrees have a and b nodes
 *     T = max(T(a) + c + g, T(b)) + c + g   (b > 0)
 *     T = T(a) + c + g                      (b = 0);
 *   about 2 lg p (c + g), twice the binomial tree's depth in messages, but
 *   each rank sends once and receives at most twice (bounded fan-in).
 *   Non-commutative with root != 0: one more c.
 *
 * Limitations: none; exact rank order.
 *
 * Memory per process: TMP of count elements at inner nodes; ACC is a
 * temporary at inner nodes other than the root.
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    int tree_root = a->commutative ? a->root : 0;
    rabred_phase_tree_reduce(plan, a->p, a->rank, tree_root, a->count);
    if (tree_root != a->root) { /* forward the rank-ordered result to the root */
        rabred_plan_round(plan);
        if (a->rank == tree_root) {
            rabred_plan_send(plan, a->root, RABRED_BUF_ACC, 0, a->count);
        } else if (a->rank == a->root) {
            rabred_plan_recv(plan, tree_root, RABRED_BUF_ACC, 0, a->count);
        }
    }
    return plan->error;
}

const rabred_alg_t rabred_alg_reduce_binary_tree = {
    .coll = RABRED_COLL_REDUCE,
    .id = 5,
    .name = "binary_tree",
    .build = build,
    .description = "binary tree: in-order binary tree toward the root, at most two children per "
                   "rank; rank-ordered tree plus a forward to the root for non-commutative ops "
                   "(seed 000 sec. 2.3)",
    .formula = "T(p) (+ alpha + n beta when non-commutative and root != 0); T = max(T(a) + c + "
               "g, T(b)) + c + g, c = alpha + n beta, g = n gamma",
    .tuned_ids = {6, 4},
};
