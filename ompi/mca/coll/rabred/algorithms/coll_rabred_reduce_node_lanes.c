/*
 * reduce: node_lanes, the multi-lane node-aware MPI_Reduce (the structure
 * of the allreduce of the same name, coll_rabred_allreduce_node_lanes.c;
 * lanes of Traff & Hunold 2020), to any root, the root's node last.
 *
 * Steps (N nodes, L lanes: the ranks of the smallest node)
 *  1. ranks beyond the L-th of an irregular node hand their input to one of
 *     the node's first L (commutative ops: spread; otherwise the L-th,
 *     appended in rank order) and are done;
 *  2. the first L ranks of each node reduce-scatter the vector inside it:
 *     local rank i holds block i of its node;
 *  3. lane i reduces block i across the nodes to its rank on the root's
 *     node (pairwise_gather for commutative ops, rabenseifner otherwise),
 *     all lanes at once;
 *  4. the lane ranks of the root's node send their blocks to the root.
 *
 * Cost (intra alpha_i, beta_i; the network's alpha_e, beta_e shared by a
 * node's L lanes): 2 (L-1)-ish alpha_i + (1 - 1/L) n beta_i for step 2,
 * about (N-1) (alpha_e + alpha_e,uni) + (1 - 1/N) n (beta_e + beta_e,uni)
 * per node link for step 3, (L-1) alpha_i + (1 - 1/L) n beta_i into the
 * root for step 4; (1 - 1/L + (1 - 1/N)/L) n gamma.
 *
 * Limitations: non-commutative ops need each node's ranks consecutive
 * (RABRED_NEEDS_ORDERED_NODES).  Without a node map: a reduce-scatter over
 * all ranks and a gather of the blocks to the root.
 *
 * Memory per process: ACC (non-root) and TMP of count elements.
 */
#include "plan/rabred_nodes.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    const rabred_alg_t *across = a->commutative ? &rabred_alg_reduce_pairwise_gather
                                                : &rabred_alg_reduce_rabenseifner;
    return rabred_phase_node_lanes(a, plan, across->build);
}

const rabred_alg_t rabred_alg_reduce_node_lanes = {
    .coll = RABRED_COLL_REDUCE,
    .id = 9,
    .name = "node_lanes",
    .build = build,
    .restrictions = RABRED_NEEDS_ORDERED_NODES,
    .description = "node-aware multi-lane: reduce-scatter inside each node, every local rank "
                   "reduces its block across nodes to its peer on the root's node, which send "
                   "the blocks to the root; long vectors, many ranks per node",
    .formula = "(L-1) alpha_i + (1 - 1/L) n beta_i + (N-1) (alpha_e + alpha_e,uni) + (1 - 1/N) "
               "n (beta_e + beta_e,uni) + (L-1) alpha_i + (1 - 1/L) n beta_i + (1 - 1/L + (1 - "
               "1/N)/L) n gamma",
    .node_aware = 1,
};
