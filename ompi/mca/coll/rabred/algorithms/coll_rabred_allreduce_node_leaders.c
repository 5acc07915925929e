/*
 * allreduce: node_leaders, the leader-based node-aware allreduce for
 * short vectors (the SMP-aware allreduce of MPICH and coll/han's
 * reduce-allreduce-bcast): one message per node crosses the network.
 *
 * Steps (N nodes; a node's leader is its lowest rank; rabred_nodes.h)
 *  1. inside each node, reduce to the leader over the in-order binary tree
 *     (rabred_phase_tree_reduce: rank order);
 *  2. the leaders allreduce by recursive doubling (rank order, node order
 *     = rank order under block placement);
 *  3. inside each node, the leader broadcasts the result (binomial).
 *
 * Cost (L ranks per node, intra alpha_i, beta_i; inter alpha_e, beta_e):
 *   (2 ceil(lg L) + ...) (alpha_i + n beta_i + n gamma) for the tree,
 *   lg N (alpha_e + n beta_e + n gamma) (+ 2 for a fold when N is not a
 *   power of two), ceil(lg L) (alpha_i + n beta_i) for the broadcast.
 * Against flat recursive doubling over p = N L ranks it replaces lg L
 * network rounds by cheaper shared-memory ones.
 *
 * Limitations: non-commutative ops need each node's ranks consecutive
 * (RABRED_NEEDS_ORDERED_NODES).  Without a node map it is the binary
 * tree reduce followed by a broadcast over the whole communicator.
 *
 * Memory per process: TMP of count elements.
 */
#include "plan/rabred_nodes.h"
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_node_layout_t l;
    int rc = rabred_node_layout(&l, a);
    if (RABRED_OK != rc) {
        return rc;
    }
    rc = rabred_phase_node_leaders(a, &l, plan, rabred_alg_allreduce_recursive_doubling.build);
    rabred_plan_view_t node = {l.members, 0, 1}; /* the result is in ACC */
    rabred_plan_view(plan, &node);
    rabred_phase_bcast(plan, l.nlocal, l.local, a->count);
    rabred_plan_view(plan, NULL);
    rabred_node_layout_free(&l);
    return RABRED_OK != rc ? rc : plan->error;
}

const rabred_alg_t rabred_alg_allreduce_node_leaders = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 13,
    .name = "node_leaders",
    .build = build,
    .restrictions = RABRED_NEEDS_ORDERED_NODES,
    .description = "node-aware leaders: reduce to each node's lowest rank, recursive doubling "
                   "among the leaders, broadcast inside the node; short vectors, many ranks per "
                   "node",
    .formula = "2 ceil(lg L) (alpha_i + n beta_i) + ceil(lg L) n gamma + lg N (alpha_e + n "
               "beta_e + n gamma)",
    .node_aware = 1,
};
