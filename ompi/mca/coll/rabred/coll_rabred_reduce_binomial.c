/*
 * reduce: binomial tree (Rabenseifner, ICCS 2004, sec. 2.3).
 *
 * Steps (tree over "tree ranks" t; tree root t = 0)
 *  - commutative op: t = (rank - root) mod p, so the tree is rooted at root;
 *  - non-commutative op: t = rank, the tree is rooted at rank 0, where
 *    every reduction combines [t, t + 2^s) with [t + 2^s, t + 2^(s+1)) in
 *    rank order; rank 0 then forwards the result to the root.
 *  The children of t are t + 2^s for every 2^s below t's lowest set bit (all
 *  s for t = 0) with t + 2^s < p; t sends its partial result to t minus its
 *  lowest set bit once it has reduced its children's.  Non-commutative: the
 *  children in increasing s, one at a time.  Commutative: the children in
 *  the order their data can be ready (the height of their subtree, which is
 *  s unless p cuts the subtree short: at p = 5, child 4 is a leaf), and the
 *  first two received at once, into ACC and TMP, unless INPUT is ACC
 *  (MPI_IN_PLACE at the root).  A child sending more than the eager limit
 *  waits for its parent's receive; posted early, the leaves hand their
 *  vectors over at once and leave, which is what seed 004's average
 *  elapsed time counts (bench/results/full2-20261121: at p = 3 tuned's
 *  trees, which post two receives, took 0.67x rabred's one-at-a-time tree).
 *  A leaf sends straight from the input buffer (no copy).
 *
 * Cost: ceil(lg p) (alpha_uni + n beta_uni + n gamma) at the root;
 *   non-commutative with root != 0: one more alpha_uni + n beta_uni;
 *   commutative, not in place, p >= 3: one more n gamma (the root reduces
 *   its own vector in where it used to copy it), except at p = 2^k + 1
 *   (the first two are leaves 1 and 2^k).  Two receives at once
 *   share the root's link: the same alpha and beta in total.
 *
 * Limitations: none.  Best for short vectors; the root does all the
 * reduction work of the last step, and every step moves the whole vector.
 *
 * Memory per process: TMP of count elements on ranks with children; ACC is
 * the receive buffer on the root and a temporary on other inner ranks.
 */
#include "rabred_plan.h"
#include "rabred_table.h"
#include "rabred_toolkit.h"

/* tree rank t -> real rank */
static int tree_to_real(int t, int tree_root, int p)
{
    return (t + tree_root) % p;
}

/* Height of the subtree of child c = t + bit: ranks [c, min(c + bit, p)),
 * ready after ceil(lg size) steps. */
static int subtree_height(int c, int bit, int p)
{
    return rabred_log2_ceil(c + bit < p ? bit : p - c);
}

/* Tree rank t's children, in increasing bit order, or (by_readiness) by
 * subtree height (stable: equal heights keep bit order).  Returns how many. */
static int tree_children(int t, int p, int by_readiness, int *kids)
{
    int n = 0;
    for (int bit = 1; bit < p && 0 == (t & bit) && t + bit < p; bit <<= 1) {
        kids[n++] = t + bit;
    }
    for (int i = 1; by_readiness && i < n; i++) { /* insertion sort, n <= 31 */
        int k = kids[i], j = i;
        int hk = subtree_height(k, k - t, p);
        while (j > 0 && subtree_height(kids[j - 1], kids[j - 1] - t, p) > hk) {
            kids[j] = kids[j - 1];
            j--;
        }
        kids[j] = k;
    }
    return n;
}

int rabred_build_reduce_binomial(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    int p = a->p, root = a->root;
    int tree_root = a->commutative ? root : 0;
    int t = (a->rank - tree_root + p) % p;
    int kids[32];
    int n = tree_children(t, p, a->commutative, kids);
    int pair = a->commutative && !a->in_place && n >= 2; /* the first two at once */
    rabred_buf_t mine = n > 0 ? RABRED_BUF_ACC : RABRED_BUF_INPUT;
    int i = 0;

    if (pair) {
        rabred_plan_round(plan);
        rabred_plan_recv(plan, tree_to_real(kids[0], tree_root, p), RABRED_BUF_ACC, 0, a->count);
        rabred_plan_recv(plan, tree_to_real(kids[1], tree_root, p), RABRED_BUF_TMP, 0, a->count);
        rabred_plan_reduce(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, a->count, 1);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, 0, a->count, 0);
        i = 2;
    } else if (n > 0 || (t == 0 && a->rank == root)) {
        rabred_plan_round(plan);
        rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, a->count);
        mine = RABRED_BUF_ACC;
    }
    for (; i < n; i++) {
        rabred_plan_round(plan);
        rabred_plan_recv(plan, tree_to_real(kids[i], tree_root, p), RABRED_BUF_TMP, 0, a->count);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, 0, a->count, 0);
    }
    if (t != 0) {
        rabred_plan_round(plan);
        rabred_plan_send(plan, tree_to_real(t - (t & -t), tree_root, p), mine, 0, a->count);
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
