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
 *  s unless p cuts the subtree short: at p = 5, child 4 is a leaf), with a
 *  receive posted for each child by the time it is ready (gather_commutative:
 *  the first two at once, equally tall children together, into ACC, TMP
 *  and TMP2).  A child sending more than the eager limit waits for its
 *  parent's receive; posted in time, a child hands its vector to the
 *  transport as soon as it is ready and leaves, which is what Proficz's (2018)
 *  average elapsed time counts.  Measured (bench/results/full2-20261121,
 *  reduce-window-20261122): at p = 3 tuned's trees, which keep two
 *  receives posted, took 0.67x rabred's one-at-a-time tree; at p = 6 the
 *  root's third child (rank 4, ready with rank 2) left after 180-210 ms
 *  instead of about 100 when its receive waited for both earlier
 *  transfers.  A leaf sends straight from the input buffer (no copy).
 *
 * Cost: ceil(lg p) (alpha_uni + n beta_uni + n gamma) at the root;
 *   non-commutative with root != 0: one more alpha_uni + n beta_uni;
 *   commutative, p >= 3: one more n gamma (the root reduces its own vector
 *   in where it used to copy it), except at p = 2^k + 1 (the first two are
 *   leaves 1 and 2^k).  The children received together with an equally
 *   tall one add no reduction to the critical path.  Receives at
 *   once share the root's link: the same alpha and beta in total.
 *
 * Limitations: none.  Best for short vectors; the root does all the
 * reduction work of the last step, and every step moves the whole vector.
 *
 * Memory per process: TMP of count elements on ranks with children, TMP2
 * too on ranks with three or more children (two or more at an in-place
 * root); ACC is the receive buffer on the root and a temporary on other
 * inner ranks.
 */
#include "plan/rabred_plan.h"
#include "algorithms/rabred_table.h"
#include "plan/rabred_toolkit.h"

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

/* Tree rank t's children and their subtree heights h, in increasing bit
 * order, or (by_readiness) by height (stable: equal heights keep bit
 * order).  Returns how many. */
static int tree_children(int t, int p, int by_readiness, int *kids, int *h)
{
    int n = 0;
    for (int bit = 1; bit < p && 0 == (t & bit) && t + bit < p; bit <<= 1) {
        int k = t + bit, hk = subtree_height(k, bit, p), j = n++;
        while (by_readiness && j > 0 && h[j - 1] > hk) { /* insertion sort, n <= 31 */
            kids[j] = kids[j - 1];
            h[j] = h[j - 1];
            j--;
        }
        kids[j] = k;
        h[j] = hk;
    }
    return n;
}

/* Commutative: the children's vectors into ACC, in readiness order, in
 * rounds that keep a receive posted for every child that is ready, or
 * about to be, while the buffers last:
 *  - the first round takes the first two children (ACC and TMP, or TMP
 *    and TMP2 in place), and the third into TMP2 when it is as tall as the
 *    second (p = 6: ranks 2 and 4 are ready together);
 *  - then one child per round, or two (TMP and TMP2) when the next is as
 *    tall (p = 12: ranks 4 and 8).  A single round uses the buffer the
 *    round before left alone, so the executor posts it while that round's
 *    vectors are reduced (rabred_plan_can_post_early).
 * A taller child is ready about when the one before has arrived, so it
 * loses nothing by waiting for that round; an equally tall one would wait
 * a whole transfer. */
static int take_equal(const int *h, int i, int n, int want, int room)
{
    while (want < room && i + want < n && h[i + want] == h[i + want - 1]) {
        want++;
    }
    return want;
}

static void gather_round(const rabred_plan_args_t *a, int tree_root, const int *kids, int take,
                         const rabred_buf_t *into, int input_first, rabred_plan_t *plan)
{
    rabred_plan_round(plan);
    for (int k = 0; k < take; k++) {
        rabred_plan_recv(plan, tree_to_real(kids[k], tree_root, a->p), into[k], 0, a->count);
    }
    if (input_first) { /* ACC holds the first child's vector */
        rabred_plan_reduce(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, a->count, 1);
    }
    for (int k = 0; k < take; k++) {
        if (RABRED_BUF_ACC != into[k]) {
            rabred_plan_reduce(plan, into[k], RABRED_BUF_ACC, 0, a->count, 0);
        }
    }
}

