/*
 * allreduce: linear, reduce to rank 0 + broadcast (Rabenseifner 2004 sec. 2.2, the
 * "classical implementation" whose root is the bottleneck).
 *
 * Steps: linear reduce at rank 0 in rank order (rabred_phase_linear_reduce),
 * then rank 0 sends the result to every other rank in one round.
 *
 * Cost: 2 (p-1) (alpha_uni + n beta_uni) + (p-1) n gamma: rank 0's ports
 * serialise both halves.
 *
 * Limitations: none; exact rank order.  A reference point, not a contender.
 *
 * Memory per process: TMP of count elements at rank 0.
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_phase_linear_reduce(plan, a->p, a->rank, 0, a->count);
    rabred_plan_round(plan);
    for (int k = 1; k < a->p && 0 == a->rank; k++) {
        rabred_plan_send(plan, k, RABRED_BUF_ACC, 0, a->count);
    }
    if (0 != a->rank) {
        rabred_plan_recv(plan, 0, RABRED_BUF_ACC, 0, a->count);
    }
    return plan->error;
}

/* Rank 0's ports serialise everything: it takes the p-1 vectors one
 * after another (each one-way, then reduced before the next receive is
 * posted), then sends the result one-way to ranks 1, 2, ... in turn; the
 * last receiver finishes last.  Nothing is sent when n = 0. */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    double n = (double)c->bytes, x = rabred_price_one_way(m, n);
    return 0 == c->bytes ? 0.0 : (c->p - 1) * (2 * x + n * m->gamma);
}

const rabred_alg_t rabred_alg_allreduce_linear = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 4,
    .name = "linear",
    .build = build,
    .description = "linear: every rank sends to rank 0, which reduces in rank order and sends the "
                   "result to all (the classical reduce + broadcast; a baseline)",
    .formula = "2 (p-1) (alpha + n beta) + (p-1) n gamma",
    .tuned_ids = {1},
    .price = price,
};
