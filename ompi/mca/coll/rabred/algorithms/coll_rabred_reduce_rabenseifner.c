/*
 * reduce: Rabenseifner's reduce-scatter + binomial gather
 * (Rabenseifner, ICCS 2004, sec. 2.5; MPICH patch of the MPICH reduce patch).
 *
 * Steps
 *  1. a rank in a fold's pair, or the root in place, copies its input into
 *     ACC (a temporary on ranks other than the root); every other rank's
 *     first halving step reads the input in place (see the allreduce
 *     version);
 *  2. p not a power of two: fold to p' as for allreduce, except that a pair
 *     holding the root keeps the root (rabred_fold_init's `keep`): the
 *     other member sends its reduced half to the root.  Seed 003's three
 *     cases are therefore one: root >= 2r (a base rank), root even < 2r and
 *     root odd < 2r (the kept member) all end with the root as a virtual
 *     rank, and no extra message is paid for a root that would be removed;
 *  3. reduce-scatter by recursive halving among the p' virtual ranks;
 *  4. binomial gather toward the root's virtual rank: at the step of bit
 *     2^s, going from p'/2 down to 1, the rank whose bit s differs from the
 *     root's sends everything it holds to its peer and stops.
 *
 * Cost (full duplex, f_alpha = f_beta = 1):
 *   p = p':  2 lg p alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma
 *   else:    (2 lg p' + 2) alpha + (3 - 2/p') n beta + (3/2 - 1/p') n gamma
 *
 * Limitations: declared count >= p' (see the allreduce version); any root;
 * exact rank order, so non-commutative ops are fine.
 *
 * Memory per process: TMP of count elements; ranks other than the root
 * also an ACC of count elements.
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_price_reduce.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_fold_t fold;
    rabred_fold_init(&fold, a->p, a->rank, a->root);

    rabred_team_t team;
    rabred_halving_t halving;
    if (!rabred_phase_fold_reduce_scatter(plan, a, &fold, &team, &halving)) {
        return plan->error; /* a fold's extra */
    }
    rabred_phase_gather(plan, &team, &halving, a->count, rabred_fold_vrank_of(&fold, a->root));
    return plan->error;
}

/* ---- price ------------------------------------------------------------ */

/* The fold's pairs: when the proxies start the halving (the latest of
 * them), and the sum of the extras' finish times. */
typedef struct {
    double start, extras;
} fold_price_t;

/* Fold with halves: the pair exchanges ceil(n/2) against floor(n/2) bytes
 * (both at once: done at x = alpha + ceil(n/2) beta), the even member
 * reduces floor(n/2), the odd one ceil(n/2); the extra sends its half,
 * one-way, once reduced, and leaves.  The proxy has posted that receive at
 * x (it touches nothing it reduces) and starts the halving when the half is
 * in and its own reduction done; the extra leaves rabred_price_buffered
 * before its half is in.  Usually the odd member is the extra, done
 * at x + ceil(n/2) (gamma + f_beta beta) + f_alpha alpha, when its proxy
 * starts; a root at an odd rank < 2r stays in its pair, whose even member
 * sends floor(n/2) instead, and both are done earlier than the other
 * pairs'. */
static fold_price_t fold_price(const rabred_price_call_t *c, const rabred_model_t *m, int rem)
{
    double hi = (double)(c->bytes - c->bytes / 2), lo = (double)(c->bytes / 2);
    double x = rabred_price_exchange(m, hi);
    double odd_extra = x + hi * m->gamma + rabred_price_one_way(m, hi);
    double odd_leaves = odd_extra - rabred_price_buffered(m, hi);
    fold_price_t f = {rem > 0 ? odd_extra : 0.0, rem * odd_leaves};
    if (c->root < 2 * rem && 1 == c->root % 2) {
        double even_extra = x + lo * m->gamma + rabred_price_one_way(m, lo);
        double own = x + hi * m->gamma; /* the root's own reduction */
        f.extras += even_extra - rabred_price_buffered(m, lo) - odd_leaves;
        if (1 == rem) { /* the only pair */
            f.start = even_extra > own ? even_extra : own;
        }
    }
    return f;
}

/* The virtual ranks' state before the gather: every proxy and base rank
 * starts the halving when the latest proxy does (each step's exchange
 * waits for the partner, and the partners of later steps have waited for
 * theirs), so a member's halving ends at start + its own steps' terms. */
typedef struct {
    const rabred_halving_price_t *h;
    double start;
} halving_state_t;

static void halving_state(const rabred_gather_price_t *g, int pos, double *done, double *cpu)
{
    const halving_state_t *s = g->ctx;
    *cpu = s->start + rabred_halving_time(s->h, pos, s->h->levels);
    *done = *cpu - rabred_grid_len(g->grid, pos, 1) * g->m->gamma; /* before its last reduction */
}

/* The fold (fold_price), the halving among the p' virtual ranks
 * (rabred_halving_price_t: exact for the uneven blocks of any count), and
 * the binomial gather to the root's virtual rank (rabred_gather_price), all
 * as the simulator runs them, for any root and either kind of op (the plans
 * are the same); the sum of every rank's finish time over p.  Exact for
 * every count >= p' (below it the algorithm is not allowed and the price
 * says so: < 0; there empty windows would drop messages and the partners
 * of a step would stop waiting for each other), O(p). */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    int p = c->p, pof2 = rabred_pof2_floor(p), levels = rabred_log2_floor(pof2), rem = p - pof2;
    if (0 == c->bytes || p < 2) {
        return 0.0;
    }
    if (c->bytes < pof2) {
        return -1.0;
    }
    rabred_halving_price_t h;
    rabred_halving_price_init(&h, m, c->bytes, levels);
    fold_price_t fold = fold_price(c, m, rem);
    halving_state_t state = {&h, fold.start};
    int vroot = c->root >= 2 * rem ? c->root - rem : c->root / 2;
    rabred_gather_price_t g = {m, &h.grid, rabred_bit_reverse(vroot, levels), halving_state,
                               &state, 0.0};
    double root_done = rabred_gather_price(&g, 0, levels);
    return (fold.extras + g.sum + root_done) / p;
}

const rabred_alg_t rabred_alg_reduce_rabenseifner = {
    .coll = RABRED_COLL_REDUCE,
    .id = 2,
    .name = "rabenseifner",
    .build = build,
    .restrictions = RABRED_NEEDS_COUNT_GE_POF2,
    .description = "Rabenseifner: reduce-scatter by recursive halving + binomial gather to the "
                   "root; a root among the folded pairs is the rank kept (Rabenseifner 2004 sec. 2.5, seed "
                   "003)",
    .formula = "p = p': 2 lg p alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma; else (2 lg p' + "
               "2) alpha + (3 - 2/p') n beta + (3/2 - 1/p') n gamma",
    .tuned_ids = {7},
    .price = price,
};
