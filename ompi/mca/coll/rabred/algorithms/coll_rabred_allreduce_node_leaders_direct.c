/*
 * allreduce: node_leaders_direct, the leader-based node-aware allreduce
 * with every message of a node phase in flight at once: node_leaders'
 * structure (one message per node crosses the network) with the node's
 * lg L tree and broadcast steps replaced by three groups posted at once.
 * For short vectors on nodes whose ranks do not take turns on one port
 * for messages inside the node (bench/scale's nodes of 16, where SMPI's
 * MVAPICH2 selector's flat shared-memory steps beat node_leaders' trees).
 *
 * Steps (N nodes, L ranks on a node; a node's leader is its lowest rank)
 *  1. inside each node, reduce-scatter by direct exchange over L blocks
 *     (rabred_phase_direct_reduce_scatter: rank order kept);
 *  2. inside each node, every rank sends its reduced block to the leader
 *     at once (rabred_phase_direct_gather);
 *  3. the leaders allreduce by recursive doubling (rank order, node order
 *     = rank order under block placement);
 *  4. the leader sends the result to every node-mate at once
 *     (rabred_phase_direct_bcast).
 *
 * Cost (intra alpha_i, beta_i; inter alpha_e, beta_e), ports taking turns:
 *   (L-1) (2 alpha_i + 2 n/L beta_i) + (1 - 1/L) n gamma
 *   + lg N (alpha_e + n beta_e + n gamma) + (L-1) (alpha_i + n beta_i);
 * where messages in flight pay their latency together, or a node's ports
 * do not take turns, each node phase costs about one alpha_i:
 *   3 alpha_i + ... + lg N (alpha_e + n beta_e + n gamma),
 * against node_leaders' 3 ceil(lg L) alpha_i.  The broadcast's (L-1) n
 * bytes from one rank make it a short-vector algorithm; the cost model
 * prices it by simulating the plan with the node's link as measured.
 *
 * Limitations: non-commutative ops need each node's ranks consecutive
 * (RABRED_NEEDS_ORDERED_NODES).  Below count L the node's reduce-scatter
 * runs as ordered steps (rabred_phase_direct_fits), priced as such.
 * Without a node map it is direct's reduce-scatter, a gather at rank 0
 * and a broadcast from it over the whole communicator.
 *
 * Memory per process: TMP of count elements (TMP2 when L - 1 blocks
 * outgrow it); L - 1 requests posted at once by each rank.
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
    rc = rabred_phase_node_leaders_direct(a, &l, plan,
                                          rabred_alg_allreduce_recursive_doubling.build);
    rabred_plan_view_t node = {l.members, 0, 1}; /* the result is in ACC */
    rabred_plan_view(plan, &node);
    rabred_phase_direct_bcast(plan, l.nlocal, l.local, a->count);
    rabred_plan_view(plan, NULL);
    rabred_node_layout_free(&l);
    return RABRED_OK != rc ? rc : plan->error;
}

const rabred_alg_t rabred_alg_allreduce_node_leaders_direct = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 16,
    .name = "node_leaders_direct",
    .build = build,
    .restrictions = RABRED_NEEDS_ORDERED_NODES,
    .description = "node-aware leaders, each node phase's messages posted at once: direct "
                   "reduce-scatter and gather to each node's lowest rank, recursive doubling "
                   "among the leaders, the leader sends the result to every node-mate at once; "
                   "short vectors where a node's ports do not take turns",
    .formula = "(L-1) (3 alpha_i + (2/L + 1) n beta_i) + (1 - 1/L) n gamma + lg N (alpha_e + n "
               "beta_e + n gamma)",
    .node_aware = 1,
};
