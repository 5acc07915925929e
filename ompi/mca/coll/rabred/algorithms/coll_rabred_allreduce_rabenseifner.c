/*
 * allreduce: Rabenseifner's recursive halving and doubling
 * (Rabenseifner, ICCS 2004, sec. 2.5, Fig. 1).
 *
 * Steps
 *  1. a rank in a fold's pair, or in place, copies its input into ACC;
 *  2. p not a power of two: fold to p' = 2^floor(lg p): in each pair
 *     (2i, 2i+1), i < r = p - p', the two ranks exchange halves and each
 *     reduces one half; the odd rank then sends its reduced half to the even
 *     one and sits out (rabred_phase_fold_halves);
 *  3. reduce-scatter among the p' virtual ranks by recursive vector halving
 *     and distance doubling: after lg p' steps virtual rank v holds the
 *     reduced block bit_reverse(v) of p' blocks.  A rank that did not copy
 *     its input sends the first half it gives straight from the input and
 *     reduces its input into the half it receives in ACC
 *     (rabred_phase_fold_reduce_scatter): no copy of the vector on its
 *     path, and its peer reads memory it never writes, so a single-copy
 *     transport takes no line back from the reader's cache (over shared
 *     memory at p = 2, 1 MiB: 0.67x coll/tuned's default where the copy
 *     made it 1.02x, bench/results/shm-direct-20261206);
 *  4. allgather by recursive vector doubling and distance halving, the
 *     reverse of step 3;
 *  5. each even rank of a pair sends the result to its odd rank.
 *
 * Cost (full duplex, f_alpha = f_beta = 1):
 *   p = p':  2 lg p alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma
 *   else:    (2 lg p' + 3) alpha + (4 - 2/p') n beta + (3/2 - 1/p') n gamma
 *   (the paper's formula for p != p', counted the same way)
 *
 * Limitations: declared count >= p' (below it some ranks hold empty blocks
 * and recursive doubling is faster; the plans stay correct for any count).
 * Blocks differ by at most one element.  Exact rank order (the lower virtual
 * rank's data goes first at every step), so non-commutative ops are fine.
 *
 * Memory per process: TMP of count elements (ACC is the receive buffer).
 * Copies: the input, on the ranks of step 1 only; half of it on the rank
 * of a first-step pair whose data goes second under a non-commutative op
 * (its input must follow the received half, and reductions compute only
 * src (op) dst in place).
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_price_allreduce.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_fold_t fold;
    rabred_fold_init(&fold, a->p, a->rank, -1);

    rabred_team_t team;
    rabred_halving_t halving;
    if (rabred_phase_fold_reduce_scatter(plan, a, &fold, &team, &halving)) {
        rabred_phase_allgather(plan, &team, &halving, a->count);
    }
    rabred_phase_unfold(plan, &fold, a->count);
    return plan->error;
}

/* The fold of a pair (n > 0): the halves are exchanged (one-way when
 * n = 1: the lower half is empty), the extra reduces its upper half and
 * sends it one-way to the proxy, whose own reduction of the lower half
 * runs meanwhile. */
static double fold_time(const rabred_model_t *m, int64_t count)
{
    double up = (double)(count - count / 2);
    return rabred_price_pair(m, up, (double)(count / 2)) + up * m->gamma +
           rabred_price_one_way(m, up);
}

/* The path of virtual rank 0: it starts last (rank 0 is a proxy when
 * p != p'), and at every step of the halving and of the allgather its pair
 * moves the largest windows of that step (the lowest blocks, which hold
 * the count % p' longer ones) and it reduces the largest, so no rank
 * finishes later.  At step s its pair exchanges the lower window of
 * p'/2^(s+1) blocks for the upper one (exactly as the builder cuts them)
 * in both phases, and it reduces the lower one; the proxies end with the
 * one-way unfold.  Exact for every count. */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    int pof2 = rabred_pof2_floor(c->p), folded = pof2 != c->p;
    int64_t count = c->bytes;
    if (0 == count) {
        return 0.0;
    }
    double t = folded ? fold_time(m, count) + rabred_price_one_way(m, (double)count) : 0.0;
    for (int half = pof2 / 2; half >= 1; half /= 2) {
        rabred_window_t lower = {0, half}, upper = {half, half};
        double lo = (double)rabred_window_length(count, pof2, lower);
        double hi = (double)rabred_window_length(count, pof2, upper);
        t += 2 * rabred_price_pair(m, lo, hi) + lo * m->gamma;
    }
    return t;
}

const rabred_alg_t rabred_alg_allreduce_rabenseifner = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 2,
    .name = "rabenseifner",
    .build = build,
    .restrictions = RABRED_NEEDS_COUNT_GE_POF2,
    .description = "Rabenseifner: reduce-scatter by recursive halving + allgather by recursive "
                   "doubling, fold to p' for other p (Rabenseifner 2004 sec. 2.5); long vectors",
    .formula = "p = p': 2 lg p alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma; else (2 lg p' + "
               "3) alpha + (4 - 2/p') n beta + (3/2 - 1/p') n gamma",
    .tuned_ids = {6},
    .price = price,
};
