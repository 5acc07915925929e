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

/* One walk of the tree for price(): message and reduction costs, the sum of
 * the finish times of the nodes below the top, and the finish time of one
 * tree rank (`mark`) below it. */
typedef struct {
    double c, g;
    double buffered; /* what a sender leaves in its send buffer (rabred_price_buffered) */
    double sum;
    int mark;
    double mark_done;
} tree_walk_t;

/* Tree rank t's message to its parent ends at `end`: it started when it
 * matched, so t leaves `buffered` before. */
static void finished(tree_walk_t *w, int t, double end)
{
    double done = end - w->buffered;
    w->sum += done;
    w->mark_done = t == w->mark ? done : w->mark_done;
}

/* The subtree of the m tree ranks from lo: returns when its top has reduced
 * both children's results, T = max(T(a) + c + g, T(b)) + c + g (b > 0);
 * its first child leaves at T(a) + c (its parent has posted that receive
 * from the start), its second at max(T(a) + c + g, T(b)) + c (the receive
 * is posted once the first child's vector is reduced: the same TMP). */
static double subtree(tree_walk_t *w, int lo, int m)
{
    int a = m / 2, b = m - 1 - a;
    if (m <= 1) {
        return 0.0;
    }
    double first = subtree(w, lo + 1, a) + w->c;
    finished(w, lo + 1, first);
    if (0 == b) {
        return first + w->g;
    }
    double second = subtree(w, lo + 1 + a, b);
    second = (first + w->g > second ? first + w->g : second) + w->c;
    finished(w, lo + 1 + a, second);
    return second + w->g;
}

/* Every message is one-way (c = f_alpha alpha + n f_beta beta: a node
 * receives from its children, then sends to its parent, never both with one
 * peer), g = n gamma.  One walk of the p nodes (O(p)) sums their finish
 * times: each child leaves when its parent has taken its vector, the top
 * when it has reduced.  A non-commutative op with root != 0 adds the
 * forward: tree rank 0 sends the result at T(p), when the root (tree rank
 * root, done with its own part long before) waits for it, so both finish
 * at T(p) + c, less what tree rank 0's send buffer holds for it.
 * Every message starts when it matches, so each sender leaves
 * rabred_price_buffered before its message ends.  Exact; nothing is sent
 * when n = 0. */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    double n = (double)c->bytes;
    int forward = !c->commutative && 0 != c->root;
    tree_walk_t w = {rabred_price_one_way(m, n), n * m->gamma, rabred_price_buffered(m, n), 0.0,
                     c->root, 0.0};
    if (0 == c->bytes) {
        return 0.0;
    }
    double top = subtree(&w, 0, c->p);
    if (forward) {
        return (w.sum - w.mark_done + 2 * (top + w.c) - w.buffered) / c->p;
    }
    return (w.sum + top) / c->p;
}

const rabred_alg_t rabred_alg_reduce_binary_tree = {
    .coll = RABRED_COLL_REDUCE,
    .id = 5,
    .name = "binary_tree",
    .build = build,
    .description = "binary tree: in-order binary tree toward the root, at most two children per "
                   "rank; rank-ordered tree plus a forward to the root for non-commutative ops "
                   "(Rabenseifner 2004 sec. 2.3)",
    .formula = "T(p) (+ alpha + n beta when non-commutative and root != 0); T = max(T(a) + c + "
               "g, T(b)) + c + g, c = alpha + n beta, g = n gamma",
    .tuned_ids = {6, 4},
    .price = price,
};
