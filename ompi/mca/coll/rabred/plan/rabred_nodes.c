/*
 * Node layouts for the node-aware algorithms (see rabred_nodes.h).
 */
#include "plan/rabred_nodes.h"

#include "plan/rabred_phases.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int node_of(const rabred_nodes_t *nodes, int r)
{
    return NULL != nodes ? nodes->node_of[r] : 0;
}

static int valid(const rabred_nodes_t *nodes, int p)
{
    if (NULL == nodes) {
        return 1;
    }
    if (nodes->nnodes < 1 || NULL == nodes->node_of) {
        return 0;
    }
    for (int r = 0; r < p; r++) {
        if (nodes->node_of[r] < 0 || nodes->node_of[r] >= nodes->nnodes) {
            return 0;
        }
    }
    return 1;
}

int rabred_nodes_ordered(const rabred_nodes_t *nodes, int p)
{
    if (NULL == nodes || !valid(nodes, p)) {
        return NULL == nodes;
    }
    char *closed = calloc((size_t)nodes->nnodes, 1); /* nodes left behind */
    if (NULL == closed) {
        return 0; /* cannot tell: treat as unordered (the flat fallback) */
    }
    int ordered = 1;
    for (int r = 1; r < p && ordered; r++) {
        int prev = nodes->node_of[r - 1], cur = nodes->node_of[r];
        if (cur != prev) {
            closed[prev] = 1;
            ordered = !closed[cur];
        }
    }
    free(closed);
    return ordered;
}

int rabred_nodes_matter(const rabred_nodes_t *nodes, int p)
{
    if (NULL == nodes || !valid(nodes, p) || nodes->nnodes < 2) {
        return 0;
    }
    return nodes->nnodes < p; /* some node holds two ranks */
}

/* Renumber nodes by lowest rank into id[] (p entries); returns how many. */
static int renumber(const rabred_nodes_t *nodes, int p, int32_t *id, int32_t *seen)
{
    int n = 0;
    for (int r = 0; r < p; r++) {
        int raw = node_of(nodes, r);
        if (seen[raw] < 0) {
            seen[raw] = n++;
        }
        id[r] = seen[raw];
    }
    return n;
}

typedef struct {
    int64_t place;
    int32_t rank;
} placed_rank_t;

static int by_place(const void *a, const void *b)
{
    const placed_rank_t *x = a, *y = b;
    if (x->place != y->place) {
        return x->place < y->place ? -1 : 1;
    }
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The order in which group() takes ranks: ascending, or by (place, rank)
 * when the op lets a node's ranks combine in any order and the places are
 * known.  The node's lowest rank keeps the lowest place (places are
 * labelled by lowest rank), so leaders do not change.  RABRED_OK or
 * RABRED_ERR_NOMEM. */
static int rank_order(const rabred_plan_args_t *a, int32_t *order)
{
    for (int r = 0; r < a->p; r++) {
        order[r] = r;
    }
    if (!a->commutative || NULL == a->nodes || NULL == a->nodes->place_of) {
        return RABRED_OK;
    }
    placed_rank_t *pr = malloc((size_t)a->p * sizeof(*pr));
    if (NULL == pr) {
        return RABRED_ERR_NOMEM;
    }
    for (int r = 0; r < a->p; r++) {
        pr[r].place = a->nodes->place_of[r];
        pr[r].rank = r;
    }
    qsort(pr, (size_t)a->p, sizeof(*pr), by_place);
    for (int r = 0; r < a->p; r++) {
        order[r] = pr[r].rank;
    }
    free(pr);
    return RABRED_OK;
}

/* Ranks grouped by node, in `order` inside a node: byrank[start[n] ..
 * start[n + 1]) are node n's ranks. */
static void group(const int32_t *id, const int32_t *order, int p, int nnodes, int32_t *start,
                  int32_t *byrank)
{
    memset(start, 0, (size_t)(nnodes + 1) * sizeof(int32_t));
    for (int r = 0; r < p; r++) {
        start[id[r] + 1]++;
    }
    for (int n = 0; n < nnodes; n++) {
        start[n + 1] += start[n];
    }
    int32_t *fill = start + nnodes + 1; /* nnodes more slots after start */
    memcpy(fill, start, (size_t)nnodes * sizeof(int32_t));
    for (int k = 0; k < p; k++) {
        byrank[fill[id[order[k]]]++] = order[k];
    }
}

