/*
 * allreduce: ring (Rabenseifner, ICCS 2004, sec. 2.7; Thakur & Gropp).
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
#include "rabred_phases.h"
#include "rabred_table.h"

int rabred_build_allreduce_ring(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_phase_copy_in(plan, a->count);
    rabred_phase_pairwise_reduce_scatter(plan, a->p, a->rank, a->count);
    rabred_phase_ring_allgather(plan, a->p, a->rank, a->count);
    return plan->error;
}
