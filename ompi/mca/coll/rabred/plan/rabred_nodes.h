/*
 * A rank's view of the node map (rabred_nodes_t): its node, its place
 * among the node's ranks, the lanes (the ranks with the same local index
 * on every node) and the node leaders, as the node-aware algorithms use
 * them.  Nodes are numbered by their lowest rank, whatever numbering the
 * map came with, so that node order follows rank order wherever it can.
 */
#ifndef RABRED_NODES_H
#define RABRED_NODES_H

#include <stdint.h>

#include "plan/rabred_plan.h"

/* A node map grouped once for all its ranks, so that each rank's layout
 * (below) is read in O(1) instead of grouping the map again in O(p): the
 * simulator, which builds a plan for every rank, prepares one per run.
 * Two orders of a node's ranks: 0 ascending, 1 by (place, rank) (the
 * order commutative ops take when rabred_nodes_t has place_of; without
 * it order 1 shares order 0's arrays). */
typedef struct rabred_node_groups {
    int p, nnodes;      /* ranks, nodes (numbered by lowest rank) */
    int lanes;          /* ranks on the smallest node */
    int ordered;        /* rabred_nodes_ordered */
    int32_t *node;      /* p: each rank's node */
    int32_t *start;     /* nnodes + 1: node n's ranks are ranks[o][start[n] .. start[n + 1]) */
    int32_t *ranks[2];  /* p: the ranks grouped by node, in order o */
    int32_t *local[2];  /* p: each rank's index among its node's ranks in order o */
    int32_t *lane[2];   /* lanes x nnodes: [i * nnodes + n] = local index i on node n */
    int32_t *leaders[2]; /* nnodes: each node's first rank in order o */
    int32_t *no_lane;   /* nnodes times -1: the lane of a rank beyond the lanes */
} rabred_node_groups_t;

/* Groups `nodes` (NULL: one node) for p ranks.  RABRED_OK, RABRED_ERR_NOMEM,
 * or RABRED_ERR_ARG for a map with a node outside 0..nnodes-1.  Free with
 * rabred_node_groups_free (also after a failure). */
int rabred_node_groups_make(rabred_node_groups_t *g, const rabred_nodes_t *nodes, int p);
void rabred_node_groups_free(rabred_node_groups_t *g);

/* One rank's view; the arrays point into the map's groups (or into
 * `own`, made for this layout when the map has none) and stay valid until
 * rabred_node_layout_free. */
typedef struct {
    int node, nnodes;  /* this rank's node (numbered by lowest rank), how many nodes */
    int local, nlocal; /* this rank's index among its node's ranks (ascending), how many */
    int lanes;         /* ranks on the smallest node: the lanes every node has */
    const int32_t *members; /* nlocal: this node's ranks, ascending (commutative ops with a
                             * place_of: by (place, rank), rabred_nodes_t) */
    const int32_t *lane;    /* nnodes: rank of local index `local` on every node, or -1
                             * on every node when local >= lanes */
    const int32_t *leaders; /* nnodes: each node's first member (its lowest rank, also
                             * with the runtime's places, rabred_nodes_t), in node order */
    int root_node, root_local; /* MPI_Reduce: the root's node and index there; else -1 */
    /* 1 when every node's ranks are consecutive (block placement): combining
     * inside nodes, then across nodes in node order, is rank order */
    int ordered;
    rabred_node_groups_t *own; /* the grouping made for this layout, or NULL */
} rabred_node_layout_t;

/* The layout of args->rank under args->nodes (NULL: one node of all
 * ranks), from args->nodes->groups when it was made for args->p ranks.
 * RABRED_OK, RABRED_ERR_NOMEM, or RABRED_ERR_ARG for a map with a node
 * outside 0..nnodes-1 or a rank or root outside 0..p-1.  Free with
 * rabred_node_layout_free. */
int rabred_node_layout(rabred_node_layout_t *l, const rabred_plan_args_t *args);
void rabred_node_layout_free(rabred_node_layout_t *l);

/* Are the ranks of every node consecutive (NULL: one node, yes)?  O(p). */
int rabred_nodes_ordered(const rabred_nodes_t *nodes, int p);

/* Does the map put several ranks on some node and use two or more nodes
 * (NULL: no)?  Only then is a node-aware plan different from a flat one. */
int rabred_nodes_matter(const rabred_nodes_t *nodes, int p);

/* A node map from text, for tests and tools (every rank must give the
 * same): "block:L" puts ranks 0..L-1 on the first node, L..2L-1 on the
 * next (the last may hold fewer: Open MPI's --map-by slot); "cyclic:N"
 * puts rank r on node r mod N (--map-by node); "list:A,B,..." gives each
 * of the p ranks' node by any labels 0..p-1.  node_of (p entries)
 * receives nodes numbered by lowest rank, *nnodes how many.  RABRED_OK,
 * or RABRED_ERR_ARG for anything else (L or N below 1, a list not of
 * p labels).  L or N above p counts as p. */
int rabred_nodes_parse(const char *spec, int p, int32_t *node_of, int *nnodes);

/* The multi-lane node-aware allreduce (coll_rabred_allreduce_node_lanes.c
 * has its steps and cost): extras of irregular nodes fold in, the first L
 * ranks of every node reduce-scatter inside it (pairwise exchange; in rank
 * order for non-commutative ops), lane i allreduces block i across the
 * nodes with `across` (a flat allreduce builder run over the lane, in
 * place), the node allgathers, the extras get the result.  For MPI_Reduce
 * (a->root >= 0) `across` is a flat reduce builder whose root is the lane
 * rank on the root's node, and those lane ranks then send their blocks to
 * the root (coll_rabred_reduce_node_lanes.c).  Returns the builder's
 * status. */
int rabred_phase_node_lanes(const rabred_plan_args_t *a, rabred_plan_t *plan,
                            rabred_plan_builder_fn across);

/* The opening of the leader-based node-aware algorithms
 * (coll_rabred_{allreduce,reduce}_node_leaders.c, coll_rabred_reduce_node_chain.c):
 * each node reduces to its leader over the in-order binary tree, then the
 * leaders run `across` (a flat builder, in place, with a->seg_count;
 * allreduce, or reduce to the root's node's leader when a->root >= 0).  The plan is left under the node's view or
 * the leaders'; the caller sets the next.  Returns `across`'s status. */
int rabred_phase_node_leaders(const rabred_plan_args_t *a, const rabred_node_layout_t *l,
                              rabred_plan_t *plan, rabred_plan_builder_fn across);

/* The same opening with every message of a node phase in flight at once:
 * each node reduce-scatters by direct exchange and gathers the blocks at
 * its leader (rabred_phase_direct_reduce_scatter, _direct_gather; rank
 * order kept), then the leaders run `across` (coll_rabred_allreduce_node_leaders_direct.c). */
int rabred_phase_node_leaders_direct(const rabred_plan_args_t *a, const rabred_node_layout_t *l,
                                     rabred_plan_t *plan, rabred_plan_builder_fn across);

/* The closing of the leader-based MPI_Reduce: the leader of the root's
 * node sends the result to the root, when it is not the root itself.
 * Ends any view first. */
void rabred_phase_leader_to_root(rabred_plan_t *plan, const rabred_node_layout_t *l,
                                 const rabred_plan_args_t *a);

#endif /* RABRED_NODES_H */
