/*
 * reduce: Rabenseifner's reduce-scatter + binomial gather
 * (Rabenseifner, ICCS 2004, sec. 2.5; MPICH patch of seed 003).
 *
 * Steps
 *  1. copy the input into ACC (ACC is a temporary on ranks other than root);
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
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_fold_t fold;
    rabred_fold_init(&fold, a->p, a->rank, a->root);

    rabred_phase_copy_in(plan, a->count);
    rabred_phase_fold_halves(plan, &fold, a->count);
    if (RABRED_NODE_EXTRA == fold.kind) {
        return plan->error;
    }
    rabred_team_t team = rabred_team_of_fold(&fold);
    rabred_halving_t halving;
    rabred_halving_init(&halving, fold.pof2, fold.vrank);
    rabred_phase_reduce_scatter(plan, &team, &halving, a->count);
    rabred_phase_gather(plan, &team, &halving, a->count, rabred_fold_vrank_of(&fold, a->root));
    return plan->error;
}

const rabred_alg_t rabred_alg_reduce_rabenseifner = {
    .coll = RABRED_COLL_REDUCE,
    .id = 2,
    .name = "rabenseifner",
    .build = build,
    .restrictions = RABRED_NEEDS_COUNT_GE_POF2,
    .description = "Rabenseifner: reduce-scatter by recursive halving + binomial gather to the "
                   "root; a root among the folded pairs is the rank kept (seed 000 sec. 2.5, seed "
                   "003)",
    .formula = "p = p': 2 lg p alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma; else (2 lg p' + "
               "2) alpha + (3 - 2/p') n beta + (3/2 - 1/p') n gamma",
    .tuned_ids = {7},
};
