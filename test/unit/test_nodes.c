/*
 * The node-aware algorithms' plans through the simulator (no MPI), over
 * node maps of every shape a job can have:
 *  - block placement (--map-by slot), regular and with a short last node;
 *  - round-robin placement (--map-by node);
 *  - random irregular maps (a few ranks of each node, as MPI_Comm_split
 *    leaves them), interleaved and consecutive;
 *  - one node, and one rank per node;
 * for every p up to 128 (256 with RABRED_TEST_SWEEP=full) and a sample
 * to 1024 (node_sweep_p), MPI_Allreduce and
 * MPI_Reduce to several roots (in the first node, in the middle, the last
 * rank, beyond the lanes), counts 0, 1, below the lanes and odd,
 * commutative ops, in place and not; non-commutative ops on
 * every map whose nodes hold consecutive ranks (the result must be in rank
 * order), and on the others the restriction must refuse them.
 * Also: the node map parser, the layout, and the plan view composing
 * phases over subgroups.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/rabred_nodes.h"
#include "plan/rabred_phases.h"
#include "sim/rabred_sim.h"
#include "rabred_test.h"

static uint64_t rng = 88172645463325252ULL;

static int random_below(int n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (uint64_t)n);
}

enum { MAP_BLOCK2, MAP_BLOCK_SHORT, MAP_CYCLIC, MAP_RANDOM, MAP_RANDOM_RUNS, MAP_ONE_NODE,
       MAP_SINGLETONS, NMAPS };
static const char *map_name[NMAPS] = {"block:2", "block, short last node", "cyclic",
                                      "random interleaved", "random consecutive", "one node",
                                      "one rank per node"};

/* Fills node_of for map kind k at p; returns the number of nodes. */
static int make_map(int k, int p, int32_t *node_of)
{
    int nodes = 1;
    for (int r = 0; r < p; r++) {
        switch (k) {
        case MAP_BLOCK2: node_of[r] = r / 2; break;
        case MAP_BLOCK_SHORT: node_of[r] = r / (p > 4 ? p / 3 + 1 : 2); break;
        case MAP_CYCLIC: node_of[r] = r % (p > 3 ? 3 + p % 5 : 2); break;
        case MAP_RANDOM: node_of[r] = random_below(p > 8 ? p / 4 : 2); break;
        case MAP_RANDOM_RUNS: /* cut after a rank with probability 1/4 */
            node_of[r] = 0 == r ? 0 : node_of[r - 1] + (0 == random_below(4));
            break;
        case MAP_ONE_NODE: node_of[r] = 0; break;
        default: node_of[r] = r; break;
        }
        nodes = node_of[r] + 1 > nodes ? node_of[r] + 1 : nodes;
    }
    /* labels may skip (random): the map needs every node used */
    int32_t *label = malloc((size_t)nodes * sizeof(int32_t));
    for (int n = 0; n < nodes; n++) {
        label[n] = -1;
    }
    int used = 0;
    for (int r = 0; r < p; r++) {
        if (label[node_of[r]] < 0) {
            label[node_of[r]] = used++;
        }
        node_of[r] = label[node_of[r]];
    }
    free(label);
    return used;
}

static void check_segmented(const rabred_alg_t *alg, const rabred_nodes_t *nodes, int p,
                            int root, int64_t count, int64_t seg, int commutative, int in_place,
                            const char *map)
{
    rabred_sim_model_t model;
    rabred_sim_model_default(&model);
    rabred_sim_call_t call = {alg->build, p, root, count, commutative, in_place, seg, 0, NULL,
                              nodes};
    rabred_sim_result_t res;
    int rc = rabred_simulate(&call, &model, &res);
    CHECK(RABRED_OK == rc && res.ok,
          "%s %s p=%d root=%d map %s count=%lld seg=%lld comm=%d inplace=%d: %s",
          rabred_coll_name(alg->coll), alg->name, p, root, map, (long long)count, (long long)seg,
          commutative, in_place, RABRED_OK == rc ? res.error : "simulation failed");
}

static void check_call(const rabred_alg_t *alg, const rabred_nodes_t *nodes, int p, int root,
                       int64_t count, int commutative, int in_place, const char *map)
{
    check_segmented(alg, nodes, p, root, count, 0, commutative, in_place, map);
}

/* A segmented node-aware plan cut into segments of 1 and 7 elements, at
 * every root, and for a non-commutative op where it serves one. */