static void gather_commutative(const rabred_plan_args_t *a, int tree_root, const int *kids,
                               const int *h, int n, rabred_plan_t *plan)
{
    static const rabred_buf_t slot[3] = {RABRED_BUF_ACC, RABRED_BUF_TMP, RABRED_BUF_TMP2};
    static const rabred_buf_t pair[2] = {RABRED_BUF_TMP, RABRED_BUF_TMP2};
    const rabred_buf_t *first = a->in_place ? pair : slot; /* in place: ACC holds INPUT */
    int take = take_equal(h, 0, n, n < 2 ? n : 2, a->in_place ? 2 : 3);
    gather_round(a, tree_root, kids, take, first, !a->in_place, plan);
    /* the free buffer for a single round: TMP2 if the first round left it */
    rabred_buf_t next = RABRED_BUF_TMP2 == first[take - 1] ? RABRED_BUF_TMP : RABRED_BUF_TMP2;
    for (int i = take; i < n; i += take) {
        take = take_equal(h, i, n, 1, 2);
        if (2 == take) {
            gather_round(a, tree_root, kids + i, 2, pair, 0, plan);
            next = RABRED_BUF_TMP;
        } else {
            gather_round(a, tree_root, kids + i, 1, &next, 0, plan);
            next = RABRED_BUF_TMP == next ? RABRED_BUF_TMP2 : RABRED_BUF_TMP;
        }
    }
}

/* Non-commutative: ACC = INPUT, then each child's block after it, one at a
 * time in increasing bit order (ACC holds [t, t + bit), the child the ranks
 * above). */
static void gather_in_order(const rabred_plan_args_t *a, const int *kids, int n,
                            rabred_plan_t *plan)
{
    rabred_plan_round(plan);
    rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, a->count);
    for (int i = 0; i < n; i++) {
        rabred_plan_round(plan);
        rabred_plan_recv(plan, kids[i], RABRED_BUF_TMP, 0, a->count);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, 0, a->count, 0);
    }
}

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    int p = a->p, root = a->root;
    int tree_root = a->commutative ? root : 0;
    int t = (a->rank - tree_root + p) % p;
    int kids[32], h[32];
    int n = tree_children(t, p, a->commutative, kids, h);
    rabred_buf_t mine = n > 0 ? RABRED_BUF_ACC : RABRED_BUF_INPUT;

    if (n > 0 && a->commutative) {
        gather_commutative(a, tree_root, kids, h, n, plan);
    } else if (n > 0) {
        gather_in_order(a, kids, n, plan); /* tree_root is 0: tree ranks are real ranks */
    } else if (t == 0 && a->rank == root) { /* p = 1 */
        rabred_plan_round(plan);
        rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, a->count);
        mine = RABRED_BUF_ACC;
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

/* ---- price ------------------------------------------------------------ */

/* A subtree for the commutative price: when its top has reduced all of it
 * and posts its send (ready), and the sum of the finish times of the ranks
 * below its top.  Every rank arrives at 0, so these are absolute times. */
typedef struct {
    double ready, sum;
} subtree_t;

/* One round of gather_commutative's schedule at the top of a subtree: its
 * children kid[0..take) (ready times, in readiness order), posted at
 * `post`.  The vectors share the top's incoming port, first come first
 * served (ties go by send order; all cost c, so the finish times are the
 * same set either way); each child leaves when its send buffer holds the
 * rest of its vector (rabred_price_released).  Returns when the round's
 * messages are done. */
static double price_round(const rabred_model_t *m, const subtree_t *kid, int take, double post,
                          double c, double *sum)
{
    double ready[3], end = post;
    for (int k = 0; k < take; k++) { /* sort by ready time, take <= 3 */
        int j = k;
        for (; j > 0 && ready[j - 1] > kid[k].ready; j--) {
            ready[j] = ready[j - 1];
        }
        ready[j] = kid[k].ready;
    }
    for (int k = 0; k < take; k++) {
        double matched = ready[k] > post ? ready[k] : post;
        end = (matched > end ? matched : end) + c;
        *sum += rabred_price_released(m, matched, end);
    }
    return end;
}

/* The top of a subtree with children kid[0..n) of heights h (sorted by
 * readiness), following gather_commutative round by round: round r's
 * messages end at D, its reductions (one per child; the first round's
 * include the input) start at max(D, the CPU) and cost g each; the next
 * round is posted at once when its receive buffers are not the operands of
 * those reductions (rabred_plan_can_post_early), else after them.  The
 * send to the parent goes after the last reduction. */
static subtree_t price_top(const rabred_model_t *m, const subtree_t *kid, const int *h, int n,
                           double c, double g)
{
    enum { TMP = 1, TMP2 = 2 }; /* the receive buffers that are reduced from */
    subtree_t top = {0.0, 0.0};
    int take = take_equal(h, 0, n, n < 2 ? n : 2, 3);
    unsigned used = 3 == take ? TMP | TMP2 : 2 == take ? TMP : 0u;
    unsigned next = 3 == take ? TMP : TMP2; /* a single round's buffer */
    double post = 0.0, cpu = 0.0;
    for (int i = 0; i < n; i += take) {
        if (i > 0) {
            take = take_equal(h, i, n, 1, 2);
            unsigned bufs = 2 == take ? TMP | TMP2 : next;
            next = 2 == take ? TMP : next ^ (TMP | TMP2);
            post = 0 != (bufs & used) ? cpu : post; /* not posted early */
            used = bufs;
        }
        double done = price_round(m, kid + i, take, post, c, &top.sum);
        post = done > cpu ? done : cpu;
        cpu = post + take * g;
    }
    top.ready = cpu;
    return top;
}

