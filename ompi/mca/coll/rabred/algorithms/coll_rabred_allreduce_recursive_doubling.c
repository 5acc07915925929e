/*
 * allreduce: recursive doubling (Rabenseifner, ICCS 2004, sec. 2.4).
 *
 * Steps
 *  1. copy the input into ACC;
 *  2. p not a power of two: fold to p' (rabred_toolkit.h): each extra sends
 *     its whole vector to its proxy, which reduces it;
 *  3. lg p' steps: virtual ranks v and v ^ 2^s exchange their whole partial
 *     result and both reduce it, lower virtual rank's data first, so both
 *     hold the same bits;
 *  4. each proxy sends the result to its extra.
 *
 * Cost (alpha per message, beta per byte, gamma per reduced byte):
 *   p = p':  lg p (alpha + n beta + n gamma)
 *   else:    (lg p' + 2) alpha + (lg p' + 2) n beta + (lg p' + 1) n gamma
 *   (the fold and unfold are one-way messages: alpha_uni + n beta_uni each)
 *
 * Limitations: none; exact rank order, so non-commutative ops are fine.
 * Best for short vectors: every step moves the whole vector.
 *
 * Memory per process: TMP of count elements (ACC is the receive buffer).
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_fold_t fold;
    rabred_fold_init(&fold, a->p, a->rank, -1);

    rabred_phase_copy_in(plan, a->count);
    rabred_phase_fold_full(plan, &fold, a->count);
    if (RABRED_NODE_EXTRA != fold.kind) {
        for (int s = 0; s < fold.lg_pof2; s++) {
            int peer_v = fold.vrank ^ (1 << s);
            int peer = rabred_fold_real_rank(&fold, peer_v);
            rabred_plan_round(plan);
            rabred_plan_send(plan, peer, RABRED_BUF_ACC, 0, a->count);
            rabred_plan_recv(plan, peer, RABRED_BUF_TMP, 0, a->count);
            rabred_plan_reduce_replicated(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, 0, a->count,
                                          peer_v < fold.vrank);
        }
    }
    rabred_phase_unfold(plan, &fold, a->count);
    return plan->error;
}

/* Every step moves and reduces the whole vector on every rank at once, so
 * the path is the same for all: the fold (the extra's one-way vector, then
 * the proxy's reduction) holds up the proxies' partners at step 0, lg p'
 * exchanges each followed by a reduction, and the one-way unfold.  Nothing
 * is sent when n = 0. */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    double n = (double)c->bytes, lg = rabred_log2_floor(c->p), fold = 0.0;
    if (0 == c->bytes) {
        return 0.0;
    }
    if (rabred_pof2_floor(c->p) != c->p) {
        fold = 2 * rabred_price_one_way(m, n) + n * m->gamma;
    }
    return fold + lg * (rabred_price_exchange(m, n) + n * m->gamma);
}

const rabred_alg_t rabred_alg_allreduce_recursive_doubling = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 1,
    .name = "recursive_doubling",
    .build = build,
    .description = "recursive doubling: full vectors exchanged at distance 1, 2, 4...; fold to p' "
                   "for other p (Rabenseifner 2004 sec. 2.4); best for short vectors",
    .formula = "(lg p' + 2[p != p']) alpha + (lg p' + 2[p != p']) n beta + (lg p' + [p != p']) "
               "n gamma",
    .tuned_ids = {3},
    .price = price,
};