static void sweep_segments(const rabred_alg_t *alg, const rabred_nodes_t *nodes, int p,
                           const int *roots, int nroots, int64_t count, int serves_ordered,
                           const char *map)
{
    for (int r = 0; r < nroots && alg->segmented; r++) {
        int64_t seg = r & 1 ? 7 : 1;
        check_segmented(alg, nodes, p, roots[r], count, seg, 1, (p + r) & 1, map);
        if (serves_ordered) {
            check_segmented(alg, nodes, p, roots[r], count, seg, 0, (p + r + 1) & 1, map);
        }
    }
}

/* MPI_Reduce's roots: the first and last rank, one in the middle, and the
 * last rank of the first node (often beyond the lanes of an irregular map). */
static int roots_of(const rabred_alg_t *alg, int p, const int32_t *node_of, int *roots)
{
    if (RABRED_COLL_ALLREDUCE == alg->coll) {
        roots[0] = -1;
        return 1;
    }
    int n = 0, last_of_first = 0;
    for (int r = 0; r < p; r++) {
        last_of_first = node_of[r] == node_of[0] ? r : last_of_first;
    }
    int cand[4] = {0, p - 1, p / 2, last_of_first};
    for (int i = 0; i < 4; i++) {
        int dup = 0;
        for (int j = 0; j < n; j++) {
            dup |= roots[j] == cand[i];
        }
        if (!dup) {
            roots[n++] = cand[i];
        }
    }
    return n;
}

/* Every map kind at p, the node-aware algorithms, every count and kind of
 * op; commutative ones also with ranks placed on sockets (places[]). */
static void sweep_p(int p, int32_t *node_of, const int64_t *places, int full)
{
    for (int k = 0; k < NMAPS; k++) {
        rabred_nodes_t nodes = {make_map(k, p, node_of), node_of, NULL, NULL};
        rabred_nodes_t placed = {nodes.nnodes, node_of, places, NULL};
        int ordered = rabred_nodes_ordered(&nodes, p);
        int64_t counts[] = {2 * (int64_t)p + 1, 0, 1, 3};
        for (int i = 0; i < RABRED_NCOLLS * RABRED_TABLE_MAX; i++) {
            const rabred_alg_t *alg = rabred_table_at(i / RABRED_TABLE_MAX, i % RABRED_TABLE_MAX);
            if (NULL == alg || !alg->node_aware) {
                continue;
            }
            int roots[4], nroots = roots_of(alg, p, node_of, roots);
            sweep_segments(alg, &nodes, p, roots, nroots, counts[0],
                           ordered && !(alg->restrictions & RABRED_NEEDS_COMMUTATIVE), map_name[k]);
            /* places inside nodes, not labelled by lowest rank (so the
             * leaders move too): plans for commutative ops reorder nodes */
            check_call(alg, &placed, p, roots[nroots - 1], counts[0], 1, p & 1, map_name[k]);
            for (int c = 0; c < (full ? 4 : 1); c++) {
                int root = roots[c % nroots];
                for (int r = 0; r < nroots && c == 0; r++) {
                    check_call(alg, &nodes, p, roots[r], counts[c], 1, (p + r) & 1, map_name[k]);
                }
                if (c > 0) {
                    check_call(alg, &nodes, p, root, counts[c], 1, (p + c) & 1, map_name[k]);
                }
                rabred_call_t nc = {p, counts[c], 0, &nodes};
                const char *why = rabred_alg_violation(alg, &nc);
                int serves = ordered && !(alg->restrictions & RABRED_NEEDS_COMMUTATIVE);
                CHECK(serves == (NULL == why), "%s p=%d map %s: ordered %d, restriction %s",
                      alg->name, p, map_name[k], ordered, why ? why : "none");
                if (serves) {
                    check_call(alg, &nodes, p, root, counts[c], 0, (p + c + 1) & 1, map_name[k]);
                }
            }
        }
    }
}

/* Which p to sweep.  A map multiplies the flat sweeps' work (seven maps,
 * several roots), and a one-node or one-rank-per-node map of p ranks holds
 * plans of O(p) rounds, a ring's (p = 1000 costs 40 s, ten times p = 256):
 * every p up to 128 (256 with RABRED_TEST_SWEEP=full, make check-long),
 * then powers of two with both neighbours; the full sweep adds the
 * multiples of 97 and 1000, as the flat sweeps sample their O(p)-round
 * algorithms.  The default set runs three times in CI (the unit tests,
 * distcheck, Open MPI 5); the long target once. */