static void fill_layout(rabred_node_layout_t *l, const int32_t *id, const int32_t *start,
                        const int32_t *byrank, int rank, int root)
{
    l->node = id[rank];
    l->nlocal = start[l->node + 1] - start[l->node];
    l->lanes = l->nlocal;
    for (int n = 0; n < l->nnodes; n++) {
        int size = start[n + 1] - start[n];
        l->lanes = size < l->lanes ? size : l->lanes;
        l->leaders[n] = byrank[start[n]];
    }
    for (int i = 0; i < l->nlocal; i++) {
        l->members[i] = byrank[start[l->node] + i];
        if (rank == l->members[i]) {
            l->local = i;
        }
    }
    for (int n = 0; n < l->nnodes; n++) {
        l->lane[n] = l->local < l->lanes ? byrank[start[n] + l->local] : -1;
    }
    l->root_node = l->root_local = -1;
    if (root >= 0) {
        l->root_node = id[root];
        for (int i = start[l->root_node]; i < start[l->root_node + 1]; i++) {
            l->root_local = byrank[i] == root ? i - start[l->root_node] : l->root_local;
        }
    }
}

int rabred_node_layout(rabred_node_layout_t *l, const rabred_plan_args_t *a)
{
    memset(l, 0, sizeof(*l));
    int p = a->p, raw_nodes = NULL != a->nodes ? a->nodes->nnodes : 1;
    if (!valid(a->nodes, p)) {
        return RABRED_ERR_ARG;
    }
    /* scratch: id[p], seen[raw_nodes], start[2 * (raw_nodes + 1)], byrank[p], order[p] */
    size_t words = 3 * (size_t)p + 3 * (size_t)raw_nodes + 2;
    int32_t *scratch = malloc(words * sizeof(int32_t));
    if (NULL == scratch) {
        return RABRED_ERR_NOMEM;
    }
    int32_t *id = scratch, *seen = id + p, *start = seen + raw_nodes;
    int32_t *byrank = start + 2 * (raw_nodes + 1), *order = byrank + p;
    for (int n = 0; n < raw_nodes; n++) {
        seen[n] = -1;
    }
    if (RABRED_OK != rank_order(a, order)) {
        free(scratch);
        return RABRED_ERR_NOMEM;
    }
    l->nnodes = renumber(a->nodes, p, id, seen);
    group(id, order, p, l->nnodes, start, byrank);
    l->members = malloc((size_t)p * sizeof(int32_t));
    l->lane = malloc((size_t)l->nnodes * sizeof(int32_t));
    l->leaders = malloc((size_t)l->nnodes * sizeof(int32_t));
    if (NULL == l->members || NULL == l->lane || NULL == l->leaders) {
        free(scratch);
        rabred_node_layout_free(l);
        return RABRED_ERR_NOMEM;
    }
    fill_layout(l, id, start, byrank, a->rank, a->root);
    l->ordered = rabred_nodes_ordered(a->nodes, p);
    free(scratch);
    return RABRED_OK;
}

void rabred_node_layout_free(rabred_node_layout_t *l)
{
    free(l->members);
    free(l->lane);
    free(l->leaders);
    memset(l, 0, sizeof(*l));
}

/* A whole number in 0..max at *s (advanced past it), or -1. */
static long parse_count(const char **s, long max)
{
    char *end;
    errno = 0;
    long v = strtol(*s, &end, 10);
    if (end == *s || errno || v < 0 || v > max || '-' == **s || '+' == **s) {
        return -1;
    }
    *s = end;
    return v;
}

/* node_of[r] = labels given per rank; renumbered by lowest rank. */
static int parse_list(const char *s, int p, int32_t *node_of)
{
    for (int r = 0; r < p; r++) {
        long v = parse_count(&s, p - 1);
        if (v < 0 || (r + 1 < p ? ',' != *s++ : '\0' != *s)) {
            return RABRED_ERR_ARG;
        }
        node_of[r] = (int32_t)v;
    }
    return RABRED_OK;
}

