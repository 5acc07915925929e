/*
 * allreduce: pairwise_ring (Rabenseifner, ICCS 2004, sec. 2.7, "ring"; Thakur & Gropp).
 *
 * Steps
 *  1. copy the input into ACC;
 *  2. reduce-scatter by pairwise exchange over p blocks: at step i the rank
 *     sends block rank+i to rank+i and reduces block rank received from
 *     rank-i (rabred_phase_pairwise_reduce_scatter);
 *  3. allgather on the ring: p-1 steps passing blocks to rank+1.
 *
 * Cost: 2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma, for any p
 * (no fold): bandwidth-optimal for every p, but latency grows with p.
 *
 * Limitations: commutative ops only (a block gathers contributions in the
 * order rank-1, rank-2, ...).  Every block is reduced on one rank only and
 * then copied, so all ranks get the same bits.
 *
 * Memory per process: TMP of count elements (only one block of it is used).
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_phase_copy_in(plan, a->count);
    rabred_phase_pairwise_reduce_scatter(plan, a->p, a->rank, a->count);
    rabred_phase_ring_allgather(plan, a->p, a->rank, a->count);
    return plan->error;
}

/* The reduce-scatter, then the neighbour allgather (p-1 one-way steps of a
 * block; at p = 2 an exchange). */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    double n = rabred_price_block_bytes(c) * c->p;
    if (0 == c->bytes) {
        return 0; /* the plans drop empty messages */
    }
    return rabred_price_pairwise_reduce_scatter(m, c->p, n) +
           (c->p - 1) * rabred_price_neighbour(m, c->p, n / c->p);
}

const rabred_alg_t rabred_alg_allreduce_pairwise_ring = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 3,
    .name = "pairwise_ring",
    .alias = "ring", /* also accepted, in MCA values and rules files */
    .build = build,
    .restrictions = RABRED_NEEDS_COMMUTATIVE,
    .description = "pairwise ring: pairwise-exchange reduce-scatter + ring allgather over p "
                   "blocks, any p without a fold (Rabenseifner 2004 sec. 2.7); long vectors, small p",
    .formula = "2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma",
    .tuned_ids = {4},
    .price = price,
};