static int node_sweep_p(int p)
{
    int full = rabred_test_full_sweep();
    if (p <= 128 || (p <= 256 && full)) {
        return 1;
    }
    return rabred_test_near_pof2(p) || (full && (p % 97 == 0 || p == 1000));
}

static void test_maps(void)
{
    int32_t *node_of = malloc(1024 * sizeof(int32_t));
    int64_t *places = malloc(1024 * sizeof(int64_t));
    for (int r = 0; r < 1024; r++) { /* three sockets, pseudo-random, two NUMA domains each */
        unsigned h = (unsigned)r * 2654435761u;
        places[r] = (int64_t)(h >> 29 & 3) % 3 << 32 | (int64_t)(h >> 13 & 1);
    }
    for (int p = 1; p <= 1024; p++) {
        if (node_sweep_p(p)) {
            sweep_p(p, node_of, places, p <= 64);
        }
    }
    free(node_of);
    free(places);
}

/* Places order a node's ranks for commutative ops only, and the node's
 * lowest rank stays its leader when places are labelled by lowest rank
 * (what coll_rabred_nodes.c learns): 8 ranks round-robin over 2 nodes, and
 * over 2 sockets inside each (--map-by node, then socket). */
static void test_places(void)
{
    int32_t node_of[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    int64_t places[8];
    for (int r = 0; r < 8; r++) { /* lowest rank on the same node and socket */
        int64_t label = r % 4;
        places[r] = label << 32 | label;
    }
    rabred_nodes_t nodes = {2, node_of, places, NULL};
    rabred_plan_args_t a = {8, 2, -1, 10, 1, 0, NULL, 0, &nodes};
    rabred_node_layout_t l;
    CHECK(RABRED_OK == rabred_node_layout(&l, &a) && 4 == l.nlocal && 0 == l.members[0] &&
              4 == l.members[1] && 2 == l.members[2] && 6 == l.members[3] && 2 == l.local &&
              0 == l.leaders[0] && 1 == l.leaders[1] && 3 == l.lane[1],
          "commutative: node 0 is not ordered by socket (0 4 2 6)");
    rabred_node_layout_free(&l);
    a.commutative = 0;
    CHECK(RABRED_OK == rabred_node_layout(&l, &a) && 2 == l.members[1] && 1 == l.local,
          "non-commutative: places changed rank order");
    rabred_node_layout_free(&l);
}

/* The restriction is real: on an interleaved map a non-commutative op
 * really loses rank order (else the restriction costs users for nothing). */
static void test_order_restriction_is_real(void)
{
    int32_t node_of[6] = {0, 1, 0, 1, 0, 1};
    rabred_nodes_t nodes = {2, node_of, NULL, NULL};
    rabred_sim_model_t model;
    rabred_sim_model_default(&model);
    for (int i = 0; i < RABRED_NCOLLS * RABRED_TABLE_MAX; i++) {
        const rabred_alg_t *alg = rabred_table_at(i / RABRED_TABLE_MAX, i % RABRED_TABLE_MAX);
        if (NULL != alg && alg->node_aware && !(alg->restrictions & RABRED_NEEDS_COMMUTATIVE)) {
            int root = RABRED_COLL_REDUCE == alg->coll ? 3 : -1;
            rabred_sim_call_t call = {alg->build, 6, root, 50, 0, 0, 0, 0, NULL, &nodes};
            rabred_sim_result_t res;
            CHECK(RABRED_OK == rabred_simulate(&call, &model, &res) && !res.ok,
                  "%s keeps rank order on an interleaved map: drop its restriction", alg->name);
        }
    }
}

static void test_parse(void)
{
    int32_t n[8];
    int nn = 0;
    CHECK(RABRED_OK == rabred_nodes_parse("block:3", 8, n, &nn) && 3 == nn && 0 == n[2] &&
              1 == n[3] && 2 == n[7],
          "block:3 at p=8: 3 nodes, the last of 2 (%d nodes)", nn);
    CHECK(RABRED_OK == rabred_nodes_parse("cyclic:3", 8, n, &nn) && 3 == nn && 0 == n[3] &&
              2 == n[5],
          "cyclic:3 at p=8");
    CHECK(RABRED_OK == rabred_nodes_parse("list:5,5,2,5,7,2,0,0", 8, n, &nn) && 4 == nn &&
              0 == n[0] && 1 == n[2] && 0 == n[3] && 2 == n[4] && 3 == n[7],
          "a list is renumbered by lowest rank (%d nodes)", nn);
    CHECK(RABRED_OK == rabred_nodes_parse("block:64", 8, n, &nn) && 1 == nn,
          "block:L above p: one node");
    static const char *bad[] = {"", "block", "block:", "block:0", "block:-2", "cyclic:x",
                                "ring:2", "list:0,1", "list:0,1,2,3,4,5,6,8", "list:0,,1",
                                "list:0,1,2,3,4,5,6,7,", "block:2x", NULL};
    for (int i = 0; bad[i]; i++) {
        CHECK(RABRED_ERR_ARG == rabred_nodes_parse(bad[i], 8, n, &nn), "\"%s\" is refused",
              bad[i]);
    }
}

static void test_layout(void)
{
    int32_t node_of[7] = {4, 1, 4, 1, 4, 9, 1}; /* nodes {0,2,4} {1,3,6} {5} */
    rabred_nodes_t nodes = {10, node_of, NULL, NULL};
    rabred_plan_args_t a = {7, 3, -1, 10, 1, 0, NULL, 0, &nodes};
    rabred_node_layout_t l;
    CHECK(RABRED_OK == rabred_node_layout(&l, &a), "layout");
    CHECK(1 == l.node && 3 == l.nnodes && 1 == l.local && 3 == l.nlocal && 1 == l.lanes &&
              1 == l.members[0] && 6 == l.members[2] && 0 == l.leaders[0] &&
              5 == l.leaders[2] && !l.ordered,
          "rank 3: node %d of %d, local %d of %d, %d lanes", l.node, l.nnodes, l.local,
          l.nlocal, l.lanes);
    rabred_node_layout_free(&l);
    node_of[0] = 12;
    CHECK(RABRED_ERR_ARG == rabred_node_layout(&l, &a), "a node outside 0..nnodes-1 is refused");
    CHECK(!rabred_nodes_matter(NULL, 7), "no map: flat");
}

/* Rank r's local index under a direct count: the members of its node
 * before it in the order (ascending, or by (place, rank) when `placed`). */
static int reference_local(const int32_t *node_of, const int64_t *places, int placed, int p,
                           int r)
{
    int before = 0;
    for (int q = 0; q < p; q++) {
        int earlier = placed && places[q] != places[r] ? places[q] < places[r] : q < r;
        before += node_of[q] == node_of[r] && earlier;
    }
    return before;
}

/* One rank's layout against the definitions, counted directly (O(p^2)). */
static void check_layout_reference(const rabred_node_layout_t *l, const int32_t *node_of,
                                   const int64_t *places, const rabred_plan_args_t *a, int nnodes)
{
    int p = a->p, placed = a->commutative && NULL != places, lanes = p, bad = 0;
    for (int n = 0; n < nnodes; n++) {
        int size = 0;
        for (int q = 0; q < p; q++) {
            size += node_of[q] == n;
        }
        lanes = size < lanes ? size : lanes;
    }
    int local = reference_local(node_of, places, placed, p, a->rank);
    bad |= l->nnodes != nnodes || l->lanes != lanes || l->node != node_of[a->rank] ||
           l->local != local || l->ordered != rabred_nodes_ordered(a->nodes, p);
    for (int q = 0; q < p && !bad; q++) {
        int lq = reference_local(node_of, places, placed, p, q);
        if (node_of[q] == l->node) {
            bad |= l->members[lq] != q;
        }
        if (0 == lq) {
            bad |= l->leaders[node_of[q]] != q;
        }
        if (lq == local) {
            bad |= l->lane[node_of[q]] != (local < lanes ? q : -1);
        }
    }
    if (a->root >= 0) {
        bad |= l->root_node != node_of[a->root] ||
               l->root_local != reference_local(node_of, places, placed, p, a->root);
    }
    CHECK(!bad, "layout of rank %d (p=%d, root %d, commutative %d, places %s) differs from "
                "its definition",
          a->rank, p, a->root, a->commutative, places ? "given" : "unknown");
}

/* Layouts read from a map grouped once (the simulator's and the module's
 * way) and made on their own (a map without groups) both match the
 * definitions: every rank, both orders, roots anywhere, irregular maps. */
static void test_layout_reference(void)
{
    static const int ps[] = {1, 2, 3, 7, 16, 33, 64};
    int32_t node_of[64];
    int64_t places[64];
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        int p = ps[i];
        for (int k = 0; k < NMAPS; k++) {
            int nnodes = make_map(k, p, node_of);
            for (int r = 0; r < p; r++) { /* a socket of the node: ranks interleaved */
                places[r] = random_below(3);
            }
            for (int with_places = 0; with_places < 2; with_places++) {
                const int64_t *pl = with_places ? places : NULL;
                rabred_nodes_t nodes = {nnodes, node_of, pl, NULL};
                rabred_node_groups_t g;
                CHECK(RABRED_OK == rabred_node_groups_make(&g, &nodes, p), "groups at p=%d", p);
                rabred_nodes_t grouped = {nnodes, node_of, pl, &g};
                int roots[3] = {-1, p - 1, random_below(p)};
                for (int rank = 0; rank < p; rank++) {
                    for (int c = 0; c < 6; c++) {
                        rabred_plan_args_t a = {p, rank, roots[c / 2], 10, c % 2, 0, NULL, 0,
                                                c % 3 ? &grouped : &nodes};
                        rabred_node_layout_t l;
                        CHECK(RABRED_OK == rabred_node_layout(&l, &a), "layout at p=%d", p);
                        check_layout_reference(&l, node_of, pl, &a, nnodes);
                        rabred_node_layout_free(&l);
                    }
                }
                rabred_node_groups_free(&g);
            }
        }
    }
    rabred_nodes_t none = {0, NULL, NULL, NULL};
    rabred_node_groups_t g;
    CHECK(RABRED_ERR_ARG == rabred_node_groups_make(&g, &none, 4), "an empty map is refused");
    rabred_node_groups_free(&g);
}