int rabred_nodes_parse(const char *spec, int p, int32_t *node_of, int *nnodes)
{
    if (NULL == spec || p < 1) {
        return RABRED_ERR_ARG;
    }
    const char *s = strchr(spec, ':');
    if (NULL == s) {
        return RABRED_ERR_ARG;
    }
    size_t kind = (size_t)(s++ - spec);
    if (4 == kind && 0 == strncmp(spec, "list", 4)) {
        if (RABRED_OK != parse_list(s, p, node_of)) {
            return RABRED_ERR_ARG;
        }
    } else {
        long k = parse_count(&s, INT32_MAX);
        int block = 5 == kind && 0 == strncmp(spec, "block", 5);
        int cyclic = 6 == kind && 0 == strncmp(spec, "cyclic", 6);
        if (k < 1 || '\0' != *s || !(block || cyclic)) {
            return RABRED_ERR_ARG;
        }
        k = k < p ? k : p; /* a communicator smaller than a node: one node (block) or one
                            * rank per node (cyclic) */
        for (int r = 0; r < p; r++) {
            node_of[r] = (int32_t)(block ? r / k : r % k);
        }
    }
    int32_t *seen = malloc((size_t)p * sizeof(int32_t));
    if (NULL == seen) {
        return RABRED_ERR_NOMEM;
    }
    for (int n = 0; n < p; n++) {
        seen[n] = -1;
    }
    rabred_nodes_t raw = {p, node_of, NULL};
    *nnodes = renumber(&raw, p, node_of, seen); /* in place: each rank read before written */
    free(seen);
    return RABRED_OK;
}

/* ---- the multi-lane composition (rabred_phase_node_lanes) ---------------- */

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
static int lanes(rabred_plan_t *plan, const rabred_node_layout_t *l, const rabred_plan_args_t *a,
                 rabred_plan_builder_fn across)
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
    int reduce = a->root >= 0;
    rabred_plan_args_t inner = {l->nnodes, l->node, reduce ? l->root_node : -1, len,
                                a->commutative, a->seg_count, NULL, 1, NULL};
    int rc = across(&inner, plan);
    if (!reduce) {
        rabred_plan_view(plan, &node);
        rabred_phase_ring_allgather(plan, l->lanes, l->local, a->count);
    }
    rabred_plan_view(plan, NULL);
    return rc;
}

/* MPI_Reduce's last step: the lane ranks of the root's node hold one
 * block each; they send them to the root (itself a lane rank, or a rank
 * beyond the lanes of an irregular node). */
static void gather_to_root(rabred_plan_t *plan, const rabred_node_layout_t *l,
                           const rabred_plan_args_t *a)
{
    if (l->node != l->root_node) {
        return;
    }
    rabred_plan_round(plan);
    if (a->rank != a->root && l->local < l->lanes) {
        rabred_plan_send(plan, a->root, RABRED_BUF_ACC,
                         rabred_block_offset(a->count, l->lanes, l->local),
                         rabred_block_length(a->count, l->lanes, l->local));
    }
    for (int i = 0; a->rank == a->root && i < l->lanes; i++) {
        if (l->members[i] != a->root) {
            rabred_plan_recv(plan, l->members[i], RABRED_BUF_ACC,
                             rabred_block_offset(a->count, l->lanes, i),
                             rabred_block_length(a->count, l->lanes, i));
        }
    }
}

int rabred_phase_node_lanes(const rabred_plan_args_t *a, rabred_plan_t *plan,
                            rabred_plan_builder_fn across)
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
        rc = lanes(plan, &l, a, across);
    }
    if (a->root < 0) {
        fold_extras(plan, &l, a, 1);
    } else {
        gather_to_root(plan, &l, a);
    }
    rabred_node_layout_free(&l);
    return RABRED_OK != rc ? rc : plan->error;
}

int rabred_phase_node_leaders(const rabred_plan_args_t *a, const rabred_node_layout_t *l,
                              rabred_plan_t *plan, rabred_plan_builder_fn across)
{
    rabred_plan_view_t node = {l->members, 0, 0};
    rabred_plan_view(plan, &node);
    rabred_phase_tree_reduce(plan, l->nlocal, l->local, 0, a->count);
    if (0 != l->local) {
        return RABRED_OK;
    }
    rabred_plan_view_t leaders = {l->leaders, 0, 1};
    rabred_plan_view(plan, &leaders);
    rabred_plan_args_t inner = {l->nnodes, l->node, a->root >= 0 ? l->root_node : -1, a->count,
                                a->commutative, a->seg_count, NULL, 1, NULL};
    return across(&inner, plan);
}

void rabred_phase_leader_to_root(rabred_plan_t *plan, const rabred_node_layout_t *l,
                                 const rabred_plan_args_t *a)
{
    int leader = l->leaders[l->root_node];
    rabred_plan_view(plan, NULL);
    if (leader == a->root || (a->rank != leader && a->rank != a->root)) {
        return;
    }
    rabred_plan_round(plan);
    if (a->rank == leader) {
        rabred_plan_send(plan, a->root, RABRED_BUF_ACC, 0, a->count);
    } else {
        rabred_plan_recv(plan, leader, RABRED_BUF_ACC, 0, a->count);
    }
}
