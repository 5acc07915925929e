/*
 * reduce: pairwise_gather (Rabenseifner, ICCS 2004, sec. 2.7, "ring").
 *
 * Steps
 *  1. copy the input into ACC (a temporary except at the root);
 *  2. reduce-scatter by pairwise exchange over p blocks, as for allreduce;
 *  3. every rank sends its reduced block straight to the root, which
 *     receives them all in one round into place.
 *
 * Cost: (p-1) (alpha + alpha_uni) + (1 - 1/p) n (beta + beta_uni)
 *       + (1 - 1/p) n gamma; the root's receiving port serialises step 3.
 *
 * Limitations: commutative ops only.
 *
 * Memory per process: ACC (non-root) and TMP of count elements each.
 */
#include <math.h>

#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"
#include "plan/rabred_toolkit.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    int p = a->p;
    rabred_phase_copy_in(plan, a->count);
    rabred_phase_pairwise_reduce_scatter(plan, p, a->rank, a->count);
    rabred_plan_round(plan);
    if (a->rank != a->root) {
        rabred_plan_send(plan, a->root, RABRED_BUF_ACC, rabred_block_offset(a->count, p, a->rank),
                         rabred_block_length(a->count, p, a->rank));
        return plan->error;
    }
    for (int k = 0; k < p; k++) {
        if (k != a->root) {
            rabred_plan_recv(plan, k, RABRED_BUF_ACC, rabred_block_offset(a->count, p, k),
                             rabred_block_length(a->count, p, k));
        }
    }
    return plan->error;
}

/* The senders' finish times after the reduce-scatter, summed: all p-1
 * blocks match at once and the root's in-port takes them one after
 * another, so the k-th ends after k one-way blocks (x each) and its sender
 * is released at max(alpha', k x - b) (rabred_price_released: b the send
 * buffer's bytes' time, alpha' the one-way latency); the terms are alpha'
 * up to k0 = (b + alpha') / x, then k x - b. */
static double senders_sum(const rabred_model_t *m, int p, double x)
{
    double all = (double)(p - 1) * p / 2 * x;
    double b = m->send_buffer * m->f_beta * m->beta, lat = m->f_alpha * m->alpha;
    if (b <= 0) {
        return all;
    }
    double k0 = x > 0 ? floor((b + lat) / x) : p - 1;
    k0 = k0 < p - 1 ? k0 : p - 1;
    return k0 * lat + all - k0 * (k0 + 1) / 2 * x - (p - 1 - k0) * b;
}

/* The reduce-scatter, then the root's in-port takes the p-1 blocks one
 * after another.  Priced by the average elapsed time (rabred_price.h): the
 * k-th sender is done after k one-way blocks, less what its send buffer
 * holds (senders_sum), the root after p-1. */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    int p = c->p;
    double n = rabred_price_block_bytes(c) * p, x = rabred_price_one_way(m, n / p);
    if (0 == c->bytes) {
        return 0; /* the plans drop empty messages */
    }
    return rabred_price_pairwise_reduce_scatter(m, p, n) +
           (senders_sum(m, p, x) + (double)(p - 1) * x) / p;
}

const rabred_alg_t rabred_alg_reduce_pairwise_gather = {
    .coll = RABRED_COLL_REDUCE,
    .id = 3,
    .name = "pairwise_gather",
    .alias = "ring", /* also accepted, in MCA values and rules files */
    .build = build,
    .restrictions = RABRED_NEEDS_COMMUTATIVE,
    .description = "pairwise gather: pairwise-exchange reduce-scatter, then every rank sends its "
                   "block straight to the root (Rabenseifner 2004 sec. 2.7); long vectors, small p",
    .formula = "2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma",
    .tuned_ids = {0},
    .price = price,
};