/* A view maps members to ranks and ranges to a sub-range; a copy of a
 * buffer onto itself vanishes, a reduction of one into itself is an error. */
static void test_view(void)
{
    rabred_plan_t plan;
    rabred_plan_init(&plan);
    int32_t members[2] = {5, 2};
    rabred_plan_view_t v = {members, 100, 1};
    rabred_plan_view(&plan, &v);
    rabred_plan_copy(&plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, 10);
    rabred_plan_round(&plan);
    rabred_plan_send(&plan, 1, RABRED_BUF_INPUT, 3, 4);
    CHECK(0 == plan.nlocals && 1 == plan.nxfers && 2 == plan.xfers[0].peer &&
              RABRED_BUF_ACC == plan.xfers[0].buf && 103 == plan.xfers[0].off,
          "member 1 is rank 2, element 3 is 103, INPUT is ACC");
    rabred_plan_view(&plan, NULL);
    rabred_plan_send(&plan, 1, RABRED_BUF_INPUT, 3, 4);
    CHECK(2 == plan.nrounds, "leaving the view starts a round (%d rounds, want 2)", plan.nrounds);
    CHECK(1 == plan.xfers[1].peer && 3 == plan.xfers[1].off &&
              RABRED_BUF_INPUT == plan.xfers[1].buf,
          "outside the view: ranks and ranges as given");
    rabred_plan_view(&plan, &v);
    rabred_plan_reduce(&plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, 4, 1);
    CHECK(RABRED_ERR_ARG == plan.error, "a reduction of ACC into itself is refused");
    rabred_plan_free(&plan);
}

