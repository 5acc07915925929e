/*
 * reduce: node_leaders_direct, the leader-based node-aware MPI_Reduce
 * with every message of a node phase in flight at once (the allreduce of
 * the same name up to the leaders, then node_leaders' binomial tree):
 * for short vectors on nodes whose messages in flight do not take turns
 * on a port (parallel_ports).
 *
 * Steps (N nodes, L ranks on a node; a node's leader is its lowest rank)
 *  1. inside each node, reduce-scatter by direct exchange over L blocks
 *     (rabred_phase_direct_reduce_scatter: rank order kept);
 *  2. inside each node, every rank sends its reduced block to the leader
 *     at once (rabred_phase_direct_gather);
 *  3. the leaders reduce to the leader of the root's node with the
 *     binomial tree (coll_rabred_reduce_binomial.c: rank order kept);
 *  4. that leader sends the result to the root, when it is not the root.
 *
 * Cost, ports taking turns: (L-1) (2 alpha_i + 2 n/L beta_i) + (1 - 1/L)
 * n gamma inside nodes, ceil(lg N) (alpha_e + n beta_e + n gamma) across
 * them, alpha_i + n beta_i for the last hop; where a node's messages in
 * flight do not wait for each other, about 2 alpha_i + 2 n/L beta_i
 * inside nodes (node_leaders' tree: 2 ceil(lg L) alpha_i).
 *
 * Limitations: non-commutative ops need each node's ranks consecutive
 * (RABRED_NEEDS_ORDERED_NODES).  Below count L the node's reduce-scatter
 * runs as ordered steps (rabred_phase_direct_fits), priced as such.
 *
 * Memory per process: ACC and TMP of count elements (TMP2 when L - 1
 * blocks outgrow TMP); L - 1 requests posted at once by each rank.
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
    rc = rabred_phase_node_leaders_direct(a, &l, plan, rabred_alg_reduce_binomial.build);
    rabred_phase_leader_to_root(plan, &l, a);
    rabred_node_layout_free(&l);
    return RABRED_OK != rc ? rc : plan->error;
}

const rabred_alg_t rabred_alg_reduce_node_leaders_direct = {
    .coll = RABRED_COLL_REDUCE,
    .id = 11,
    .name = "node_leaders_direct",
    .build = build,
    .restrictions = RABRED_NEEDS_ORDERED_NODES,
    .description = "node-aware leaders, each node phase's messages posted at once: direct "
                   "reduce-scatter and gather to each node's lowest rank, binomial tree among "
                   "the leaders to the root's node, last hop to the root; short vectors where a "
                   "node's ports do not take turns",
    .formula = "(L-1) (2 alpha_i + 2 n/L beta_i) + (1 - 1/L) n gamma + ceil(lg N) (alpha_e + n "
               "beta_e + n gamma) + alpha_i + n beta_i",
    .node_aware = 1,
};
