/*
 * allreduce: sorted linear tree (Proficz 2018, sec. 4.1, Figs. 5
 * and 6), the pipelined linear tree with the ranks put in arrival order.
 *
 * Steps
 *  1. sort the ranks by arrival offset, earliest first, ties by rank
 *     (rabred_arrival_order); with no offsets (args->arrival NULL) this is
 *     rank order and the algorithm is the plain pipelined linear tree;
 *  2. cut the vector into p segments (the toolkit's blocks of p) and copy
 *     the input into ACC;
 *  3. reduce along the line: the earliest rank sends each segment to the
 *     next one, which adds its own part and passes it on, and so on to the
 *     latest rank, which ends with every segment complete.  Segments follow
 *     one another down the line, so all links work at once;
 *  4. the latest rank sends each finished segment to the earliest, which
 *     passes it on down the line to the last-but-one (the same links again,
 *     around the ring), each rank overwriting its partial sum.
 * Both phases are one rabred_phase_segment_chains with every segment
 * starting at the earliest rank.  Why it helps: a late rank only has to
 * arrive in time for the end of the reduction; the early ranks have
 * already summed what they have among themselves.
 *
 * Cost, balanced arrival, f_alpha = f_beta = 1, s = n/p: 3 (p-1) steps; a
 * step that reduces costs alpha + s beta + s gamma, one that forwards a
 * result alpha + s beta, and the slowest stage sets the pace, so
 *   2 (p-1) (alpha + s (beta + gamma)) + (p-1) (alpha + s beta)
 *   = 3 (p-1) alpha + 3 (1 - 1/p) n beta + 2 (1 - 1/p) n gamma
 * (p-1 steps to fill the line, p to drain it, p-1 to hand the last result
 * down; test_costs_allreduce checks this for every p up to 1024).  About
 * 1.5 times the ring's bandwidth and p-1 more alpha: a loser when all ranks
 * arrive together, a winner when one rank is late enough (Proficz 2018 Table 3,
 * 48 ranks: 0.75 of the ring's speed at no delay, 1.15 at 50 ms).
 *
 * Limitations: commutative ops only (ranks are combined in arrival order).
 * Every segment is reduced once, on the latest rank, and copied: all ranks
 * get the same bits.  The arrival offsets must be the same on every rank.
 * Not priced by the balanced cost model (arrival_aware in the table).
 *
 * Memory per process: TMP of count elements (one segment used at a time),
 * and 2p ints while the plan is built.
 */
#include <stdlib.h>

#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"
#include "plan/rabred_toolkit.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    int *ring = malloc(2 * (size_t)a->p * sizeof(int));
    if (NULL == ring) {
        return RABRED_ERR_NOMEM;
    }
    int *start = ring + a->p;
    rabred_arrival_order(a->p, NULL != a->arrival ? a->arrival->offset : NULL, ring);
    for (int j = 0; j < a->p; j++) {
        start[j] = 0; /* every segment starts at the earliest rank */
    }
    rabred_phase_segment_chains(plan, a->p, ring, a->rank, start, a->count,
                                    !a->in_place && a->commutative);
    free(ring);
    return plan->error;
}

const rabred_alg_t rabred_alg_allreduce_sorted_linear_tree = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 9,
    .name = "sorted_linear_tree",
    .build = build,
    .restrictions = RABRED_NEEDS_COMMUTATIVE,
    .arrival_aware = 1,
    .description = "sorted linear tree: ranks sorted by arrival offset, p segments pipelined down "
                   "the line to the latest rank and its results around to the others (Proficz 2018 "
                   "sec. 4.1); for imbalanced arrival, never chosen by the balanced decision",
    .formula = "balanced: 3 (p-1) alpha + 3 (1 - 1/p) n beta + 2 (1 - 1/p) n gamma",
    .tuned_ids = {0},
};