/* The two-level simulator: a node's ranks share its network port.  With
 * only the inter-node byte term on (intra-node messages free), count n:
 *  - node_lanes, 4 nodes x 2 (block): each lane's ring moves 2 (3/4) n/2,
 *    and the two lanes of a node share its port: 1.5 n;
 *  - the flat pairwise ring over the same 8 ranks placed round-robin
 *    (cyclic:4): 13 of its 14 steps cross nodes (step 4 of the exchange
 *    stays inside), both ranks of a node sending n/8 at once: 3.25 n;
 *  - one rank per node: the same time as the one-link simulator. */
static double sim_time(const char *alg_name, int p, const rabred_nodes_t *nodes, int64_t n,
                       const rabred_sim_model_t *model)
{
    const rabred_alg_t *alg = rabred_table_by_name(RABRED_COLL_ALLREDUCE, alg_name);
    rabred_sim_call_t call = {alg->build, p, -1, n, 1, 0, 0, 1, NULL, nodes};
    rabred_sim_result_t res;
    int rc = rabred_simulate(&call, model, &res);
    CHECK(RABRED_OK == rc && res.ok, "%s p=%d: %s", alg_name, p, res.error);
    return res.time;
}

static void test_node_ports(void)
{
    const int64_t n = 8 << 10;
    int32_t block[8], cyclic[8], single[8];
    for (int r = 0; r < 8; r++) {
        block[r] = r / 2;
        cyclic[r] = r % 4;
        single[r] = r;
    }
    rabred_nodes_t by_block = {4, block, NULL, NULL}, by_cyclic = {4, cyclic, NULL, NULL};
    rabred_nodes_t one_each = {8, single, NULL, NULL};
    rabred_sim_model_t inter_bytes = {0, 0, 0, 1, 1, NULL, NULL, 0, 1};
    inter_bytes.nodes = &by_block;
    double lanes = sim_time("node_lanes", 8, &by_block, n, &inter_bytes);
    CHECK(fabs(lanes - 1.5 * n) <= 8, "node_lanes 4 x 2: %g, want 1.5 n = %g", lanes, 1.5 * n);
    inter_bytes.nodes = &by_cyclic;
    double flat = sim_time("pairwise_ring", 8, &by_cyclic, n, &inter_bytes);
    CHECK(fabs(flat - 3.25 * n) <= 16, "flat ring round-robin: %g, want 3.25 n = %g", flat,
          3.25 * n);
    /* a node link four times a rank's (a leaf switch's uplinks): a message
     * alone still takes its rank's time, four at once share the link */
    int32_t pair[2] = {0, 1};
    rabred_nodes_t two_nodes = {2, pair, NULL, NULL};
    rabred_sim_model_t wide = {0, 0, 0, 1, 1, NULL, &two_nodes, 0, 0.25, 1};
    double alone = sim_time("recursive_doubling", 2, &two_nodes, n, &wide);
    CHECK(fabs(alone - n) <= 1e-9 * n, "one message over a wide node link: %g, want n = %g",
          alone, (double)n);
    rabred_sim_model_t one = {1, 1, 1, 1, 1, NULL, NULL, 0, 0};
    rabred_sim_model_t two = {0, 0, 1, 1, 1, NULL, &one_each, 1, 1};
    static const char *algs[] = {"rabenseifner", "pairwise_ring", "bruck", "binary_blocks"};
    for (int i = 0; i < 4; i++) {
        double t1 = sim_time(algs[i], 8, NULL, 1000, &one);
        double t2 = sim_time(algs[i], 8, &one_each, 1000, &two);
        CHECK(fabs(t1 - t2) <= 1e-9 * t1, "%s, one rank per node: %g, one link: %g", algs[i], t2,
              t1);
    }
}