/* The commutative tree of m tree ranks: the subtree of a child c spans
 * [c, c + size), itself such a tree of `size` ranks, so with full[i] the
 * tree of 2^i ranks only the last child of each level recurses: O(lg^2 p). */
static subtree_t price_tree(const rabred_model_t *model, int m, const subtree_t *full, double c,
                            double g)
{
    subtree_t kid[32];
    int h[32], n = 0;
    double below = 0.0;
    for (int i = 0; (1 << i) < m; i++) {
        int bit = 1 << i, size = m - bit < bit ? m - bit : bit, hk = rabred_log2_ceil(size);
        subtree_t sub = size == bit ? full[i] : price_tree(model, size, full, c, g);
        int j = n++;
        for (; j > 0 && h[j - 1] > hk; j--) { /* tree_children's readiness order */
            kid[j] = kid[j - 1];
            h[j] = h[j - 1];
        }
        kid[j] = sub;
        h[j] = hk;
        below += sub.sum;
    }
    subtree_t top = n > 0 ? price_top(model, kid, h, n, c, g) : (subtree_t){0.0, 0.0};
    top.sum += below;
    return top;
}

/* Every message is one-way: a child only sends to its parent, which only
 * receives from it (c = f_alpha alpha + n f_beta beta), g = n gamma.
 *  - Non-commutative: each node takes its children t + 2^j in increasing
 *    j, one a round, each after reducing the one before.  The subtree of
 *    child t + 2^j holds at most 2^j ranks, so it is ready by j (c + g),
 *    exactly when its receive is posted: tree rank t leaves at
 *    v(t) (c + g) + c, v(t) the exponent of t's lowest set bit, and rank 0
 *    is done at L (c + g), L = ceil(lg p).  The sum of v(t) over t < p is
 *    the sum over j >= 1 of (p-1) / 2^j.  A root != 0 posts its receive of
 *    the result when its own part has left, before L (c + g), so it ends
 *    at L (c + g) + c, and rank 0, whose forward is its last send,
 *    rabred_price_buffered before that.  Each message starts when it
 *    matches, so a sender leaves rabred_price_buffered earlier than its
 *    message ends.  (The sum below charges the root's own send the
 *    buffered time and rank 0's forward none, which is the same sum.)
 *  - Commutative: each top takes its children in gather_commutative's
 *    rounds (price_top) over the tree of ranks relative to the root, the
 *    same for every root.
 * Exact; nothing is sent when n = 0. */
static double price(const rabred_price_call_t *call, const rabred_model_t *m)
{
    int p = call->p, lg = rabred_log2_ceil(p);
    double n = (double)call->bytes, c = rabred_price_one_way(m, n), g = n * m->gamma;
    if (0 == call->bytes || p < 2) {
        return 0.0;
    }
    if (call->commutative) {
        subtree_t full[32];
        for (int i = 0; (1 << i) <= p; i++) {
            full[i] = price_tree(m, 1 << i, full, c, g);
        }
        subtree_t all = price_tree(m, p, full, c, g);
        return (all.sum + all.ready) / p;
    }
    double v = 0.0;
    for (int j = 1; (1 << j) <= p - 1; j++) {
        v += (p - 1) >> j;
    }
    double sum = v * (c + g) + (p - 1) * (c - rabred_price_buffered(m, n)) + lg * (c + g);
    if (0 != call->root) { /* the forward: the root leaves at L (c + g) + c, rank 0 buffered before */
        int low = rabred_log2_floor(call->root & -call->root);
        sum += (lg - low) * (c + g) + c;
    }
    return sum / p;
}

const rabred_alg_t rabred_alg_reduce_binomial = {
    .coll = RABRED_COLL_REDUCE,
    .id = 1,
    .name = "binomial",
    .build = build,
    .description = "binomial tree of full vectors toward the root (Rabenseifner 2004 sec. 2.3); "
                   "rank-ordered tree plus one forward to the root for non-commutative ops; short "
                   "vectors",
    .formula = "commutative: ceil(lg p) (alpha + n beta + n gamma); non-commutative, root != "
               "0: one more alpha + n beta",
    .tuned_ids = {5},
    .price = price,
};
