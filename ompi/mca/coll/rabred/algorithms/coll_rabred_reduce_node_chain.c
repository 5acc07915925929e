/*
 * reduce: node_chain, the leader-based node-aware MPI_Reduce for long
 * vectors: the node leaders pass segments along a chain of nodes that ends
 * at the root's node, so the root's node link takes the vector once, and
 * every node link carries it at most once each way, all links busy at once
 * (the inter-node level of coll/han's pipelined reduce; the chain is
 * coll_rabred_reduce_pipeline.c run over the leaders).
 *
 * Steps (N nodes; a node's leader is its lowest rank; rabred_nodes.h)
 *  1. inside each node, reduce to the leader over the in-order binary tree
 *     (rabred_phase_tree_reduce: rank order);
 *  2. the leaders reduce to the leader of the root's node along the
 *     pipeline's chain, the vector cut into S segments: of
 *     coll_rabred_segment_size bytes (or a rule's segsize) when one is
 *     set, else S = 8 (N - 2) (chain_segment); a leader forwards segment
 *     k while segment k+1 arrives;
 *  3. that leader sends the result to the root, when it is not the root.
 *
 * Cost (intra alpha_i, beta_i; a segment of m = n/S bytes crosses the
 * network one way in x = alpha_e,uni + m beta_e,uni and is reduced in
 * r = m gamma): about 2 ceil(lg L) (alpha_i + n beta_i) + ceil(lg L) n
 * gamma inside nodes, (N - 2 + S) (x + r) along the chain (S = 1: the
 * plain chain, (N-1) (x + r), N - 1 whole vectors in turn), alpha_i +
 * n beta_i for the last hop.  Against node_leaders' binomial tree among
 * the leaders, ceil(lg N) whole vectors into the root's node: a chain
 * wins once n/S is small against n and S alpha_e is small against
 * ceil(lg N) n beta_e, that is for long vectors on several nodes.
 *
 * Limitations: non-commutative ops need each node's ranks consecutive
 * (RABRED_NEEDS_ORDERED_NODES); the chain then runs in node order.
 * Each segment costs its latency: on short vectors node_leaders' tree is
 * faster, and the price book says where.  Without a node map: the binary
 * tree to rank 0, then one hop.
 *
 * Memory per process: ACC (non-root) and TMP of count elements.
 */
#include "plan/rabred_nodes.h"
#include "algorithms/rabred_table.h"

/* Segments of the chain when no size is given: S = 8 (N - 2), so that
 * filling the chain (N - 2 segment times) is at most 1/9 of its time,
 * whatever the network; what each segment's latency costs is the price
 * book's to weigh: it prices S segments at every size (its samples are
 * long enough for them), so on short vectors the chain's price carries S
 * latencies and node_leaders wins there.  At most one segment per
 * element (a call of count <= S runs one segment, priced high: the error
 * only keeps the chain out); a chain of two nodes has no fill and no
 * segments. */
static int64_t chain_segment(int64_t count, int nnodes)
{
    int64_t nseg = nnodes > 2 ? 8 * (int64_t)(nnodes - 2) : 1;
    if (nseg > RABRED_PIPELINE_MAX_SEGMENTS) {
        nseg = RABRED_PIPELINE_MAX_SEGMENTS;
    }
    return nseg > 1 && count > nseg ? (count + nseg - 1) / nseg : 0;
}

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_node_layout_t l;
    int rc = rabred_node_layout(&l, a);
    if (RABRED_OK != rc) {
        return rc;
    }
    rabred_plan_args_t chained = *a;
    if (chained.seg_count <= 0) {
        chained.seg_count = chain_segment(a->count, l.nnodes);
    }
    rc = rabred_phase_node_leaders(&chained, &l, plan, rabred_alg_reduce_pipeline.build);
    rabred_phase_leader_to_root(plan, &l, a);
    rabred_node_layout_free(&l);
    return RABRED_OK != rc ? rc : plan->error;
}

const rabred_alg_t rabred_alg_reduce_node_chain = {
    .coll = RABRED_COLL_REDUCE,
    .id = 10,
    .name = "node_chain",
    .build = build,
    .restrictions = RABRED_NEEDS_ORDERED_NODES,
    .description = "node-aware chain: reduce to each node's lowest rank, the leaders pass "
                   "segments along a chain of nodes to the root's node, last hop to the root; "
                   "long vectors, many ranks per node",
    .formula = "2 ceil(lg L) (alpha_i + n beta_i) + ceil(lg L) n gamma + (N - 2 + S) "
               "(alpha_e,uni + n/S beta_e,uni + n/S gamma) + alpha_i + n beta_i",
    .segmented = 1,
    .node_aware = 1,
};