/* latency_overlaps (a flow-level network, bench/scale/): a message holds
 * its ports for its bytes only.  With one message per port and round
 * nothing changes; where a rank sends to many peers in one round (the
 * linear algorithm's root sends the result to all p-1 at once, after
 * receiving one peer per round, in rank order) their latencies overlap
 * instead of adding up: 2 (p-1) alpha becomes p alpha. */
static void test_latency_overlaps(void)
{
    rabred_sim_model_t held = {1, 0, 0, 1, 1, NULL, NULL, 0, 0, 0};
    rabred_sim_model_t flow = held;
    flow.latency_overlaps = 1;
    double rd_held = sim_time("recursive_doubling", 8, NULL, 64, &held);
    double rd_flow = sim_time("recursive_doubling", 8, NULL, 64, &flow);
    CHECK(fabs(rd_held - 3) < 1e-9 && fabs(rd_flow - 3) < 1e-9,
          "recursive doubling p=8, alpha 1: held %g, overlapped %g, want 3", rd_held, rd_flow);
    double lin_held = sim_time("linear", 8, NULL, 64, &held);
    double lin_flow = sim_time("linear", 8, NULL, 64, &flow);
    CHECK(fabs(lin_held - 14) < 1e-9, "linear p=8, alpha 1, ports held: %g, want 2 (p-1)",
          lin_held);
    CHECK(fabs(lin_flow - 8) < 1e-9, "linear p=8, alpha 1, latency overlapped: %g, want p",
          lin_flow);
    /* a quarter of alpha held (the overhead): the root's 7 sends of the
     * last round leave one overhead apart, in turn or shared: p + 6/4 */
    flow.overhead = 0.25;
    for (int fair = 0; fair < 2; fair++) {
        flow.fair_share = fair;
        double t = sim_time("linear", 8, NULL, 64, &flow);
        CHECK(fabs(t - 9.5) < 1e-9, "linear p=8, alpha 1, overhead 1/4, ports %s: %g, want 9.5",
              fair ? "shared" : "in turn", t);
    }
}

