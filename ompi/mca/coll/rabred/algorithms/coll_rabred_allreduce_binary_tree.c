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

/* The reduce time S[i] and the broadcast time B[i] of the in-order tree
 * over a subtree of k + i ranks (i = 0, 1), for one-way messages x and
 * reductions g.  A node of m ranks has subtrees of a = m/2 and b = m-1-a
 * ranks: it takes the first child's vector, reduces it, then the second's,
 * S(m) = max(S(a) + x + g, S(b)) + x + g (S(1) = 0); it sends the result
 * to the first child, then the second, B(m) = max(x + B(a), 2x + B(b)).
 * The children of subtrees of k and k+1 ranks have (k-1)/2 ranks or one
 * more: two sizes per level, O(lg p) in all. */
static void tree_times(int k, double x, double g, double S[2], double B[2])
{
    if (0 == k) {
        S[0] = S[1] = B[0] = B[1] = 0.0;
        return;
    }
    int j = (k - 1) / 2;
    double s[2], b[2];
    tree_times(j, x, g, s, b);
    for (int i = 0; i < 2; i++) {
        int size = k + i, lo = size / 2, hi = size - 1 - lo;
        if (1 == size) { /* a leaf */
            S[i] = B[i] = 0.0;
            continue;
        }
        double left = s[lo - j] + x + g;
        S[i] = hi > 0 ? (left > s[hi - j] ? left : s[hi - j]) + x + g : left;
        B[i] = x + b[lo - j];
        B[i] = hi > 0 && 2 * x + b[hi - j] > B[i] ? 2 * x + b[hi - j] : B[i];
    }
}

/* The reduce to rank 0 up the tree, then the broadcast down it: every
 * message is one-way (a node only receives from its children, then only
 * sends to its parent; later the reverse), and the broadcast starts when
 * the root has reduced: S(p) + B(p).  Nothing is sent when n = 0. */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    double n = (double)c->bytes, S[2], B[2];
    if (0 == c->bytes) {
        return 0.0;
    }
    tree_times(c->p - 1, rabred_price_one_way(m, n), n * m->gamma, S, B);
    return S[1] + B[1];
}

const rabred_alg_t rabred_alg_allreduce_binary_tree = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 5,
    .name = "binary_tree",
    .build = build,
    .description = "binary tree: reduce to rank 0 over an in-order binary tree (rank order kept), "
                   "then broadcast down the same tree (Rabenseifner 2004 sec. 2.3)",
    .formula = "T(p) + B(p); T = max(T(a) + c + g, T(b)) + c + g, B = max(c + B(a), 2c + "
               "B(b)), c = alpha + n beta, g = n gamma, subtrees of a and b ranks",
    .tuned_ids = {2},
    .price = price,
};
