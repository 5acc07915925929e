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
    if (NULL != nodes && NULL != nodes->groups && nodes->groups->p == p) {
        return nodes->groups->ordered;
    }
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

/* ---- a map grouped once for all its ranks (rabred_node_groups_t) -------- */

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

/* The ranks by (place, rank): the order a node's ranks take for an op
 * that lets them combine in any order.  RABRED_OK or RABRED_ERR_NOMEM. */
static int place_order(const int64_t *place_of, int p, int32_t *order)
{
    placed_rank_t *pr = malloc((size_t)p * sizeof(*pr));
    if (NULL == pr) {
        return RABRED_ERR_NOMEM;
    }
    for (int r = 0; r < p; r++) {
        pr[r].place = place_of[r];
        pr[r].rank = r;
    }
    qsort(pr, (size_t)p, sizeof(*pr), by_place);
    for (int r = 0; r < p; r++) {
        order[r] = pr[r].rank;
    }
    free(pr);
    return RABRED_OK;
}

/* g->start from g->node: node n's ranks sit at [start[n], start[n + 1]). */
static void count_members(rabred_node_groups_t *g)
{
    memset(g->start, 0, (size_t)(g->nnodes + 1) * sizeof(int32_t));
    for (int r = 0; r < g->p; r++) {
        g->start[g->node[r] + 1]++;
    }
    g->lanes = g->p;
    for (int n = 0; n < g->nnodes; n++) {
        int size = g->start[n + 1];
        g->lanes = size < g->lanes ? size : g->lanes;
        g->start[n + 1] += g->start[n];
    }
}

/* Order o's lists, taking ranks in `order` (NULL: ascending); `cursor`
 * is nnodes words of scratch. */
static void list_members(rabred_node_groups_t *g, int o, const int32_t *order, int32_t *cursor)
{
    memcpy(cursor, g->start, (size_t)g->nnodes * sizeof(int32_t));
    for (int k = 0; k < g->p; k++) {
        int r = NULL != order ? order[k] : k;
        int at = cursor[g->node[r]]++;
        g->ranks[o][at] = r;
        g->local[o][r] = at - g->start[g->node[r]];
    }
    for (int n = 0; n < g->nnodes; n++) {
        g->leaders[o][n] = g->ranks[o][g->start[n]];
        for (int i = 0; i < g->lanes; i++) {
            g->lane[o][(int64_t)i * g->nnodes + n] = g->ranks[o][g->start[n] + i];
        }
    }
}

/* The arrays of order o (ranks, local, lane, leaders), NULL on failure. */
static int alloc_order(rabred_node_groups_t *g, int o)
{
    g->ranks[o] = malloc((size_t)g->p * sizeof(int32_t));
    g->local[o] = malloc((size_t)g->p * sizeof(int32_t));
    g->lane[o] = malloc((size_t)g->lanes * (size_t)g->nnodes * sizeof(int32_t));
    g->leaders[o] = malloc((size_t)g->nnodes * sizeof(int32_t));
    return NULL != g->ranks[o] && NULL != g->local[o] && NULL != g->lane[o] &&
           NULL != g->leaders[o];
}

/* The node of every rank, numbered by lowest rank, and the node sizes. */
static int number_nodes(rabred_node_groups_t *g, const rabred_nodes_t *nodes)
{
    int raw_nodes = NULL != nodes ? nodes->nnodes : 1;
    int32_t *seen = malloc((size_t)raw_nodes * sizeof(int32_t));
    g->node = malloc((size_t)g->p * sizeof(int32_t));
    if (NULL == seen || NULL == g->node) {
        free(seen);
        return RABRED_ERR_NOMEM;
    }
    for (int n = 0; n < raw_nodes; n++) {
        seen[n] = -1;
    }
    g->nnodes = renumber(nodes, g->p, g->node, seen);
    free(seen);
    g->start = malloc((size_t)(g->nnodes + 1) * sizeof(int32_t));
    g->no_lane = malloc((size_t)g->nnodes * sizeof(int32_t));
    if (NULL == g->start || NULL == g->no_lane) {
        return RABRED_ERR_NOMEM;
    }
    for (int n = 0; n < g->nnodes; n++) {
        g->no_lane[n] = -1;
    }
    count_members(g);
    return RABRED_OK;
}

/* Order 1: by (place, rank) when the places are known, else order 0's. */
static int list_by_place(rabred_node_groups_t *g, const rabred_nodes_t *nodes, int32_t *cursor)
{
    if (NULL == nodes || NULL == nodes->place_of) {
        g->ranks[1] = g->ranks[0];
        g->local[1] = g->local[0];
        g->lane[1] = g->lane[0];
        g->leaders[1] = g->leaders[0];
        return RABRED_OK;
    }
    int32_t *order = malloc((size_t)g->p * sizeof(int32_t));
    int rc = NULL != order && alloc_order(g, 1) ? place_order(nodes->place_of, g->p, order)
                                                : RABRED_ERR_NOMEM;
    if (RABRED_OK == rc) {
        list_members(g, 1, order, cursor);
    }
    free(order);
    return rc;
}