/* fair_share: messages in flight on a port share it.
 *  - Where no port ever carries two messages at once (recursive doubling,
 *    Rabenseifner's plan at p = 8, the ring at p = 5, one rank per node or
 *    four nodes of two), the time is the ports-in-turn time exactly, with
 *    latency held or overlapped.
 *  - binary_tree at p = 4, alpha 0, beta 1: rank 0 sends the result to
 *    ranks 1 and 3 in one round; in turn rank 1 has it at 4n and passes
 *    it on by 5n, shared both have it at 5n and the last arrives at 6n.
 *  - node_leaders at p = 8 without a node map broadcasts from rank 0 to
 *    ranks 1, 2 and 4 in three rounds: when those sends fit the send
 *    buffer, rank 0 posts all three at once and they share its port, so
 *    rank 1, whose subtree is deepest, has it later: a longer call than
 *    with sends that wait. */
static void test_fair_share(void)
{
    static const char *algs[] = {"recursive_doubling", "rabenseifner", "neighbor_ring"};
    static const int ps[] = {8, 8, 5};
    int32_t pairs[8];
    for (int r = 0; r < 8; r++) {
        pairs[r] = r / 2;
    }
    rabred_nodes_t by_pairs = {4, pairs, NULL, NULL};
    for (int overlap = 0; overlap < 2; overlap++) {
        rabred_sim_model_t turns;
        rabred_sim_model_default(&turns);
        turns.alpha = 1e-6;
        turns.beta = 1e-9;
        turns.gamma = 0;
        turns.inter_alpha = 2e-6;
        turns.inter_beta = 3e-9;
        turns.latency_overlaps = overlap;
        rabred_sim_model_t shared = turns;
        shared.fair_share = 1;
        for (int i = 0; i < 3; i++) {
            double a = sim_time(algs[i], ps[i], NULL, 4096, &turns);
            double b = sim_time(algs[i], ps[i], NULL, 4096, &shared);
            CHECK(fabs(a - b) <= 1e-12 * a, "%s p=%d, latency %s: in turn %g s, shared %g s",
                  algs[i], ps[i], overlap ? "overlapped" : "held", a, b);
        }
        double a = sim_time("recursive_doubling", 8, &by_pairs, 4096, &turns);
        double b = sim_time("recursive_doubling", 8, &by_pairs, 4096, &shared);
        CHECK(fabs(a - b) <= 1e-12 * a, "recursive doubling, 4 nodes of 2: in turn %g, shared %g",
              a, b);
    }
    const int64_t n = 1000;
    rabred_sim_model_t turns;
    rabred_sim_model_default(&turns);
    turns.alpha = turns.gamma = 0;
    rabred_sim_model_t shared = turns;
    shared.fair_share = 1;
    double a = sim_time("binary_tree", 4, NULL, n, &turns);
    double b = sim_time("binary_tree", 4, NULL, n, &shared);
    CHECK(fabs(a - 5.0 * n) < 1e-9 && fabs(b - 6.0 * n) < 1e-9,
          "binary_tree p=4, beta 1: in turn %g (want 5n), shared %g (want 6n)", a, b);
    rabred_sim_model_t eager = shared;
    eager.send_buffer = (double)n;
    double waiting = sim_time("node_leaders", 8, NULL, n, &shared);
    double leaving = sim_time("node_leaders", 8, NULL, n, &eager);
    CHECK(leaving > waiting + 0.5 * n,
          "node_leaders p=8: sends that leave at once take %g, sends that wait %g", leaving,
          waiting);
}

