/*
 * allreduce: node_lanes, the multi-lane node-aware allreduce (Traff &
 * Hunold 2020, "Decomposing MPI collectives for exploiting multi-lane
 * communication"; the same structure as NCCL's and UCC's hierarchical
 * allreduce): every rank of a node drives its own share of the network.
 *
 * Steps (N nodes, L ranks on the smallest node: the lanes; rabred_nodes.h)
 *  1. a rank beyond the L-th of its node (irregular nodes) sends its input
 *     to one of the node's first L ranks and waits; that one reduces it
 *     (commutative ops: spread over the L; otherwise all to the L-th,
 *     appended in rank order);
 *  2. the node's first L ranks reduce-scatter the vector over L blocks,
 *     inside the node (pairwise exchange; in rank order for
 *     non-commutative ops): local rank i holds block i of its node;
 *  3. lane i (local rank i of every node) allreduces block i across the N
 *     nodes with a flat algorithm run over the lane
 *     (pairwise_ring for commutative ops, rabenseifner otherwise): all L
 *     lanes at once, each node link carrying L streams of n/L;
 *  4. the first L ranks allgather the blocks inside the node (ring);
 *  5. each rank of step 1 receives the result.
 *
 * Cost (intra-node alpha_i, beta_i; inter-node alpha_e, beta_e; a node's
 * link shared by its L lanes, so each lane sees L beta_e):
 *   2 (L-1) alpha_i + 2 (1 - 1/L) n beta_i + (1 - 1/L) n gamma
 *   + 2 (N-1) alpha_e + 2 (1 - 1/N) n beta_e + (1 - 1/N) n/L gamma
 *   (+ 2 (alpha_i + n beta_i) + n gamma on nodes with more than L ranks).
 * The network term is the node-level bound 2 (N-1)/N n beta_e: a flat
 * ring over ranks placed round-robin moves about L times that through
 * each node link.
 *
 * Limitations: non-commutative ops need each node's ranks consecutive
 * (block placement), so that node order is rank order; otherwise the
 * selection falls back (RABRED_NEEDS_ORDERED_NODES).  Without a node map,
 * or with one rank per node, it is the flat pairwise_ring (or
 * rabenseifner) over the whole communicator, through steps 2-4.
 *
 * Memory per process: TMP of count elements.
 */
#include "plan/rabred_nodes.h"
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    const rabred_alg_t *across = a->commutative ? &rabred_alg_allreduce_pairwise_ring
                                                : &rabred_alg_allreduce_rabenseifner;
    return rabred_phase_node_lanes(a, plan, across->build);
}

const rabred_alg_t rabred_alg_allreduce_node_lanes = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 12,
    .name = "node_lanes",
    .build = build,
    .restrictions = RABRED_NEEDS_ORDERED_NODES,
    .description = "node-aware multi-lane: reduce-scatter inside each node, every local rank "
                   "allreduces its block across nodes (all lanes at once), allgather inside "
                   "the node (Traff & Hunold 2020); long vectors, many ranks per node",
    .formula = "2 (L-1) alpha_i + 2 (1 - 1/L) n beta_i + 2 (N-1) alpha_e + 2 (1 - 1/N) n "
               "beta_e + (1 - 1/L + (1 - 1/N)/L) n gamma",
    .node_aware = 1,
};