int rabred_node_groups_make(rabred_node_groups_t *g, const rabred_nodes_t *nodes, int p)
{
    memset(g, 0, sizeof(*g));
    if (p < 1 || !valid(nodes, p)) {
        return RABRED_ERR_ARG;
    }
    g->p = p;
    int rc = number_nodes(g, nodes);
    int32_t *cursor = RABRED_OK == rc ? malloc((size_t)g->nnodes * sizeof(int32_t)) : NULL;
    rc = NULL == cursor || !alloc_order(g, 0) ? RABRED_ERR_NOMEM : RABRED_OK;
    if (RABRED_OK == rc) {
        list_members(g, 0, NULL, cursor);
        rc = list_by_place(g, nodes, cursor);
    }
    free(cursor);
    if (RABRED_OK != rc) {
        rabred_node_groups_free(g);
        return rc;
    }
    g->ordered = rabred_nodes_ordered(nodes, p);
    return RABRED_OK;
}

void rabred_node_groups_free(rabred_node_groups_t *g)
{
    if (g->ranks[1] != g->ranks[0]) {
        free(g->ranks[1]);
        free(g->local[1]);
        free(g->lane[1]);
        free(g->leaders[1]);
    }
    free(g->ranks[0]);
    free(g->local[0]);
    free(g->lane[0]);
    free(g->leaders[0]);
    free(g->node);
    free(g->start);
    free(g->no_lane);
    memset(g, 0, sizeof(*g));
}

/* ---- one rank's view (rabred_node_layout_t) ----------------------------- */

/* The grouping to read: the map's own when it was prepared for p ranks,
 * else one made now into l->own (O(p)).  NULL with *rc set on failure. */
static const rabred_node_groups_t *groups_for(rabred_node_layout_t *l,
                                              const rabred_plan_args_t *a, int *rc)
{
    const rabred_node_groups_t *g = NULL != a->nodes ? a->nodes->groups : NULL;
    *rc = RABRED_OK;
    if (NULL != g && g->p == a->p) {
        return g;
    }
    l->own = malloc(sizeof(*l->own));
    *rc = NULL != l->own ? rabred_node_groups_make(l->own, a->nodes, a->p) : RABRED_ERR_NOMEM;
    if (RABRED_OK != *rc) {
        free(l->own);
        l->own = NULL;
        return NULL;
    }
    return l->own;
}

int rabred_node_layout(rabred_node_layout_t *l, const rabred_plan_args_t *a)
{
    memset(l, 0, sizeof(*l));
    if (a->rank < 0 || a->rank >= a->p || a->root >= a->p) {
        return RABRED_ERR_ARG;
    }
    int rc;
    const rabred_node_groups_t *g = groups_for(l, a, &rc);
    if (NULL == g) {
        return rc;
    }
    int o = a->commutative ? 1 : 0; /* order 1 is order 0 without places */
    l->nnodes = g->nnodes;
    l->lanes = g->lanes;
    l->ordered = g->ordered;
    l->node = g->node[a->rank];
    l->nlocal = g->start[l->node + 1] - g->start[l->node];
    l->local = g->local[o][a->rank];
    l->members = g->ranks[o] + g->start[l->node];
    l->lane = l->local < l->lanes ? g->lane[o] + (int64_t)l->local * g->nnodes : g->no_lane;
    l->leaders = g->leaders[o];
    l->root_node = l->root_local = -1;
    if (a->root >= 0) {
        l->root_node = g->node[a->root];
        l->root_local = g->local[o][a->root];
    }
    return RABRED_OK;
}

void rabred_node_layout_free(rabred_node_layout_t *l)
{
    if (NULL != l->own) {
        rabred_node_groups_free(l->own);
        free(l->own);
    }
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
    rabred_nodes_t raw = {p, node_of, NULL, NULL};
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

/* The leaders' part: node leaders run `across` in place (ACC holds their
 * node's reduction); the other ranks wait for the broadcast. */
static int leaders_across(const rabred_plan_args_t *a, const rabred_node_layout_t *l,
                          rabred_plan_t *plan, rabred_plan_builder_fn across)
{
    if (0 != l->local) {
        return RABRED_OK;
    }
    rabred_plan_view_t leaders = {l->leaders, 0, 1};
    rabred_plan_view(plan, &leaders);
    rabred_plan_args_t inner = {l->nnodes, l->node, a->root >= 0 ? l->root_node : -1, a->count,
                                a->commutative, a->seg_count, NULL, 1, NULL};
    return across(&inner, plan);
}

int rabred_phase_node_leaders(const rabred_plan_args_t *a, const rabred_node_layout_t *l,
                              rabred_plan_t *plan, rabred_plan_builder_fn across)
{
    rabred_plan_view_t node = {l->members, 0, 0};
    rabred_plan_view(plan, &node);
    rabred_phase_tree_reduce(plan, l->nlocal, l->local, 0, a->count);
    return leaders_across(a, l, plan, across);
}

int rabred_phase_node_leaders_direct(const rabred_plan_args_t *a, const rabred_node_layout_t *l,
                                     rabred_plan_t *plan, rabred_plan_builder_fn across)
{
    rabred_plan_view_t node = {l->members, 0, 0};
    rabred_plan_view(plan, &node);
    rabred_phase_direct_reduce_scatter(plan, l->nlocal, l->local, a->count);
    rabred_phase_direct_gather(plan, l->nlocal, l->local, a->count);
    return leaders_across(a, l, plan, across);
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