/* Ports that hold nothing (rabred_sim_model_t.parallel_ports): each
 * message inside a node takes its time as if alone.  node_leaders_direct
 * with alpha and gamma 0, beta 1 per element, n elements:
 *  - p = 8, one node: the reduce-scatter's and the gather's messages of
 *    n/8 take n/8 each at once, the broadcast's n: 1.25 n; taking turns,
 *    rank 0's ports move 7 of each one after the other: 8.75 n;
 *  - 2 nodes of 4, inter_beta 3: n/4 + n/4 inside, the leaders' exchange
 *    3 n on their nodes' links (no port spared there), the broadcast n:
 *    4.5 n; taking turns 3/4 n + 3/4 n + 3 n + 3 n = 7.5 n. */
static void test_parallel_ports(void)
{
    const int64_t n = 8000;
    int32_t halves[8];
    for (int r = 0; r < 8; r++) {
        halves[r] = r / 4;
    }
    rabred_nodes_t two = {2, halves, NULL, NULL};
    rabred_sim_model_t turns;
    rabred_sim_model_default(&turns);
    turns.alpha = turns.gamma = turns.inter_alpha = 0;
    turns.inter_beta = 3;
    rabred_sim_model_t parallel = turns;
    parallel.parallel_ports = 1;
    /* the flow-level engine (bench/scale's cross-check) the same: a flow
     * on a link without ports moves as if alone */
    rabred_sim_model_t shared = turns, shared_parallel = parallel;
    shared.fair_share = shared_parallel.fair_share = 1;
    struct {
        const rabred_nodes_t *nodes;
        const rabred_sim_model_t *model;
        double want;
    } cases[] = {{NULL, &parallel, 1.25},       {NULL, &turns, 8.75},
                 {&two, &parallel, 4.5},        {&two, &turns, 7.5},
                 {NULL, &shared_parallel, 1.25}, {NULL, &shared, 8.75},
                 {&two, &shared_parallel, 4.5}, {&two, &shared, 7.5}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rabred_sim_model_t m = *cases[i].model;
        m.nodes = cases[i].nodes;
        double t = sim_time("node_leaders_direct", 8, cases[i].nodes, n, &m);
        CHECK(fabs(t - cases[i].want * n) < 1e-9 * n,
              "node_leaders_direct p=8, %s, %s%s: %g n, want %g n",
              cases[i].nodes ? "2 nodes of 4" : "one node",
              cases[i].model->parallel_ports ? "no ports" : "ports",
              cases[i].model->fair_share ? ", shared" : ", in turns", t / n, cases[i].want);
    }
}

/* A send larger than the send buffer releases its sender once the rest
 * fits, in both engines: MPI_Reduce's binomial tree at p = 2, beta 1,
 * n elements, the leaf's one send; the ranks' mean is (n + leaf) / 2. */
static void test_send_released(void)
{
    const int64_t n = 1000;
    const rabred_alg_t *alg = rabred_table_by_name(RABRED_COLL_REDUCE, "binomial");
    rabred_sim_call_t call = {alg->build, 2, 0, n, 1, 0, 0, 1, NULL, NULL};
    struct {
        double buffer, leaf; /* the leaf leaves at `leaf` n */
    } cases[] = {{0, 1}, {250, 0.75}, {1000, 0}, {4000, 0}};
    for (int share = 0; share < 2; share++) {
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            rabred_sim_model_t m;
            rabred_sim_model_default(&m);
            m.alpha = m.gamma = 0;
            m.fair_share = share;
            m.send_buffer = cases[i].buffer;
            rabred_sim_result_t res;
            int rc = rabred_simulate(&call, &m, &res);
            double want = (1 + cases[i].leaf) / 2 * (double)n;
            CHECK(RABRED_OK == rc && res.ok && fabs(res.avg_elapsed - want) < 1e-9 * n,
                  "binomial reduce p=2, buffer %g of %lld, %s: mean %g, want %g",
                  cases[i].buffer, (long long)n, share ? "shared" : "in turns",
                  res.avg_elapsed, want);
        }
    }
}

int main(void)
{
    test_send_released();
    test_parallel_ports();
    test_latency_overlaps();
    test_fair_share();
    test_parse();
    test_layout();
    test_layout_reference();
    test_places();
    test_view();
    test_order_restriction_is_real();
    test_node_ports();
    test_maps();
    char name[64];
    snprintf(name, sizeof(name), "test_nodes, %s",
             rabred_test_full_sweep() ? "every p to 256, a sample to 1024"
                                      : "sampled p (all to 128, a sample to 1024)");
    return rabred_test_summary(name);
}
