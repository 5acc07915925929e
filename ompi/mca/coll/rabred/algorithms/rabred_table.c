/*
 * The algorithm table (see rabred_table.h).  Cost formulas use the model of
 * Rabenseifner 2004 sec. 2.1: alpha per message, beta per byte sent, gamma per byte
 * reduced, n bytes per rank, p' the largest power of two <= p, full duplex
 * (f_alpha = f_beta = 1).  The simulator's tests check each one.
 */
#include "algorithms/rabred_table.h"

#include <stddef.h>
#include <string.h>

#include "plan/rabred_nodes.h"
#include "plan/rabred_toolkit.h"

/* In id order (rabred_alg_t.id). */
static const rabred_alg_t *const allreduce_algs[] = {
    &rabred_alg_allreduce_recursive_doubling,
    &rabred_alg_allreduce_rabenseifner,
    &rabred_alg_allreduce_pairwise_ring,
    &rabred_alg_allreduce_linear,
    &rabred_alg_allreduce_binary_tree,
    &rabred_alg_allreduce_binary_blocks,
    &rabred_alg_allreduce_bruck,
    &rabred_alg_allreduce_neighbor_ring,
    &rabred_alg_allreduce_sorted_linear_tree,
    &rabred_alg_allreduce_prereduced_ring,
    &rabred_alg_allreduce_prereduced_scatter,
    &rabred_alg_allreduce_node_lanes,
    &rabred_alg_allreduce_node_leaders,
    &rabred_alg_allreduce_node_lanes_ring,
    &rabred_alg_allreduce_direct,
    &rabred_alg_allreduce_node_leaders_direct,
};

static const rabred_alg_t *const reduce_algs[] = {
    &rabred_alg_reduce_binomial,
    &rabred_alg_reduce_rabenseifner,
    &rabred_alg_reduce_pairwise_gather,
    &rabred_alg_reduce_linear,
    &rabred_alg_reduce_binary_tree,
    &rabred_alg_reduce_binary_blocks,
    &rabred_alg_reduce_pipeline,
    &rabred_alg_reduce_node_leaders,
    &rabred_alg_reduce_node_lanes,
    &rabred_alg_reduce_node_chain,
    &rabred_alg_reduce_node_leaders_direct,
};

static const rabred_alg_t *const *table(rabred_coll_t coll, int *size)
{
    if (RABRED_COLL_ALLREDUCE == coll) {
        *size = (int)(sizeof(allreduce_algs) / sizeof(allreduce_algs[0]));
        return allreduce_algs;
    }
    if (RABRED_COLL_REDUCE == coll) {
        *size = (int)(sizeof(reduce_algs) / sizeof(reduce_algs[0]));
        return reduce_algs;
    }
    *size = 0;
    return NULL;
}

const char *rabred_coll_name(rabred_coll_t coll)
{
    return RABRED_COLL_ALLREDUCE == coll ? "allreduce" : "reduce";
}

int rabred_table_size(rabred_coll_t coll)
{
    int size;
    (void)table(coll, &size);
    return size;
}

const rabred_alg_t *rabred_table_at(rabred_coll_t coll, int index)
{
    int size;
    const rabred_alg_t *const *algs = table(coll, &size);
    return (index >= 0 && index < size) ? algs[index] : NULL;
}

const rabred_alg_t *rabred_table_by_id(rabred_coll_t coll, int id)
{
    return rabred_table_at(coll, id - 1); /* the table is in id order */
}

const rabred_alg_t *rabred_table_by_name(rabred_coll_t coll, const char *name)
{
    int size;
    const rabred_alg_t *const *algs = table(coll, &size);
    for (int i = 0; i < size && NULL != name; i++) {
        if (0 == strcmp(algs[i]->name, name) ||
            (NULL != algs[i]->alias && 0 == strcmp(algs[i]->alias, name))) {
            return algs[i];
        }
    }
    return NULL;
}

const rabred_alg_t *rabred_table_by_tuned_id(rabred_coll_t coll, int tuned_id)
{
    int size;
    const rabred_alg_t *const *algs = table(coll, &size);
    for (int i = 0; i < size && tuned_id > 0; i++) {
        for (int k = 0; k < 3 && 0 != algs[i]->tuned_ids[k]; k++) {
            if (algs[i]->tuned_ids[k] == tuned_id) {
                return algs[i];
            }
        }
    }
    return NULL;
}

const char *rabred_alg_violation(const rabred_alg_t *alg, const rabred_call_t *call)
{
    if ((alg->restrictions & RABRED_NEEDS_COMMUTATIVE) && !call->commutative) {
        return "needs a commutative op";
    }
    if ((alg->restrictions & RABRED_NEEDS_COUNT_GE_POF2) &&
        call->count < rabred_pof2_floor(call->p)) {
        return "needs count >= p' (largest power of two <= p)";
    }
    if ((alg->restrictions & RABRED_NEEDS_COUNT_GE_P) && call->count < call->p) {
        return "needs count >= p";
    }
    if ((alg->restrictions & RABRED_NEEDS_ORDERED_NODES) && !call->commutative &&
        !rabred_nodes_ordered(call->nodes, call->p)) {
        return "needs consecutive ranks on each node for a non-commutative op";
    }
    return NULL;
}
