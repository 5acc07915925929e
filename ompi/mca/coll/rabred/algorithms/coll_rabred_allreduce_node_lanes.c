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

/* The lane rank that reduces the input of extra rank `local` (>= lanes). */
static int fold_target(const rabred_node_layout_t *l, int local, int commutative)
{
    return commutative ? (local - l->lanes) % l->lanes : l->lanes - 1;
}

/* Step 1 (and 5 with `out`): extras hand their input in, their target
 * reduces each behind its own, in rank order; at the end the target sends
 * the result back. */
static void fold_extras(rabred_plan_t *plan, const rabred_node_layout_t *l,
                        const rabred_plan_args_t *a, int out)
{
    if (l->local >= l->lanes) {
        int target = l->members[fold_target(l, l->local, a->commutative)];
        rabred_plan_round(plan);
        if (out) {
            rabred_plan_recv(plan, target, RABRED_BUF_ACC, 0, a->count);
        } else {
            rabred_plan_send(plan, target, RABRED_BUF_INPUT, 0, a->count);
        }
        return;
    }
    for (int j = l->lanes; j < l->nlocal; j++) {
        if (fold_target(l, j, a->commutative) != l->local) {
            continue;
        }
        if (out) {
            rabred_plan_round(plan);
            rabred_plan_send(plan, l->members[j], RABRED_BUF_ACC, 0, a->count);
        } else {
            rabred_plan_round(plan);
            rabred_plan_recv(plan, l->members[j], RABRED_BUF_TMP, 0, a->count);
            rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, 0, a->count, 0);
        }
    }
}

/* Steps 2-4 for one of the node's first L ranks; ACC holds its input. */
static int lanes(rabred_plan_t *plan, const rabred_node_layout_t *l, const rabred_plan_args_t *a)
{
    rabred_plan_view_t node = {l->members, 0, 1};
    rabred_plan_view(plan, &node);
    if (a->commutative) {
        rabred_phase_pairwise_reduce_scatter(plan, l->lanes, l->local, a->count);
    } else {
        rabred_phase_ordered_reduce_scatter(plan, l->lanes, l->local, a->count);
    }
    int64_t off = rabred_block_offset(a->count, l->lanes, l->local);
    int64_t len = rabred_block_length(a->count, l->lanes, l->local);
    rabred_plan_view_t lane = {l->lane, off, 1};
    rabred_plan_view(plan, &lane);
    const rabred_alg_t *across = a->commutative ? &rabred_alg_allreduce_pairwise_ring
                                                : &rabred_alg_allreduce_rabenseifner;
    rabred_plan_args_t inner = {l->nnodes, l->node, -1, len, a->commutative, 0, NULL, 1, NULL};
    int rc = across->build(&inner, plan);
    rabred_plan_view(plan, &node);
    rabred_phase_ring_allgather(plan, l->lanes, l->local, a->count);
    rabred_plan_view(plan, NULL);
    return rc;
}

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_node_layout_t l;
    int rc = rabred_node_layout(&l, a);
    if (RABRED_OK != rc) {
        return rc;
    }
    if (l.local < l.lanes) {
        rabred_phase_copy_in(plan, a->count);
    }
    fold_extras(plan, &l, a, 0);
    if (l.local < l.lanes) {
        rc = lanes(plan, &l, a);
    }
    fold_extras(plan, &l, a, 1);
    rabred_node_layout_free(&l);
    return RABRED_OK != rc ? rc : plan->error;
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
