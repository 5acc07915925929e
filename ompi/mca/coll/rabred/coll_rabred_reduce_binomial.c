/*
 * reduce: binomial tree (Rabenseifner, ICCS 2004, sec. 2.3).
 *
 * Steps (tree over "tree ranks" t; tree root t = 0)
 *  - commutative op: t = (rank - root) mod p, so the tree is rooted at root;
 *  - non-commutative op: t = rank, the tree is rooted at rank 0, where
 *    every reduction combines [t, t + 2^s) with [t + 2^s, t + 2^(s+1)) in
 *    rank order; rank 0 then forwards the result to the root.
 *  At step s (2^s < p) a rank with bit s of t set sends its partial result to
 *  t - 2^s and stops; otherwise it receives from t + 2^s (when that exists)
 *  and reduces.  A leaf sends straight from the input buffer (no copy).
 *
 * Cost: ceil(lg p) (alpha_uni + n beta_uni + n gamma) at the root;
 *   non-commutative with root != 0: one more alpha_uni + n beta_uni.
 *
 * Limitations: none.  Best for short vectors; the root does all the
 * reduction work of the last step, and every step moves the whole vector.
 *
 * Memory per process: TMP of count elements on ranks with children; ACC is
 * the receive buffer on the root and a temporary on other inner ranks.
 */
#include "rabred_plan.h"
#include "rabred_table.h"

/* tree rank t -> real rank */
static int tree_to_real(int t, int tree_root, int p)
{
    return (t + tree_root) % p;
}

int rabred_build_reduce_binomial(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    int p = a->p, root = a->root;
    int tree_root = a->commutative ? root : 0;
    int t = (a->rank - tree_root + p) % p;
    int has_children = 0 == (t & 1) && t + 1 < p;
    rabred_buf_t mine = has_children ? RABRED_BUF_ACC : RABRED_BUF_INPUT;

    if (has_children || (t == 0 && a->rank == root)) {
        rabred_plan_round(plan);
        rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, a->count);
        mine = RABRED_BUF_ACC;
    }
    for (int bit = 1; bit < p; bit <<= 1) {
        rabred_plan_round(plan);
        if (t & bit) {
            rabred_plan_send(plan, tree_to_real(t - bit, tree_root, p), mine, 0, a->count);
            break;
        }
        if (t + bit < p) {
            rabred_plan_recv(plan, tree_to_real(t + bit, tree_root, p), RABRED_BUF_TMP, 0,
                             a->count);
            rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, 0, a->count, 0);
        }
    }
    if (tree_root != root) { /* forward the rank-ordered result to the root */
        rabred_plan_round(plan);
        if (0 == t) {
            rabred_plan_send(plan, root, RABRED_BUF_ACC, 0, a->count);
        } else if (a->rank == root) {
            rabred_plan_recv(plan, 0, RABRED_BUF_ACC, 0, a->count);
        }
    }
    return plan->error;
}
