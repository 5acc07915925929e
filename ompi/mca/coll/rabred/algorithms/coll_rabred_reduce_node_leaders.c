/*
 * reduce: node_leaders, the leader-based node-aware MPI_Reduce for short
 * vectors: one message per node crosses the network.
 *
 * Steps (N nodes; a node's leader is its lowest rank; rabred_nodes.h)
 *  1. inside each node, reduce to the leader over the in-order binary tree
 *     (rabred_phase_tree_reduce: rank order);
 *  2. the leaders reduce to the leader of the root's node with the binomial
 *     tree (coll_rabred_reduce_binomial.c: rank order kept for any root);
 *  3. that leader sends the result to the root, when it is not the root.
 *
 * Cost: about 2 ceil(lg L) (alpha_i + n beta_i) + ceil(lg L) n gamma
 * inside nodes, ceil(lg N) (alpha_e + n beta_e + n gamma) across them,
 * alpha_i + n beta_i for the last hop.
 *
 * Limitations: non-commutative ops need each node's ranks consecutive
 * (RABRED_NEEDS_ORDERED_NODES).  Without a node map: a binary tree to rank
 * 0 and one forward to the root.
 *
 * Memory per process: ACC (non-root) and TMP of count elements.
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
    rc = rabred_phase_node_leaders(a, &l, plan, rabred_alg_reduce_binomial.build);
    rabred_phase_leader_to_root(plan, &l, a);
    rabred_node_layout_free(&l);
    return RABRED_OK != rc ? rc : plan->error;
}

const rabred_alg_t rabred_alg_reduce_node_leaders = {
    .coll = RABRED_COLL_REDUCE,
    .id = 8,
    .name = "node_leaders",
    .build = build,
    .restrictions = RABRED_NEEDS_ORDERED_NODES,
    .description = "node-aware leaders: reduce to each node's lowest rank, binomial tree among "
                   "the leaders to the root's node, last hop to the root; short vectors, many "
                   "ranks per node",
    .formula = "2 ceil(lg L) (alpha_i + n beta_i) + ceil(lg L) n gamma + ceil(lg N) (alpha_e + n "
               "beta_e + n gamma) + alpha_i + n beta_i",
    .node_aware = 1,
};
