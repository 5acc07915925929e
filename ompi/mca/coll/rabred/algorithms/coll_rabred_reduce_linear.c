/*
 * reduce: linear (the textbook baseline, Rabenseifner 2004 sec. 2.2).
 *
 * Steps: every rank sends its input to the root; the root receives them
 * one at a time and combines them in rank order (ranks below the root in
 * front of its data, ranks above behind).
 *
 * Cost: (p-1) (alpha_uni + n beta_uni + n gamma), all at the root.
 *
 * Limitations: none; exact rank order.  Only sensible for tiny p: it is in
 * the table as the reference point the others are measured against.
 *
 * Memory per process: TMP of count elements at the root; nothing elsewhere
 * (the input is sent as it is).
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_phase_linear_reduce(plan, a->p, a->rank, a->root, a->count);
    return plan->error;
}

/* Every rank sends its input at once, one-way (x = f_alpha alpha +
 * n f_beta beta); the root takes them one at a time, each after reducing
 * the one before (its receive buffer is the reduction's operand), so the
 * k-th sender leaves at (k-1) (x + g) + x, g = n gamma, and the root at
 * (p-1) (x + g).  The mean over ranks: (p-1) (x/p + (x + g)/2), whatever
 * the root.  Each message starts when it matches, so a sender leaves
 * rabred_price_buffered earlier than its message ends.  Exact; nothing is
 * sent when n = 0. */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    double n = (double)c->bytes, x = rabred_price_one_way(m, n), g = n * m->gamma;
    if (0 == c->bytes) {
        return 0.0;
    }
    return (c->p - 1) * ((x - rabred_price_buffered(m, n)) / c->p + (x + g) / 2);
}

const rabred_alg_t rabred_alg_reduce_linear = {
    .coll = RABRED_COLL_REDUCE,
    .id = 4,
    .name = "linear",
    .build = build,
    .description = "linear: every rank sends its vector to the root, which reduces in rank order "
                   "(a baseline)",
    .formula = "(p-1) (alpha + n beta + n gamma)",
    .tuned_ids = {1},
    .price = price,
};
