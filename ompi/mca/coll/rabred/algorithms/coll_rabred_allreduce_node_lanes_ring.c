/*
 * allreduce: node_lanes_ring, the multi-lane node-aware allreduce with a
 * neighbour ring across the nodes (the structure of node_lanes,
 * coll_rabred_allreduce_node_lanes.c; lanes of Traff & Hunold 2020).
 *
 * Steps (N nodes, L lanes)
 *  1. ranks beyond the L-th of an irregular node hand their input to one of
 *     the first L and wait;
 *  2. the first L ranks of each node reduce-scatter the vector inside it
 *     (pairwise exchange over L blocks);
 *  3. lane i allreduces block i across the nodes with the neighbour ring
 *     (coll_rabred_allreduce_neighbor_ring.c: a one-way ring, cut into
 *     segments of coll_rabred_segment_size when set);
 *  4. allgather inside the node (ring); the ranks of step 1 get the result.
 *
 * Why a second multi-lane algorithm: node_lanes runs the pairwise-exchange
 * ring across nodes, whose steps exchange with one peer; this one only
 * sends to the next node and receives from the previous one.  Which is
 * faster is a property of the network (on the emulated TCP cluster an
 * exchange after another round runs 2.9x slower, coll_rabred_inter_repeat,
 * and the one-way ring wins); the two-level model prices both.
 *
 * Cost: as node_lanes, with the ring's (N-1) (S+1) alpha_e across nodes
 * (S segments per block) and only one-way messages on the network.
 *
 * Limitations: commutative ops only (the neighbour ring's blocks combine
 * out of rank order).  Without a node map: a pairwise reduce-scatter and
 * ring allgather over all ranks, around a ring over one "node".
 *
 * Memory per process: TMP of count elements.
 */
#include "plan/rabred_nodes.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    return rabred_phase_node_lanes(a, plan, rabred_alg_allreduce_neighbor_ring.build);
}

const rabred_alg_t rabred_alg_allreduce_node_lanes_ring = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 14,
    .name = "node_lanes_ring",
    .build = build,
    .restrictions = RABRED_NEEDS_COMMUTATIVE,
    .segmented = 1,
    .description = "node-aware multi-lane with a neighbour ring across nodes: reduce-scatter "
                   "inside each node, every local rank passes its block around the ring of "
                   "nodes, allgather inside the node; long vectors, networks where one-way "
                   "beats exchanges",
    .formula = "2 (L-1) alpha_i + 2 (1 - 1/L) n beta_i + (N-1) (S+1) alpha_e + 2 (1 - 1/N) n "
               "beta_e + (1 - 1/L + (1 - 1/N)/L) n gamma",
    .node_aware = 1,
};
